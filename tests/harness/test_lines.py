"""The JSON-lines layer: every complete line accounted for, nothing raises, resumes agree."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viva_store.importing.harness.lines import (
    MAX_DEPTH,
    RAW_HEAD_BYTES,
    LineOutcome,
    Progress,
    iter_lines,
    open_source,
    range_sha256,
    to_records,
)
from viva_store.importing.harness.lines_decode import decode_line
from viva_store.importing.harness.model import Problem

FIXTURES = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "harness-samples"
BOM = b"\xef\xbb\xbf"


def read_all(
    data: bytes, start_offset: int = 0, start_line: int = 1, **kwargs: Any
) -> tuple[list[LineOutcome], Progress]:
    progress = Progress()
    outcomes = list(
        iter_lines(io.BytesIO(data), start_offset, start_line, progress=progress, **kwargs)
    )
    return outcomes, progress


def one(line: bytes) -> LineOutcome:
    outcomes, progress = read_all(line + b"\n")
    assert len(outcomes) == 1 and progress.withheld == 0
    return outcomes[0]


def check_accounting(
    data: bytes, outcomes: list[LineOutcome], progress: Progress, start: int = 0
) -> None:
    assert sum(o.length for o in outcomes) + progress.withheld == len(data) - start
    offset = start
    for out in outcomes:
        assert out.offset == offset
        offset += out.length
        assert data[out.offset + out.length - 1 : out.offset + out.length] == b"\n"
    assert progress.offset == offset


# --- complete lines only, withheld tails, accounting -------------------------------------


def test_unterminated_tail_is_withheld_then_taken_once_completed() -> None:
    first = b'{"a":1}\n{"b":2}\n{"c":'
    outcomes, progress = read_all(first)
    assert [o.records for o in outcomes] == [({"a": 1},), ({"b": 2},)]
    assert progress.withheld == len(b'{"c":')
    assert (progress.offset, progress.next_line, progress.lines) == (16, 3, 2)
    check_accounting(first, outcomes, progress)

    completed = first + b'3}\n{"d":'
    again, progress2 = read_all(completed, progress.offset, progress.next_line)
    assert [(o.line, o.offset, o.records) for o in again] == [(3, 16, ({"c": 3},))]
    assert progress2.withheld == len(b'{"d":')
    check_accounting(completed, again, progress2, start=16)


def test_generator_returns_its_progress_and_updates_it_per_line() -> None:
    data = b'{"a":1}\n{"b":2}\n'
    progress = Progress()
    gen = iter_lines(io.BytesIO(data), 0, 1, progress=progress)
    first = next(gen)
    assert progress.offset == first.offset + first.length and progress.next_line == 2
    with pytest.raises(StopIteration) as stop:
        while True:
            next(gen)
    assert stop.value.value is progress
    assert progress.offset == len(data)


def test_blank_whitespace_and_crlf_lines() -> None:
    data = b'{"a":1}\r\n\r\n\n   \t \n{"b":"x"}\r\n'
    outcomes, progress = read_all(data)
    assert [o.kind for o in outcomes] == ["record", "blank", "blank", "blank", "record"]
    assert outcomes[0].records == ({"a": 1},) and outcomes[4].records == ({"b": "x"},)
    assert all(o.reason is None and o.raw is None for o in outcomes)
    check_accounting(data, outcomes, progress)


def test_zero_byte_file() -> None:
    outcomes, progress = read_all(b"")
    assert outcomes == [] and progress.withheld == 0 and progress.offset == 0
    assert progress.last_line_sha256 is None


def test_start_offset_at_or_past_end_reads_nothing() -> None:
    data = b'{"a":1}\n'
    for start in (len(data), len(data) + 10):
        outcomes, progress = read_all(data, start, 2)
        assert outcomes == [] and progress.offset == start and progress.next_line == 2


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


# --- digests, resuming, sources -------------------------------------------------------------


def test_last_line_digest_and_range_check() -> None:
    data = b'{"a":1}\n{"b":2}\r\n{"c"'
    outcomes, progress = read_all(data)
    last = outcomes[-1]
    expected = hashlib.sha256(data[last.offset : last.offset + last.length]).hexdigest()
    assert progress.last_line_sha256 == expected and progress.last_line_length == last.length
    fh = io.BytesIO(data)
    start = progress.offset - progress.last_line_length
    assert range_sha256(fh, start, progress.last_line_length) == expected
    assert range_sha256(fh, len(data) - 2, 10) is None


def test_last_line_digest_of_an_oversized_line() -> None:
    line = b"q" * 3000
    data = line + b"\n"
    _, progress = read_all(data, max_line_bytes=1000, chunk_size=64)
    assert progress.last_line_sha256 == hashlib.sha256(data).hexdigest()


def test_plain_and_zstd_sources_read_the_same(tmp_path: Path) -> None:
    data = b"".join(orjson.dumps({"n": i}) + b"\n" for i in range(2000)) + b'{"torn":'
    plain = tmp_path / "rollout.jsonl"
    plain.write_bytes(data)
    packed = tmp_path / "rollout.jsonl.zst"
    half = len(data) // 2
    compressor = zstandard.ZstdCompressor()
    # two frames, as a concatenated or re-compressed file may have
    packed.write_bytes(compressor.compress(data[:half]) + compressor.compress(data[half:]))
    results = []
    for path in (plain, packed):
        progress = Progress()
        with open_source(path) as fh:
            results.append((list(iter_lines(fh, 0, 1, progress=progress)), progress.withheld))
    assert results[0] == results[1]
    assert len(results[0][0]) == 2000 and results[0][1] == len(b'{"torn":')

    # resuming a .zst works in decompressed offsets (by decompressing and discarding)
    offset = results[0][0][1500].offset
    with open_source(packed) as fh:
        tail = list(iter_lines(fh, offset, 1501))
    assert tail == results[0][0][1500:]


def test_corrupt_zstd_stream_ends_the_input_without_raising(tmp_path: Path) -> None:
    good = zstandard.ZstdCompressor().compress(b'{"a":1}\n')
    path = tmp_path / "broken.jsonl.zst"
    path.write_bytes(good + b"\x28\xb5\x2f\xfd" + b"garbage" * 100)
    progress = Progress()
    with open_source(path) as fh:
        outcomes = list(iter_lines(fh, 0, 1, progress=progress))
    assert [o.records for o in outcomes] == [({"a": 1},)]
    assert progress.error is not None and progress.error.startswith("zstd")


class _Unseekable(io.RawIOBase):
    def __init__(self, data: bytes) -> None:
        self._data = io.BytesIO(data)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        chunk = self._data.read(len(buffer))
        buffer[: len(chunk)] = chunk
        return len(chunk)


def test_unseekable_stream_is_read_forward_to_the_start_offset() -> None:
    data = b'{"a":1}\n{"b":2}\n'
    fh = io.BufferedReader(_Unseekable(data))
    assert [o.records for o in iter_lines(fh, 8, 2)] == [({"b": 2},)]


def test_every_fixture_line_is_a_clean_record() -> None:
    files = sorted(FIXTURES.rglob("*.jsonl"))
    if not files:
        pytest.skip("shared fixtures not present")
    for path in files:
        data = path.read_bytes()
        with open_source(path) as fh:
            progress = Progress()
            outcomes = list(iter_lines(fh, 0, 1, progress=progress))
        check_accounting(data, outcomes, progress)
        for out, line in zip(outcomes, data.split(b"\n"), strict=False):
            if not line.strip():
                assert out.kind == "blank", (path, out.line)
                continue
            value = json.loads(line)
            if isinstance(value, dict):
                assert (out.kind, out.records, out.reason) == ("record", (value,), None)
            else:  # e.g. claude-code/edge_cases.jsonl has a bare string, number, array
                assert (out.kind, out.reason) == ("quarantined", "not a JSON object")


def test_memory_stays_flat_on_a_500_mb_input() -> None:
    """500 MB streamed (including one 100 MB line over the limit) stays far below 300 MB RSS."""
    script = textwrap.dedent(
        """
        import io, sys
        import orjson
        from viva_store.importing.harness.lines import iter_lines, Progress

        line = orjson.dumps({"type": "assistant", "message": {"content": "w" * 2000}}) + b"\\n"
        total = 500 << 20

        def pieces():
            sent = 0
            while sent < total:
                if sent >= total // 2 and sent < total // 2 + len(line) * 64:
                    huge = [b'{"t":"', *[b"h" * (1 << 20)] * 100, b'"}\\n']
                    yield from huge
                    sent += sum(map(len, huge))
                yield line * 64
                sent += len(line) * 64

        class Source(io.RawIOBase):
            def __init__(self):
                self.pieces = pieces()
                self.view = memoryview(b"")
            def readable(self):
                return True
            def readinto(self, buf):
                if not self.view:
                    piece = next(self.pieces, b"")
                    if not piece:
                        return 0
                    self.view = memoryview(piece)
                n = min(len(buf), len(self.view))
                buf[:n] = self.view[:n]
                self.view = self.view[n:]
                return n

        progress = Progress()
        kinds = {}
        for out in iter_lines(io.BufferedReader(Source(), 1 << 20), 0, 1, progress=progress):
            kinds[out.kind] = kinds.get(out.kind, 0) + 1
        assert progress.offset >= total and kinds["quarantined"] == 1, (kinds, progress)
        # VmHWM is this process's own peak; ru_maxrss would also count the parent's
        # pages inherited at fork, which grow with the size of the test session.
        status = open("/proc/self/status").read()
        print(int(status.split("VmHWM:")[1].split()[0]) // 1024)
        """
    )
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=root, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    peak_mb = int(done.stdout.strip())
    assert peak_mb < 300, peak_mb


# --- properties ---------------------------------------------------------------------------

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12)
)
_values = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)
_objects = st.dictionaries(st.text(max_size=6), _values, max_size=5)
_junk = st.binary(max_size=40).map(lambda b: b.replace(b"\n", b""))


@st.composite
def _line(draw: st.DrawFn) -> tuple[bytes, str, tuple[Any, ...] | None]:
    """A line body, its kind, and the records expected from it (None: any outcome)."""
    choice = draw(
        st.sampled_from(
            [
                "valid",
                "valid",
                "valid",
                "blank",
                "glued",
                "bom",
                "nan",
                "nul",
                "random",
                "truncated",
                "surrogate",
            ]
        )
    )
    obj = draw(_objects)
    body = orjson.dumps(obj)
    if choice == "valid":
        return body, "record", (obj,)
    if choice == "blank":
        return draw(st.sampled_from([b"", b" ", b"\t", b"\r", b" \t \r"])), "blank", ()
    if choice == "glued":
        more = draw(st.lists(_objects, min_size=1, max_size=3))
        return body + b"".join(orjson.dumps(o) for o in more), "record", (obj, *more)
    if choice == "bom":
        return BOM + body, "record", (obj,)
    if choice == "nan":
        return b'{"n":NaN' + (b"," + body[1:] if obj else b"}"), "record", ({"n": None, **obj},)
    if choice == "nul":
        return b"\x00" * draw(st.integers(1, 4)) + body, "record", (obj,)
    if choice == "surrogate":
        return b'{"s":"\\ud800x"}', "record", ({"s": "\ufffdx"},)
    if choice == "truncated":
        return body[: draw(st.integers(0, len(body) - 1))], "quarantined-or-blank", None
    return draw(_junk), "any", None


_files = st.tuples(st.lists(_line(), max_size=12), _junk)


def _build(lines: list[tuple[bytes, str, Any]], tail: bytes) -> bytes:
    return b"".join(body + b"\n" for body, _, _ in lines) + tail


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_files, st.integers(1, 64))
def test_every_complete_line_has_exactly_one_outcome(
    spec: tuple[list[tuple[bytes, str, Any]], bytes], chunk_size: int
) -> None:
    lines, tail = spec
    data = _build(lines, tail)
    outcomes, progress = read_all(data, chunk_size=chunk_size)
    assert len(outcomes) == len(lines)
    check_accounting(data, outcomes, progress)
    assert progress.withheld == len(tail)
    for number, (out, (body, kind, expected)) in enumerate(zip(outcomes, lines, strict=True), 1):
        assert out.line == number and out.length == len(body) + 1
        orjson.dumps(out.records)  # always storable: valid UTF-8, no NaN
        if out.kind == "quarantined":
            assert out.raw == body + b"\n" and out.records == () and out.reason
        else:
            assert out.raw is None
        if kind == "record":
            assert out.kind == "record" and out.records == expected
        elif kind == "blank":
            assert out.kind == "blank"
        elif kind == "quarantined-or-blank":
            assert out.kind in ("quarantined", "blank")
        if out.kind == "record":
            assert len(out.records) >= 1


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_files, st.data())
def test_reading_in_two_runs_equals_reading_at_once(
    spec: tuple[list[tuple[bytes, str, Any]], bytes], data_strategy: st.DataObject
) -> None:
    lines, tail = spec
    data = _build(lines, tail)
    split = data_strategy.draw(st.integers(0, len(data)), label="split")
    chunk_size = data_strategy.draw(st.integers(1, 64), label="chunk_size")
    limit = data_strategy.draw(st.sampled_from([8, 64, 1 << 20]), label="max_line_bytes")
    whole, whole_progress = read_all(data, chunk_size=chunk_size, max_line_bytes=limit)

    first, progress = read_all(data[:split], chunk_size=chunk_size, max_line_bytes=limit)
    rest, final = read_all(
        data, progress.offset, progress.next_line, chunk_size=chunk_size, max_line_bytes=limit
    )
    assert first + rest == whole
    assert (final.offset, final.next_line, final.withheld) == (
        whole_progress.offset,
        whole_progress.next_line,
        whole_progress.withheld,
    )
    if rest:
        assert final.last_line_sha256 == whole_progress.last_line_sha256
