"""Session recovery: every harness file, incremental, redacted before disk.

:func:`run_import` is a generator of progress events (the CLI draws a Rich
bar from them, the TUI a ``ProgressBar``); its return value is the run's
:class:`ImportSummary`. The data flows one way: the sources that changed
(:mod:`~viva_store.importing.sources`) are read (:mod:`~viva_store.importing.read`,
in worker processes when it pays, :mod:`~viva_store.importing.pool`), what a
read yields goes into the pending batch, and the :class:`~viva_store.importing.batch.Writer`
stores each batch in one transaction.

Every complete line ends up stored (as messages, usage or metadata) or
quarantined with its redacted bytes and reason; blank lines are counted and
an unterminated tail waits for the next run: input bytes = stored +
quarantined + blank + withheld.
"""

from __future__ import annotations

import secrets
from collections.abc import Generator
from datetime import timedelta

from sqlalchemy import Connection, func, select

from viva_store.access import require_owner
from viva_store.db.schema import SESSION
from viva_store.importing.batch import Pending, Writer, record_run
from viva_store.importing.harness import registry
from viva_store.importing.harness.model import Problem
from viva_store.importing.harness.reader import LINE_KINDS
from viva_store.importing.pool import POOL_FILE_BYTES, POOL_MIN_BYTES, default_workers, read_in_pool
from viva_store.importing.prepare import Batch
from viva_store.importing.read import Reading, read_lines, read_whole
from viva_store.importing.sources import Job, find_sources, plan
from viva_store.importing.summary import (
    FileImported,
    FilesUnchanged,
    ImportEvent,
    ImportStarted,
    ImportSummary,
)
from viva_store.skills.uses import after_attribution
from viva_store.store import Context
from viva_store.triage.attribution import match_executions

__all__ = [
    "FileImported",
    "FilesUnchanged",
    "ImportEvent",
    "ImportStarted",
    "ImportSummary",
    "default_workers",
    "run_import",
]


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
    found = find_sources(ctx, chosen, overrides)
    summary.problems.extend(found.problems)
    yield ImportStarted(found.sources, found.bytes)
    todo = plan(ctx, chosen, found)
    summary.files_scanned, summary.files_unchanged = len(found.files), todo.unchanged
    if todo.unchanged:
        yield FilesUnchanged(todo.unchanged, todo.unchanged_bytes)
    writer = Writer(ctx, summary.run_id)
    jobs = todo.jobs
    small = [j for j in jobs if j.source.kind in LINE_KINDS and j.st.st_size <= POOL_FILE_BYTES]
    count = workers if workers is not None else default_workers()
    if count > 1 and sum(j.st.st_size for j in small) >= pool_min_bytes:
        for job, prepared in read_in_pool(small, count, writer.now):
            if isinstance(prepared, Problem):
                summary.problems.append(prepared)
            else:
                writer.begin(job.source.harness)
                writer.pending.absorb(prepared.pending)
                summary.count(prepared.counts)
                if writer.full:
                    writer.flush()
            yield _imported(job, writer)
        pooled = {id(j) for j in small}
        jobs = [j for j in jobs if id(j) not in pooled]
    for job in jobs:
        try:
            if job.source.kind in LINE_KINDS:
                _read_here(writer, summary, job)
            else:
                _read_whole(ctx, writer, summary, job)
        except OSError as exc:
            reason = f"cannot read: {exc.strerror or exc}"
            summary.problems.append(Problem(str(job.source.path), None, reason))
        yield _imported(job, writer)
    writer.flush()
    summary.stored(writer.written)
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


def _imported(job: Job, writer: Writer) -> FileImported:
    source = job.source
    return FileImported(
        source.harness, str(source.path), job.st.st_size, writer.written.messages_added
    )


def _read_here(writer: Writer, summary: ImportSummary, job: Job) -> None:
    """Stream one JSON-lines file into the pending batch, storing it whenever it fills."""
    writer.begin(job.source.harness)
    path = str(job.source.path)
    reading = Reading(read_lines(job.source, job.st, job.resume(), writer.now))
    for item in reading:
        writer.pending.add(item, path)
        if writer.full:
            writer.flush()
    done = reading.result()
    summary.count(done.counts)
    writer.pending.files.append(done.state)
    if writer.full:
        writer.flush()


def _read_whole(ctx: Context, writer: Writer, summary: ImportSummary, job: Job) -> None:
    """Read a source that is not JSON lines and store it in a transaction of its own:
    such sources report running totals, so there the latest usage figure wins."""
    writer.flush()
    source = job.source
    whole = Pending(writer.now, Batch(source.harness), replace_usage=True)
    reading = Reading(read_whole(source, job.st, ctx.store.now()))
    path = str(source.path)
    for chunk in reading:
        whole.add(chunk, path)
    done = reading.result()
    summary.count(done.counts)
    whole.files.append(done.state)
    writer.store(whole)


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
