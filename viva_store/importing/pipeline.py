"""Session recovery: every harness file, incremental, redacted before disk.

:func:`run_import` is a generator of progress events (the CLI draws a Rich
bar from them, the TUI a ``ProgressBar``); its return value is the run's
:class:`ImportSummary`. Per source file Viva keeps identity (inode), size,
mtime, the byte offset reached and a digest of the last line read:

* unchanged on ``stat`` → skipped without opening it;
* grown, and the last line read is still where it was → resumed at the offset;
* shrunk, replaced, or compressed (``.zst``) → read again from the start
  (inserts are idempotent, so nothing is stored twice).

Every complete line ends up stored (as messages, usage or metadata) or
quarantined with its redacted bytes and reason; blank lines are counted and
an unterminated tail waits for the next run: input bytes = stored +
quarantined + blank + withheld.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from collections.abc import Generator, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from multiprocessing import get_context
from typing import Any

from sqlalchemy import Connection, func, select

from viva_store.access import require_owner
from viva_store.db.schema import SESSION
from viva_store.importing.batch import Pending, Tally, file_row, flush, known_files, record_run
from viva_store.importing.harness import registry
from viva_store.importing.harness.lines import range_sha256
from viva_store.importing.harness.model import Problem, SourceFile
from viva_store.importing.prepare import Batch
from viva_store.importing.read import (
    Counts,
    FileRead,
    Fingerprint,
    Resume,
    Sink,
    read_file,
    read_lines,
)
from viva_store.skills.uses import after_attribution
from viva_store.store import Context
from viva_store.triage.attribution import match_executions

BATCH_BYTES = 8 << 20
LINE_KINDS = ("jsonl", "jsonl.zst")
# Files up to this size are read in worker processes when a run has enough of them
# (other cores decode and redact while this process writes); larger ones stream here.
POOL_FILE_BYTES = 8 << 20
POOL_MIN_BYTES = 32 << 20


@dataclass(frozen=True, slots=True)
class ImportStarted:
    """Discovery finished: this many files and bytes to look at."""

    files: int
    bytes: int


@dataclass(frozen=True, slots=True)
class FileImported:
    """One source file read (it was new or had changed).

    ``messages_so_far`` counts what the run has stored until now; a file's own
    messages may still be waiting in the batch that the next write commits.
    """

    harness: str
    path: str
    bytes: int
    messages_so_far: int


@dataclass(frozen=True, slots=True)
class FilesUnchanged:
    """The files unchanged since the last run, all at once (they are skipped on
    their stat alone; one event rather than one per file keeps a re-import close
    to a bare directory walk)."""

    files: int
    bytes: int


@dataclass(slots=True)
class ImportSummary(Tally):
    """What a run did; the keys of ``viva import --json``."""

    run_id: str = ""
    files_scanned: int = 0
    files_unchanged: int = 0
    sessions_new: int = 0
    sessions_updated: int = 0
    sessions_unchanged: int = 0
    lines_read: int = 0
    lines_skipped: int = 0
    lines_blank: int = 0
    lines_quarantined: int = 0
    bytes_read: int = 0
    bytes_withheld: int = 0
    problems: list[Problem] = field(default_factory=list)

    def count(self, counts: Counts) -> None:
        """Add one file's line accounting."""
        self.lines_read += counts.lines_read
        self.bytes_read += counts.bytes_read
        self.lines_blank += counts.lines_blank
        self.lines_quarantined += counts.lines_quarantined
        self.bytes_withheld += counts.bytes_withheld
        self.problems.extend(counts.problems)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            name: getattr(self, name)
            for name in self.__dataclass_fields__
            if name not in ("problems", "new_session_ids", "updated_session_ids")
        }
        out["problems"] = [
            {"path": p.path, "line": p.line, "reason": p.reason} for p in self.problems
        ]
        return out


ImportEvent = ImportStarted | FilesUnchanged | FileImported


def run_import(
    ctx: Context,
    harnesses: list[str] | None = None,
    overrides: dict[str, str] | None = None,
    *,
    workers: int | None = None,
    pool_min_bytes: int = POOL_MIN_BYTES,
) -> Generator[ImportEvent, None, ImportSummary]:
    """Recover every session the chosen harnesses left on disk (owner only).

    ``workers`` (default: :func:`default_workers`) read small files in parallel
    when the changed files add up to ``pool_min_bytes``; 1 reads everything here.
    """
    require_owner(ctx.actor, "import sessions")
    chosen = [registry.check(h) for h in harnesses] if harnesses else registry.names()
    started = ctx.store.now()
    summary = ImportSummary(run_id="r" + secrets.token_hex(6))
    config_roots = ctx.store.config.section("roots")
    sources: list[SourceFile] = []
    for harness in chosen:
        for root in registry.roots(harness, overrides, config_roots):
            before = len(sources)
            try:
                sources.extend(registry.discover(root))
            except OSError as exc:
                summary.problems.append(
                    Problem(str(root.path), None, f"cannot list: {exc.strerror}")
                )
                continue
            if len(sources) == before and root.origin != "default" and root.path.exists():
                # A folder the owner named on purpose that holds nothing readable is
                # most likely the wrong level of the harness's tree: say so.
                where = registry.default_layout(harness)
                summary.problems.append(
                    Problem(
                        str(root.path),
                        None,
                        f"no {harness} sessions found here ({harness} keeps them in {where})",
                    )
                )
    found = [(s, st) for s in sources if (st := _stat(s, summary)) is not None]
    yield ImportStarted(len(sources), sum(st.st_size for _, st in found))
    known = known_files(ctx, chosen)
    changed: list[tuple[SourceFile, Fingerprint, Any]] = []
    unchanged = unchanged_bytes = 0
    for source, st in found:
        seen = known.get((source.harness, source.location))
        if seen is not None and seen[1:] == (st.st_size, st.st_mtime_ns, st.st_ino):
            unchanged += 1
            unchanged_bytes += st.st_size
            continue
        changed.append((source, st, file_row(ctx, seen[0]) if seen is not None else None))
    summary.files_scanned, summary.files_unchanged = len(found), unchanged
    if unchanged:
        yield FilesUnchanged(unchanged, unchanged_bytes)
    pending = Pending(ctx.store.now())
    small = [c for c in changed if c[0].kind in LINE_KINDS and c[1].st_size <= POOL_FILE_BYTES]
    count = workers if workers is not None else default_workers()
    if count > 1 and sum(c[1].st_size for c in small) >= pool_min_bytes:
        yield from _read_in_pool(ctx, summary, pending, small, count)
        done = {id(c) for c in small}
        changed = [c for c in changed if id(c) not in done]
    for source, st, row in changed:
        try:
            if source.kind in LINE_KINDS:
                _read_here(ctx, summary, pending, source, st, row)
            else:
                flush(ctx, summary, summary.run_id, pending)
                _import_whole(ctx, summary, source, st, row)
        except OSError as exc:
            summary.problems.append(
                Problem(str(source.path), None, f"cannot read: {exc.strerror or exc}")
            )
        yield FileImported(source.harness, str(source.path), st.st_size, summary.messages_added)
    flush(ctx, summary, summary.run_id, pending)
    summary.sessions_updated = len(summary.updated_session_ids - summary.new_session_ids)
    summary.sessions_new = len(summary.new_session_ids)
    total = ctx.store.read(
        lambda c: c.execute(
            select(func.count()).select_from(SESSION).where(SESSION.c.harness.in_(chosen))
        ).scalar()
    )
    summary.sessions_unchanged = int(total or 0) - summary.sessions_new - summary.sessions_updated
    summary.lines_skipped = summary.lines_blank + summary.lines_quarantined
    _attribute(ctx, summary)
    record_run(ctx, summary.run_id, summary.to_json(), chosen, started)
    return summary


def default_workers() -> int:
    """Reader processes for a large import: one per core beyond the one this
    process needs to write, at most 4; 1 (read here) on a machine of two cores
    or fewer, where readers and the writer would only take turns (measured:
    two readers there halve the throughput of one process)."""
    return max(1, min((os.cpu_count() or 1) - 1, 4))


def _switch(ctx: Context, summary: ImportSummary, pending: Pending, harness: str) -> None:
    """A batch holds one harness's sessions: store it before another harness's start."""
    if pending.sink.batch.harness != harness:
        flush(ctx, summary, summary.run_id, pending)
        pending.sink.batch = Batch(harness)


def _read_here(
    ctx: Context,
    summary: ImportSummary,
    pending: Pending,
    source: SourceFile,
    st: Fingerprint,
    row: Any,
) -> None:
    """Stream one file into the pending batch, storing it whenever it fills up."""
    _switch(ctx, summary, pending, source.harness)
    counts = Counts()

    def full() -> None:
        flush(ctx, summary, summary.run_id, pending)

    state = read_lines(
        source,
        st,
        _resume_point(source, st, row),
        pending.now,
        pending.sink,
        counts,
        full,
        BATCH_BYTES,
    )
    summary.count(counts)
    pending.files.append(state)
    if pending.size >= BATCH_BYTES:
        full()


def _read_in_pool(
    ctx: Context,
    summary: ImportSummary,
    pending: Pending,
    jobs: list[tuple[SourceFile, Fingerprint, Any]],
    workers: int,
) -> Iterator[ImportEvent]:
    """Read small files in worker processes; store their batches here as they arrive.

    At most ``2 * workers`` files are in flight, so memory stays bounded however
    many files there are. The workers never touch the store.
    """
    context = get_context("spawn")
    queue = list(reversed(jobs))
    running: dict[Future[FileRead], tuple[SourceFile, Fingerprint]] = {}
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:

        def submit() -> None:
            while queue and len(running) < 2 * workers:
                source, st, row = queue.pop()
                resume = _resume_point(source, st, row)
                running[pool.submit(read_file, source, st, resume, pending.now)] = (source, st)

        submit()
        while running:
            future = next(iter(running))
            source, st = running.pop(future)
            try:
                read = future.result()
            except OSError as exc:
                summary.problems.append(
                    Problem(str(source.path), None, f"cannot read: {exc.strerror or exc}")
                )
            else:
                _switch(ctx, summary, pending, source.harness)
                pending.sink.batch.absorb(read.sink.batch)
                pending.sink.quarantined.extend(read.sink.quarantined)
                pending.files.append(read.file_state)
                summary.count(read.counts)
                if pending.size >= BATCH_BYTES:
                    flush(ctx, summary, summary.run_id, pending)
            submit()
            yield FileImported(source.harness, str(source.path), st.st_size, summary.messages_added)


def _attribute(ctx: Context, summary: ImportSummary) -> None:
    """New sessions: attribute by execution record (I6), or follow a sub-agent's parent."""
    if not summary.new_session_ids:
        return
    seconds = float(ctx.store.config.section("triage").get("match_window_seconds", 120))
    window = timedelta(seconds=seconds)
    now = ctx.store.now()

    def work(conn: Connection) -> None:
        changed = match_executions(conn, summary.new_session_ids, window, now)
        # Skill weights follow the members' new session axes, and sessions Viva launched
        # that have ended credit the skill uses their transcripts show.
        after_attribution(conn, ctx, changed, summary.new_session_ids)

    ctx.store.write(work)


def _stat(source: SourceFile, summary: ImportSummary) -> Fingerprint | None:
    """The file's fingerprint; a SQLite source includes its ``-wal`` file, where new
    rows sit until a checkpoint while the database file keeps its size and mtime."""
    try:
        st = source.stat or os.stat(source.location)
    except OSError as exc:
        summary.problems.append(Problem(str(source.path), None, f"cannot stat: {exc.strerror}"))
        return None
    size, mtime_ns = st.st_size, st.st_mtime_ns
    if source.kind == "sqlite":
        wal = source.path.with_name(source.path.name + "-wal")
        with contextlib.suppress(OSError):
            wst = wal.stat()
            size, mtime_ns = size + wst.st_size, max(mtime_ns, wst.st_mtime_ns)
    return Fingerprint(size, mtime_ns, st.st_ino, mtime_ns / 1e9)


def _resume_point(source: SourceFile, st: Fingerprint, row: Any) -> Resume:
    """Where to continue a file that was read before; the start when it was replaced."""
    if (
        row is None
        or source.kind != "jsonl"
        or row.inode != st.st_ino
        or st.st_size < row.byte_offset
    ):
        return Resume()
    if row.byte_offset and row.last_line_length:
        with open(source.path, "rb") as fh:
            start = row.byte_offset - row.last_line_length
            if range_sha256(fh, start, row.last_line_length) != row.last_line_digest:
                return Resume()
    return Resume(
        row.byte_offset,
        row.lines + 1,
        dict(row.reader_state or {}),
        row.last_line_length,
        row.last_line_digest,
    )


def _import_whole(
    ctx: Context, summary: ImportSummary, source: SourceFile, st: Fingerprint, row: Any
) -> None:
    reader = registry.module(source.harness)
    problems: list[Problem] = []
    whole = Pending(ctx.store.now(), Sink(Batch(source.harness)), replace_usage=True)
    for chunk in reader.read_source(source, problems):
        whole.sink.batch.add(chunk, str(source.path))
    summary.problems.extend(problems)
    summary.bytes_read += st.st_size
    file_state = {
        "harness": source.harness,
        "path": str(source.path),
        "kind": source.kind,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "inode": st.st_ino,
        "byte_offset": st.st_size,
        "lines": 0,
        "last_line_length": 0,
        "last_line_digest": "",
        "reader_state": {},
        "file_mtime": datetime.fromtimestamp(st.st_mtime, UTC),
        "imported_at": ctx.store.now(),
    }
    whole.files.append(file_state)
    flush(ctx, summary, summary.run_id, whole)
