"""Session recovery: every harness file, incremental, redacted before disk.

:func:`run_import` is a generator of progress events (the CLI draws a Rich
bar from them, the TUI a ``ProgressBar``); its return value is the run's
:class:`ImportSummary`. The data flows one way: the sources that changed
(:mod:`~viva_store.importing.sources`) are read and stored
(:mod:`~viva_store.importing.changed`); an unchanged one costs its ``stat`` and its
row of the one query of the known files. Every run ends by attributing what a killed
run left unattributed and by recording itself.

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
from datetime import datetime
from typing import Any

from sqlalchemy import func, insert, select

from viva_store.access import require_owner
from viva_store.db.schema import IMPORT_RUN, SESSION
from viva_store.importing.harness import registry
from viva_store.importing.harness.model import Problem
from viva_store.importing.paths import PathKeys, path_keys
from viva_store.importing.sources import find_sources, plan
from viva_store.importing.summary import (
    FileImported,
    FilesUnchanged,
    ImportEvent,
    ImportStarted,
    ImportSummary,
    Tally,
)
from viva_store.logs.service import get_logger
from viva_store.redact import RULESET_VERSION, redact_obj, redact_path
from viva_store.store import Context
from viva_store.triage.launched import finish_launched

__all__ = [
    "FileImported",
    "FilesUnchanged",
    "ImportEvent",
    "ImportStarted",
    "ImportSummary",
    "run_import",
]


def run_import(
    ctx: Context,
    harnesses: list[str] | None = None,
    overrides: dict[str, str] | None = None,
    *,
    workers: int | None = None,
    pool_min_bytes: int | None = None,
) -> Generator[ImportEvent, None, ImportSummary]:
    """Recover every session the chosen harnesses left on disk (owner only).

    ``workers`` (default: :func:`~viva_store.importing.pool.default_workers`) read
    small files in parallel when the changed files add up to ``pool_min_bytes``
    (default :data:`~viva_store.importing.pool.POOL_MIN_BYTES`); 1 reads everything here.
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
    summary.files_scanned, summary.files_unchanged = len(found.files), todo.unchanged
    if todo.unchanged:
        yield FilesUnchanged(todo.unchanged, todo.unchanged_bytes)
    written = Tally()
    if todo.jobs:  # only a changed file needs the readers and the writers
        from viva_store.importing.changed import read_changed

        written = yield from read_changed(ctx, summary, todo.jobs, keys, workers, pool_min_bytes)
    finish_launched(ctx)  # what a killed run of an older Viva left unattributed
    summary.stored(written)
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


def record_run(
    ctx: Context, run_id: str, data: dict[str, Any], harnesses: list[str], started: datetime
) -> None:
    """Every run is recorded: when, what, counts, problems (the first 1,000, redacted:
    a path or a quoted line can hold a secret)."""
    data = dict(data)
    problems = redact_obj(data.pop("problems")[:1000])[0]
    ctx.store.write(
        lambda c: c.execute(
            insert(IMPORT_RUN).values(
                id=run_id,
                started_at=started,
                finished_at=ctx.store.now(),
                harnesses=harnesses,
                counts=data,
                problems=problems,
                ruleset=RULESET_VERSION,
            )
        )
    )
