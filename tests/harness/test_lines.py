"""The JSON-lines layer: every complete line accounted for, digests, resumes, sources."""

from __future__ import annotations

import hashlib
import io
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.conftest import FIXTURES
from tests.harness.line_support import check_accounting, read_all
from viva_store.importing.harness.lines import (
    Progress,
    iter_lines,
    open_source,
    range_sha256,
)

BOM = b"\xef\xbb\xbf"


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
    assert len(files) >= 10
    for path in files:
        data = path.read_bytes()
        with open_source(path) as fh:
            progress = Progress()
            outcomes = list(iter_lines(fh, 0, 1, progress=progress))
        check_accounting(data, outcomes, progress)
        assert progress.withheld == 0
        for out, line in zip(outcomes, data.split(b"\n"), strict=False):
            assert (out.kind, out.records, out.reason) == ("record", (json.loads(line),), None)


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
