"""The JSON-lines layer's slow path: odd content is repaired or quarantined, never raised."""

from __future__ import annotations

import io
import time
from typing import Any

import orjson
import pytest

from tests.harness.line_support import check_accounting, one, read_all
from viva_store.importing.harness.lines import (
    MAX_DEPTH,
    RAW_HEAD_BYTES,
    iter_lines,
    to_records,
)
from viva_store.importing.harness.lines_decode import decode_line
from viva_store.importing.harness.model import Problem

BOM = b"\xef\xbb\xbf"


# --- content that must never raise --------------------------------------------------------


def test_bom_at_file_start_and_on_a_later_line() -> None:
    data = BOM + b'{"a":1}\n' + BOM + b'{"b":2}\n' + BOM + b"\n"
    outcomes, progress = read_all(data)
    assert [o.records for o in outcomes] == [({"a": 1},), ({"b": 2},), ()]
    assert [o.kind for o in outcomes] == ["record", "record", "blank"]
    assert all(o.reason == "utf-8 BOM removed" for o in outcomes)
    check_accounting(data, outcomes, progress)


def test_invalid_utf8_inside_a_string_is_replaced_and_said() -> None:
    out = one(b'{"t":"ok \xff\xfe end","k\xc3":1}')
    assert out.kind == "record"
    assert out.records == ({"t": "ok \ufffd\ufffd end", "k\ufffd": 1},)
    assert out.reason == "invalid UTF-8 replaced"
    orjson.dumps(out.records)  # storable as UTF-8


def test_invalid_utf8_outside_strings_is_quarantined() -> None:
    out = one(b'{"t":1}\xff')
    assert out.kind == "quarantined" and out.raw == b'{"t":1}\xff\n'


def test_lone_surrogates_become_replacement_characters() -> None:
    out = one(rb'{"s":"a\ud800b","\udfff":["\ud83d\ude00", "\udc00"]}')
    assert out.kind == "record"
    assert out.records == ({"s": "a\ufffdb", "\ufffd": ["\U0001f600", "\ufffd"]},)
    assert out.reason == "lone surrogates replaced by U+FFFD"
    orjson.dumps(out.records)


def test_nul_bytes_padding_inside_strings_and_alone() -> None:
    padded = one(b'\x00\x00\x00{"a":1}\x00')
    assert padded.records == ({"a": 1},) and padded.reason == "4 NUL bytes removed"
    inside = one(b'{"a":"x\x00y"}')
    assert inside.records == ({"a": "x\x00y"},) and inside.reason is not None
    escaped = one(b'{"a":"x\\u0000y"}')
    assert escaped.records == ({"a": "x\x00y"},) and escaped.reason is None
    alone = one(b"\x00" * 10)
    assert alone.kind == "quarantined" and alone.raw == b"\x00" * 10 + b"\n"


def test_nan_and_infinity_become_null_and_are_noted() -> None:
    out = one(b'{"a":NaN,"b":[Infinity,-Infinity],"c":1e400,"d":1.5}')
    assert out.records == ({"a": None, "b": [None, None], "c": None, "d": 1.5},)
    assert out.reason == "4 NaN/Infinity replaced by null"


def test_100000_deep_line_is_quarantined_quickly_without_recursion() -> None:
    for opener, closer in ((b"[", b"]"), (b'{"a":', b"}")):
        line = opener * 100_000 + b"1" + closer * 100_000
        started = time.perf_counter()
        out = one(line)
        assert time.perf_counter() - started < 2
        assert out.kind == "quarantined" and out.reason == f"nested deeper than {MAX_DEPTH}"
        assert out.raw == line + b"\n"


def test_deep_nesting_that_parses_or_sits_in_strings_is_fine() -> None:
    inside_string = one(b'{"s":"' + b"[" * 100_000 + b'"}')
    assert inside_string.kind == "record"
    nested = b'{"a":' * 600 + b"1" + b"}" * 600  # orjson's limit is 1024
    assert one(nested).kind == "record"
    # deeper than MAX_DEPTH but needing the slow path (a NaN): quarantined, not parsed
    assert one(b'{"a":' * 600 + b"NaN" + b"}" * 600).reason == f"nested deeper than {MAX_DEPTH}"


def test_glued_objects_are_all_salvaged_with_positions() -> None:
    out = one(b'{"a":1}{"b":2} {"c":[3]}')
    assert out.kind == "record"
    assert out.records == ({"a": 1}, {"b": 2}, {"c": [3]})
    assert out.reason == "3 JSON objects glued on one line, salvaged"
    assert out.positions == (0, 7, 15)

    problems: list[Problem] = []
    data = b'{"z":0}\n{"a":1}{"b":"\xc3\xa9"}{"c":3}\n'
    records = list(to_records(iter_lines(io.BytesIO(data), 0, 1), "f.jsonl", problems))
    assert [(r.line, r.offset, r.obj) for r in records] == [
        (1, 0, {"z": 0}),
        (2, 8, {"a": 1}),
        (2, 15, {"b": "é"}),
        (2, 25, {"c": 3}),
    ]
    assert problems == [Problem("f.jsonl", 2, "3 JSON objects glued on one line, salvaged")]


def test_glued_line_with_garbage_or_non_objects_is_kept_whole() -> None:
    garbage = one(b'{"a":1}{"b":2}oops')
    assert garbage.kind == "quarantined" and garbage.records == ()
    assert garbage.reason == "2 JSON objects followed by not JSON"
    assert garbage.raw == b'{"a":1}{"b":2}oops\n'
    assert one(b'{"a":1}[2]').reason == "not a JSON object"
    assert one(b'{"a":1}{"b":').reason == "1 JSON object followed by truncated JSON"


def test_values_that_are_not_objects_are_quarantined() -> None:
    for line in (b'"a string"', b"42", b"-1.5", b"[1,2]", b"null", b"true", b"NaN", b'"\\ud800"'):
        out = one(line)
        assert (out.kind, out.reason, out.raw) == ("quarantined", "not a JSON object", line + b"\n")


def test_a_file_that_is_not_json_at_all() -> None:
    data = b"# a config file\nkey = value\n<html>\n\x89PNG\r\n"
    outcomes, progress = read_all(data)
    assert [o.kind for o in outcomes] == ["quarantined"] * 4
    assert all(o.reason == "not JSON" for o in outcomes)
    assert b"".join(o.raw or b"" for o in outcomes) == data
    check_accounting(data, outcomes, progress)


def test_truncated_json_lines_and_files() -> None:
    for line in (b'{"a":', b'{"a":1', b'{"a":1,', b'{"a":"unterminated', b'{"a":[1,2'):
        out = one(line)
        assert (out.kind, out.reason) == ("quarantined", "truncated JSON")
    outcomes, progress = read_all(b'{"a":1}\n{"b":[1,2')
    assert len(outcomes) == 1 and progress.withheld == len(b'{"b":[1,2')


def test_other_undecodable_numbers_do_not_raise() -> None:
    out = one(b'{"a":NaN,"b":' + b"9" * 5000 + b"}")
    assert (
        out.kind == "quarantined" and out.reason is not None and out.reason.startswith("not JSON")
    )


def test_a_line_of_tens_of_megabytes_is_read() -> None:
    text = "x" * (30 << 20)
    data = b'{"a":1}\n' + orjson.dumps({"big": text}) + b'\n{"b":2}\n'
    outcomes, progress = read_all(data)
    assert [o.kind for o in outcomes] == ["record"] * 3
    assert outcomes[1].records[0]["big"] == text
    check_accounting(data, outcomes, progress)


@pytest.mark.parametrize("chunk_size", [7, 100, 1 << 20])
def test_lines_over_the_limit_are_quarantined_with_their_head(chunk_size: int) -> None:
    long_line = b'{"a":"' + b"y" * 10_000 + b'"}'
    data = b'{"a":1}\n' + long_line + b'\n{"b":2}\n'
    outcomes, progress = read_all(data, max_line_bytes=5000, chunk_size=chunk_size)
    assert [o.kind for o in outcomes] == ["record", "quarantined", "record"]
    big = outcomes[1]
    assert big.reason == f"line of {len(long_line) + 1} bytes exceeds limit"
    assert big.raw == long_line[:RAW_HEAD_BYTES]
    check_accounting(data, outcomes, progress)
    # an unterminated over-limit tail is withheld like any other
    outcomes, progress = read_all(data + long_line, max_line_bytes=5000, chunk_size=chunk_size)
    assert len(outcomes) == 3 and progress.withheld == len(long_line)


def test_line_exactly_at_the_limit_is_parsed() -> None:
    line = b'{"a":"' + b"z" * 100 + b'"}'
    outcomes, _ = read_all(line + b"\n", max_line_bytes=len(line) + 1, chunk_size=16)
    assert outcomes[0].kind == "record"
    outcomes, _ = read_all(line + b"\n", max_line_bytes=len(line), chunk_size=16)
    assert outcomes[0].kind == "quarantined"


def test_clean_lines_never_take_the_slow_path(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[bytes] = []

    def spy(body: bytes) -> Any:
        calls.append(body)
        return decode_line(body)

    monkeypatch.setattr("viva_store.importing.harness.lines.decode_line", spy)
    data = b"".join(orjson.dumps({"i": i, "s": "é" * i}) + b"\n" for i in range(500))
    outcomes, _ = read_all(data, chunk_size=333)
    assert len(outcomes) == 500 and calls == []
    read_all(b'{"a":NaN}\n')
    assert calls == [b'{"a":NaN}']
