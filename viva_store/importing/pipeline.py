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
an unterminated tail waits for the next run (or, once the file has settled,
is taken if it is complete JSON): input bytes = stored +
quarantined + blank + withheld.
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Generator

from sqlalchemy import func, select

from viva_store.access import require_owner
from viva_store.db.schema import SESSION
from viva_store.importing.batch import Pending, Writer, record_run
from viva_store.importing.harness import registry
from viva_store.importing.harness.model import Problem
from viva_store.importing.harness.reader import LINE_KINDS
from viva_store.importing.paths import PathKeys, path_keys
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
from viva_store.logs.service import get_logger
from viva_store.redact import redact_path
from viva_store.store import Context
from viva_store.triage.launched import finish_launched

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
    log = get_logger(ctx.store.config, "import")  # a bad VIVA_LOG_LEVEL stops it here
    found = find_sources(ctx, chosen, overrides)
    summary.problems.extend(found.problems)
    log.debug("run %s: %d files found, %d bytes", summary.run_id, len(found.files), found.bytes)
    yield ImportStarted(found.sources, found.bytes)
    keys = ctx.store.read(path_keys)
    todo = plan(ctx, chosen, found, keys)
    for job in todo.jobs:  # a resumed read may not see the cwd its folder is named after
        if job.known is not None:
            keys.folders.learn_stored(str(job.source.path), job.known.path)
    summary.files_scanned, summary.files_unchanged = len(found.files), todo.unchanged
    if todo.unchanged:
        yield FilesUnchanged(todo.unchanged, todo.unchanged_bytes)
    writer = Writer(ctx, summary.run_id, keys)
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
    finish_launched(ctx)  # what a killed run of an older Viva left unattributed
    summary.stored(writer.written)
    total = ctx.store.read(
        lambda c: c.execute(
            select(func.count()).select_from(SESSION).where(SESSION.c.harness.in_(chosen))
        ).scalar()
    )
    summary.sessions_unchanged = int(total or 0) - summary.sessions_new - summary.sessions_updated
    summary.lines_skipped = summary.lines_blank + summary.lines_quarantined
    summary.problems = _shown(summary.problems, keys)
    record_run(ctx, summary.run_id, summary.to_json(), chosen, started)
    _log_run(log, summary, chosen)
    return summary


def _log_run(log: logging.Logger, summary: ImportSummary, chosen: list[str]) -> None:
    """The run and each of its problems in Viva's log."""
    log.info(
        "run %s (%s): %d files scanned, %d unchanged; %d new sessions, %d updated, "
        "%d messages added, %d lines skipped, %d problems",
        summary.run_id,
        ", ".join(chosen),
        summary.files_scanned,
        summary.files_unchanged,
        summary.sessions_new,
        summary.sessions_updated,
        summary.messages_added,
        summary.lines_skipped,
        len(summary.problems),
    )
    for problem in summary.problems:
        where = f"{problem.path}:{problem.line}" if problem.line else problem.path
        log.warning("run %s: %s: %s", summary.run_id, where, problem.reason)


def _shown(problems: list[Problem], keys: PathKeys) -> list[Problem]:
    """The problems with their paths as the store shows paths: redacted as paths, with
    the folder names the run learnt (they are stored, logged and printed)."""
    paths: dict[str, str] = {}
    out: list[Problem] = []
    for problem in problems:
        path = paths.get(problem.path)
        if path is None:
            path = paths[problem.path] = redact_path(problem.path, keys.folders)[0]
        out.append(problem if path == problem.path else Problem(path, problem.line, problem.reason))
    return out


def _imported(job: Job, writer: Writer) -> FileImported:
    source = job.source
    return FileImported(
        source.harness, str(source.path), job.st.st_size, writer.written.messages_added
    )


def _read_here(writer: Writer, summary: ImportSummary, job: Job) -> None:
    """Stream one JSON-lines file into the pending batch, storing it whenever it fills."""
    writer.begin(job.source.harness)
    path = str(job.source.path)
    reading = Reading(read_lines(job.source, job.st, job.resume(), writer.now, job.settled))
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
