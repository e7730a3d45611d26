"""The line layer every JSON-lines harness reader sits on.

Pure functions over binary file handles; no database. :func:`iter_lines`
turns the bytes after a resume offset into exactly one :class:`LineOutcome`
per *newline-terminated* line and withholds an unterminated tail (a file
mid-write) for the next run. The accounting identity holds for any input::

    sum(o.length for o in outcomes) + progress.withheld == bytes after start_offset

Each line is first handed to ``orjson.loads``; only lines it rejects take the
slow path in :mod:`viva_store.importing.harness.lines_decode`, which documents the
repair/quarantine policy (BOM, invalid UTF-8, NUL, lone surrogates, NaN,
glued objects, deep nesting, truncation). Nothing here raises on content.

Resuming: store ``progress.offset``, ``progress.next_line`` and, to detect a
file that was replaced rather than appended to, ``progress.last_line_length``
and ``progress.last_line_sha256``; next time check them with
:func:`range_sha256` and call ``iter_lines(fh, offset, next_line)``.

``.zst`` files (Codex) are read through :func:`open_source`; their offsets
are offsets into the *decompressed* stream, and resuming at an offset means
decompressing and discarding everything before it. Compressed rollouts are
written whole, never appended to, so a caller should treat any change of a
``.zst`` file's size or mtime as a replacement and re-read it from offset 0.
"""

from __future__ import annotations

import hashlib
import io
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, cast

import orjson
import zstandard

from viva_store.importing.harness.lines_decode import (
    MAX_DEPTH,
    Decoded,
    Kind,
    decode_line,
    decode_tail,
    too_deep,
)
from viva_store.importing.harness.model import JsonObj, Problem, Record
from viva_store.importing.harness.zstd import ZstdStream

__all__ = [
    "CHUNK_SIZE",
    "MAX_DEPTH",
    "MAX_LINE_BYTES",
    "RAW_HEAD_BYTES",
    "LineOutcome",
    "Progress",
    "iter_lines",
    "open_source",
    "range_sha256",
    "to_records",
    "too_deep",
]

CHUNK_SIZE = 256 << 10
"""Bytes requested per read; 256 KiB measured faster than 1 MiB (stays in CPU cache)."""
MAX_LINE_BYTES = 64 << 20
"""Default limit above which a line is quarantined unparsed."""
RAW_HEAD_BYTES = 4096
"""How much of an oversized line is kept in :attr:`LineOutcome.raw`."""


@dataclass(frozen=True, slots=True)
class LineOutcome:
    """What became of one complete (newline-terminated) line.

    ``kind`` is ``record`` (``records`` holds one object, or several salvaged
    from objects glued on one line), ``blank`` (empty or whitespace only) or
    ``quarantined`` (no records; ``raw`` holds the line's original bytes,
    newline included, or the first :data:`RAW_HEAD_BYTES` of an oversized
    line — the caller redacts them before storing). ``reason`` says why a line
    was quarantined or what was repaired in a record line (``None`` for a
    clean line). ``positions`` gives, for a line with 2+ salvaged objects, the
    byte offset of each object within the line (empty otherwise).
    """

    line: int
    offset: int
    length: int
    kind: Kind
    records: tuple[JsonObj, ...]
    reason: str | None
    raw: bytes | None
    positions: tuple[int, ...] = ()


# Slot setters: the hot path builds clean record outcomes with these, because a
# frozen dataclass's __init__ (one object.__setattr__ per field) costs ~0.9 µs.
_SETTERS = tuple(
    getattr(LineOutcome, name).__set__
    for name in ("line", "offset", "length", "kind", "records", "reason", "raw", "positions")
)


@dataclass(slots=True)
class Progress:
    """Where :func:`iter_lines` got to; kept current after every yielded line.

    ``offset`` is the resume point (just past the last complete line, or the
    start offset when none was read) and ``next_line`` the number to pass as
    ``start_line`` from there. ``withheld`` counts the bytes of an
    unterminated tail after ``offset`` (set when the input is exhausted).
    ``error`` is set when a compressed stream turned out corrupt; the lines
    before the damage are yielded and the rest is treated as end of input.
    """

    offset: int = 0
    next_line: int = 1
    lines: int = 0
    withheld: int = 0
    last_line_length: int = 0
    error: str | None = None
    _last_line: bytes | str | None = field(default=None, repr=False)

    @property
    def last_line_sha256(self) -> str | None:
        """Hex sha256 of the last complete line read (newline included), if any."""
        last = self._last_line
        if last is None or isinstance(last, str):
            return last
        digest = hashlib.sha256(last)
        digest.update(b"\n")
        return digest.hexdigest()


def open_source(path: str | Path) -> BinaryIO:
    """Open a JSON-lines file for :func:`iter_lines`; ``*.zst`` is decompressed on the fly.

    The zstd stream (:class:`ZstdStream`) is read in constant memory, frame after
    frame, and only seeks forward — by decompressing and discarding.
    """
    path = Path(path)
    raw = open(path, "rb")  # noqa: SIM115 - returned to the caller, who closes it
    if path.suffix != ".zst":
        return raw
    return cast(BinaryIO, ZstdStream(raw))


def range_sha256(fh: BinaryIO, offset: int, length: int) -> str | None:
    """Hex sha256 of ``length`` bytes at ``offset``, or ``None`` if the file is shorter.

    Compare it with a stored :attr:`Progress.last_line_sha256` (at
    ``offset - last_line_length``) before resuming: a mismatch means the file
    was replaced and must be read from the start.
    """
    _seek(fh, offset)
    digest = hashlib.sha256()
    remaining = length
    while remaining > 0:
        chunk = fh.read(min(remaining, CHUNK_SIZE))
        if not chunk:
            return None
        digest.update(chunk)
        remaining -= len(chunk)
    return digest.hexdigest()


class _Oversized:
    """An over-limit line being skipped: first bytes, size and digest only."""

    __slots__ = ("digest", "head", "size")

    def __init__(self) -> None:
        self.head = b""
        self.size = 0
        self.digest = hashlib.sha256()

    def add(self, part: bytes) -> None:
        if len(self.head) < RAW_HEAD_BYTES:
            self.head += part[: RAW_HEAD_BYTES - len(self.head)]
        self.size += len(part)
        self.digest.update(part)

    def outcome(self, line: int, offset: int) -> LineOutcome:
        head = self.head if len(self.head) >= RAW_HEAD_BYTES else self.head + b"\n"
        return _too_long(line, offset, self.size + 1, head)


def _too_long(line: int, offset: int, length: int, head: bytes) -> LineOutcome:
    reason = f"line of {length} bytes exceeds limit"
    return LineOutcome(line, offset, length, "quarantined", (), reason, head)


def _slow(line: int, offset: int, body: bytes, not_object: bool = False) -> LineOutcome:
    """Outcome of a line orjson rejected (or decoded to a value that is not an object)."""
    length = len(body) + 1
    if not_object:
        decoded = Decoded("quarantined", reason="not a JSON object")
    else:
        decoded = decode_line(body)
    raw = body + b"\n" if decoded.kind == "quarantined" else None
    return LineOutcome(
        line, offset, length, decoded.kind, decoded.records, decoded.reason, raw, decoded.positions
    )


def _one_line(line: int, offset: int, body: bytes, limit: int) -> LineOutcome:
    """Outcome of one line body (without its newline), fast path first."""
    if len(body) + 1 > limit:
        return _too_long(line, offset, len(body) + 1, (body + b"\n")[:RAW_HEAD_BYTES])
    try:
        obj = orjson.loads(body)
    except orjson.JSONDecodeError:
        return _slow(line, offset, body)
    if type(obj) is dict:
        return LineOutcome(line, offset, len(body) + 1, "record", (obj,), None, None)
    return _slow(line, offset, body, True)


def iter_lines(
    fh: BinaryIO,
    start_offset: int = 0,
    start_line: int = 1,
    *,
    max_line_bytes: int = MAX_LINE_BYTES,
    progress: Progress | None = None,
    chunk_size: int = CHUNK_SIZE,
    take_tail: bool = False,
) -> Generator[LineOutcome, None, Progress]:
    """Yield one :class:`LineOutcome` per newline-terminated line after ``start_offset``.

    Reads ``fh`` from ``start_offset`` (seeking, or reading forward when it
    cannot seek) in ``chunk_size`` pieces, numbering lines from
    ``start_line``. Stops before an unterminated tail, whose size lands in
    ``progress.withheld`` — unless ``take_tail`` (the file has settled: nothing
    is still writing it) and the tail is one complete JSON object or blank:
    then it is the last line, its outcome saying so. Lines longer than ``max_line_bytes`` (newline
    included) are quarantined without being held in memory. ``progress`` (a
    fresh :class:`Progress` if not given) is updated before every yield and
    is also the generator's return value. Never raises on content; I/O errors
    of ``fh`` propagate, a corrupt zstd stream ends the input (``progress.error``).
    """
    prog = progress if progress is not None else Progress()
    prog.offset, prog.next_line, prog.lines, prog.withheld = start_offset, start_line, 0, 0
    prog.error = None
    try:
        _seek(fh, start_offset)
    except zstandard.ZstdError as exc:
        prog.error = f"zstd stream is corrupt: {exc}"
        return prog
    offset, lineno = start_offset, start_line
    limit = max_line_bytes
    loads, decode_error, new, dict_type = orjson.loads, orjson.JSONDecodeError, object.__new__, dict
    set_line, set_offset, set_length, set_kind, set_records, set_reason, set_raw, set_pos = _SETTERS
    pending: list[bytes] = []  # parts of the unterminated line so far
    pending_len = 0
    big: _Oversized | None = None
    while True:
        try:
            chunk = fh.read(chunk_size)
        except zstandard.ZstdError as exc:
            prog.error = f"zstd stream is corrupt: {exc}"
            break
        if not chunk:
            break
        start = 0
        if pending or big is not None:
            cut = chunk.find(b"\n")
            part = chunk if cut < 0 else chunk[:cut]
            if big is None:
                pending.append(part)
                pending_len += len(part)
                if pending_len >= limit:
                    big = _Oversized()
                    for piece in pending:
                        big.add(piece)
                    pending, pending_len = [], 0
            else:
                big.add(part)
            if cut < 0:
                continue
            if big is not None:
                out = big.outcome(lineno, offset)
                digest = big.digest.copy()
                digest.update(b"\n")
                prog._last_line = digest.hexdigest()
                big = None
            else:
                body = b"".join(pending)
                pending, pending_len = [], 0
                out = _one_line(lineno, offset, body, limit)
                prog._last_line = body
            offset += out.length
            lineno += 1
            prog.offset, prog.next_line, prog.last_line_length = offset, lineno, out.length
            prog.lines += 1
            yield out
            start = cut + 1
        bodies = (chunk[start:] if start else chunk).split(b"\n")
        tail = bodies.pop()
        for body in bodies:
            length = len(body) + 1
            if length > limit:
                out = _too_long(lineno, offset, length, (body + b"\n")[:RAW_HEAD_BYTES])
            else:
                try:
                    obj = loads(body)
                except decode_error:
                    out = _slow(lineno, offset, body)
                else:
                    if type(obj) is dict_type:
                        # Same as LineOutcome(lineno, offset, length, "record", (obj,), None,
                        # None) at a third of the cost of a frozen dataclass's __init__.
                        out = new(LineOutcome)
                        set_line(out, lineno)
                        set_offset(out, offset)
                        set_length(out, length)
                        set_kind(out, "record")
                        set_records(out, (obj,))
                        set_reason(out, None)
                        set_raw(out, None)
                        set_pos(out, ())
                    else:
                        out = _slow(lineno, offset, body, True)
            offset += length
            lineno += 1
            prog.offset = offset
            prog.next_line = lineno
            prog.last_line_length = length
            prog._last_line = body
            prog.lines += 1
            yield out
        if tail:
            if len(tail) >= limit:
                big = _Oversized()
                big.add(tail)
            else:
                pending, pending_len = [tail], len(tail)
    if take_tail and big is None and pending_len:
        body = b"".join(pending)
        last = decode_tail(body)
        if last is not None:
            out = LineOutcome(
                lineno,
                offset,
                len(body),
                last.kind,
                last.records,
                last.reason,
                None,
                last.positions,
            )
            prog.offset, prog.next_line = offset + out.length, lineno + 1
            prog.last_line_length, prog.lines = out.length, prog.lines + 1
            prog._last_line = hashlib.sha256(body).hexdigest()  # no newline to add
            pending_len = 0
            yield out
    prog.withheld = big.size if big is not None else pending_len
    return prog


def to_records(
    outcomes: Iterable[LineOutcome], path: str, problems: list[Problem]
) -> Iterator[Record]:
    """Adapt outcomes to the readers' :class:`Record` stream, noting problems.

    Every quarantined line and every repaired record line appends a
    :class:`Problem`. Objects salvaged from one glued line get distinct
    offsets (line offset + the object's position in the line), so keys
    derived from offsets stay unique.
    """
    for out in outcomes:
        if out.reason is not None:
            problems.append(Problem(path, out.line, out.reason))
        if not out.records:
            continue
        if out.positions:
            for obj, pos in zip(out.records, out.positions, strict=True):
                yield Record(out.line, out.offset + pos, obj)
        else:
            yield Record(out.line, out.offset, out.records[0])


def _seek(fh: BinaryIO, offset: int) -> None:
    """Position ``fh`` at ``offset``; a stream that cannot seek must be at its start."""
    try:
        fh.seek(offset)
        return
    except io.UnsupportedOperation:
        pass
    remaining = offset
    while remaining > 0:
        chunk = fh.read(min(remaining, CHUNK_SIZE))
        if not chunk:
            return
        remaining -= len(chunk)
