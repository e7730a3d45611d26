"""Reading one JSON-lines source file into prepared rows — no database.

This is the CPU-heavy half of an import (decode, normalize, redact), kept free
of I/O on the store so that it can run in worker processes: :func:`read_file`
takes plain values and returns plain values (picklable), while
:func:`read_lines` streams a file of any size into a caller's pending batch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple

from viva_store.importing.harness import registry
from viva_store.importing.harness.lines import Progress, iter_lines, open_source
from viva_store.importing.harness.model import Problem, Record, SourceFile
from viva_store.importing.prepare import Batch, quarantine_row

QuarantineRow = tuple[dict[str, Any], list[dict[str, Any]]]


class Fingerprint(NamedTuple):
    """What decides whether a source changed (``os.stat_result``'s names)."""

    st_size: int
    st_mtime_ns: int
    st_ino: int
    st_mtime: float


@dataclass(frozen=True, slots=True)
class Resume:
    """Where to continue a file: byte offset, next line number, the reader's state,
    and the last line read (to store again if nothing new is read)."""

    offset: int = 0
    next_line: int = 1
    state: dict[str, Any] = field(default_factory=dict)
    last_line_length: int = 0
    last_line_digest: str = ""


@dataclass(slots=True)
class Counts:
    """Line accounting of a read: input bytes = stored + quarantined + blank + withheld."""

    lines_read: int = 0
    bytes_read: int = 0
    lines_blank: int = 0
    lines_quarantined: int = 0
    bytes_withheld: int = 0
    problems: list[Problem] = field(default_factory=list)


@dataclass(slots=True)
class Sink:
    """Where a read puts what it prepares (a run's pending batch, or a worker's own)."""

    batch: Batch
    quarantined: list[QuarantineRow] = field(default_factory=list)


def read_lines(
    source: SourceFile,
    st: Fingerprint,
    resume: Resume,
    now: datetime,
    sink: Sink,
    counts: Counts,
    full: Callable[[], None] | None = None,
    limit: int = 8 << 20,
) -> dict[str, Any]:
    """Read ``source`` from ``resume`` into ``sink``; returns the file's new state.

    ``full`` is called whenever the sink's batch passes ``limit`` bytes (the caller
    stores it and replaces ``sink.batch``), so a file of any size streams.
    """
    reader = registry.module(source.harness)
    state = dict(resume.state)
    path = str(source.path)
    progress = Progress()
    with open_source(source.path) as fh:
        outcomes = iter_lines(fh, resume.offset, resume.next_line, progress=progress)

        def records() -> Iterator[Record]:
            for out in outcomes:
                counts.lines_read += 1
                counts.bytes_read += out.length
                if out.reason is not None:
                    counts.problems.append(Problem(path, out.line, out.reason))
                if out.kind == "blank":
                    counts.lines_blank += 1
                elif out.kind == "quarantined":
                    counts.lines_quarantined += 1
                    reason = out.reason or "unusable line"
                    sink.quarantined.append(
                        quarantine_row(
                            source.harness,
                            path,
                            out.line,
                            out.offset,
                            out.length,
                            reason,
                            out.raw,
                            now,
                        )
                    )
                elif out.positions:
                    for obj, pos in zip(out.records, out.positions, strict=True):
                        yield Record(out.line, out.offset + pos, obj)
                else:
                    yield Record(out.line, out.offset, out.records[0])

        for chunk in reader.parse_records(source, records(), state):
            sink.batch.add(chunk, path)
            if full is not None and sink.batch.size >= limit:
                full()
    if progress.error:
        counts.problems.append(Problem(path, progress.next_line, progress.error))
    counts.bytes_withheld += progress.withheld
    read_any = progress.lines > 0
    return {
        "harness": source.harness,
        "path": path,
        "kind": source.kind,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "inode": st.st_ino,
        "byte_offset": progress.offset,
        "lines": progress.next_line - 1,
        "last_line_length": progress.last_line_length if read_any else resume.last_line_length,
        "last_line_digest": (progress.last_line_sha256 or "")
        if read_any
        else resume.last_line_digest,
        "reader_state": state,
        "file_mtime": datetime.fromtimestamp(st.st_mtime, UTC),
        "imported_at": now,
    }


@dataclass(slots=True)
class FileRead:
    """Everything a worker prepared from one file."""

    sink: Sink
    file_state: dict[str, Any]
    counts: Counts


def read_file(source: SourceFile, st: Fingerprint, resume: Resume, now: datetime) -> FileRead:
    """Read a whole (small) file into a batch of its own: the worker process's job."""
    sink = Sink(Batch(source.harness))
    counts = Counts()
    state = read_lines(source, st, resume, now, sink, counts)
    return FileRead(sink, state, counts)
