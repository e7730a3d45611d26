"""Reading one source file: what it holds, as values that flow one way — no database.

This is the CPU-heavy half of an import (decode, normalize; redaction follows
in :mod:`~viva_store.importing.prepare`), kept free of the store so it can run
in worker processes. :func:`read_lines` is a generator: it yields the parsed
chunks and the quarantined lines of a JSON-lines file as it goes, so a file of
any size streams, and returns the file's new state with its line accounting.
:func:`read_whole` does the same for a source read whole.
"""

from __future__ import annotations

from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Generic, TypeVar

from viva_store.importing.harness import registry
from viva_store.importing.harness.lines import LineOutcome, Progress, iter_lines, open_source
from viva_store.importing.harness.model import JsonObj, ParsedChunk, Problem, Record, SourceFile
from viva_store.importing.state import FileState, Fingerprint, LineCounts, Resume
from viva_store.redact import redact_obj


@dataclass(frozen=True, slots=True)
class QuarantinedLine:
    """A line that could not be used; its raw bytes are redacted before they are stored."""

    harness: str
    path: str
    line: int | None
    offset: int | None
    length: int
    reason: str
    raw: bytes | None


@dataclass(frozen=True, slots=True)
class FileRead:
    """What a finished read returns: the file's new state and its accounting."""

    state: FileState
    counts: LineCounts


Read = Generator[ParsedChunk | QuarantinedLine, None, FileRead]
"""A read in progress: chunks and quarantined lines, then the :class:`FileRead`."""

Y = TypeVar("Y")


class Reading(Generic[Y]):
    """A read to iterate with ``for``; :meth:`result` is its :class:`FileRead` afterwards."""

    def __init__(self, read: Generator[Y, None, FileRead]) -> None:
        self._read = read
        self._result: FileRead | None = None

    def __iter__(self) -> Iterator[Y]:
        self._result = yield from self._read

    def result(self) -> FileRead:
        """The finished read's result."""
        if self._result is None:
            raise RuntimeError("the read was not iterated to its end")
        return self._result


def read_lines(
    source: SourceFile, st: Fingerprint, resume: Resume, now: datetime, settled: bool = False
) -> Read:
    """Read the JSON-lines ``source`` from ``resume``: its chunks and quarantined lines,
    in file order, as the reader produces them; returns the file's new state.

    ``settled``: the file has not changed for the settle time, so nothing is still
    writing it and a complete JSON object after its last newline is its last line.
    """
    reader = registry.reader(source.harness)
    path = str(source.path)
    progress = Progress()
    tally = _Tally()
    if st.st_size == 0:
        tally.problems.append(Problem(path, None, "empty file (0 bytes): nothing to read"))
    with open_source(source.path) as fh:
        outcomes = iter_lines(
            fh, resume.offset, resume.next_line, progress=progress, take_tail=settled
        )
        parsing = reader.parse_records(source, tally.records(outcomes, path), resume.state)
        while True:
            try:
                chunk = next(parsing)
            except StopIteration as done:
                saved: JsonObj = done.value
                break
            yield from tally.take_quarantined(source.harness, path)
            yield chunk
        yield from tally.take_quarantined(source.harness, path)
    if progress.error:
        tally.problems.append(Problem(path, progress.next_line, progress.error))
    tail_state = ""
    if progress.withheld:
        tail_state = "kept" if settled else "waiting"
        if settled:
            reason = (
                f"last {progress.withheld} bytes have no newline and are not complete JSON:"
                " kept back until the file changes"
            )
            tally.problems.append(Problem(path, progress.next_line, reason))
    read_any = progress.lines > 0
    state = FileState(
        harness=source.harness,
        path=path,
        kind=source.kind,
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        inode=st.st_ino,
        byte_offset=progress.offset,
        lines=progress.next_line - 1,
        last_line_length=progress.last_line_length if read_any else resume.last_line_length,
        last_line_digest=(progress.last_line_sha256 or "") if read_any else resume.last_line_digest,
        reader_state=redact_obj(saved)[0],
        file_mtime=datetime.fromtimestamp(st.st_mtime, UTC),
        imported_at=now,
        tail_state=tail_state,
    )
    return FileRead(state, tally.counts(progress.withheld))


def read_whole(
    source: SourceFile, st: Fingerprint, now: datetime
) -> Generator[ParsedChunk, None, FileRead]:
    """Read a source that is not JSON lines: its chunks; returns its state and problems.

    Such a source is read again whole whenever it changes, so its state records
    only its fingerprint.
    """
    problems: list[Problem] = []
    for item in registry.reader(source.harness).read_whole(source):
        if isinstance(item, Problem):
            problems.append(item)
        else:
            yield item
    state = FileState(
        harness=source.harness,
        path=str(source.path),
        kind=source.kind,
        size=st.st_size,
        mtime_ns=st.st_mtime_ns,
        inode=st.st_ino,
        byte_offset=st.st_size,
        lines=0,
        last_line_length=0,
        last_line_digest="",
        reader_state={},
        file_mtime=datetime.fromtimestamp(st.st_mtime, UTC),
        imported_at=now,
    )
    return FileRead(state, LineCounts(bytes_read=st.st_size, problems=tuple(problems)))


@dataclass(slots=True)
class _Tally:
    """The accounting of one read while it runs (local to :func:`read_lines`)."""

    lines_read: int = 0
    bytes_read: int = 0
    lines_blank: int = 0
    problems: list[Problem] = field(default_factory=list)
    quarantined: list[LineOutcome] = field(default_factory=list)
    lines_quarantined: int = 0

    def records(self, outcomes: Iterator[LineOutcome], path: str) -> Iterator[Record]:
        """The records of the lines, counting every line and setting aside the unusable."""
        for out in outcomes:
            self.lines_read += 1
            self.bytes_read += out.length
            if out.reason is not None:
                self.problems.append(Problem(path, out.line, out.reason))
            if out.kind == "blank":
                self.lines_blank += 1
            elif out.kind == "quarantined":
                self.lines_quarantined += 1
                self.quarantined.append(out)
            elif out.positions:
                for obj, pos in zip(out.records, out.positions, strict=True):
                    yield Record(out.line, out.offset + pos, obj)
            else:
                yield Record(out.line, out.offset, out.records[0])

    def take_quarantined(self, harness: str, path: str) -> Iterator[QuarantinedLine]:
        """The lines set aside since the last call."""
        lines, self.quarantined = self.quarantined, []
        for out in lines:
            reason = out.reason or "unusable line"
            yield QuarantinedLine(harness, path, out.line, out.offset, out.length, reason, out.raw)

    def counts(self, withheld: int) -> LineCounts:
        return LineCounts(
            self.lines_read,
            self.bytes_read,
            self.lines_blank,
            self.lines_quarantined,
            withheld,
            tuple(self.problems),
        )
