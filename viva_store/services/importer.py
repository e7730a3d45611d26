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
import secrets
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from sqlalchemy import Connection, func, insert, select, update

from viva_store.access import require_owner
from viva_store.db.tables import ImportRun, Quarantine, Redaction, Session
from viva_store.db.tables import SourceFile as SourceRow
from viva_store.harness import registry
from viva_store.harness.lines import Progress, iter_lines, open_source, range_sha256
from viva_store.harness.model import Problem, Record, SourceFile
from viva_store.services.attribution import match_executions
from viva_store.services.import_prepare import Batch, quarantine_row
from viva_store.services.import_write import write_batch
from viva_store.services.skill_uses import after_attribution
from viva_store.store import Context

F = SourceRow.__table__  # type: ignore[attr-defined]
Q = Quarantine.__table__  # type: ignore[attr-defined]
R = Redaction.__table__  # type: ignore[attr-defined]
RUNS = ImportRun.__table__  # type: ignore[attr-defined]
S = Session.__table__  # type: ignore[attr-defined]
BATCH_BYTES = 8 << 20
LINE_KINDS = ("jsonl", "jsonl.zst")


@dataclass(frozen=True, slots=True)
class ImportStarted:
    """Discovery finished: this many files and bytes to look at."""

    files: int
    bytes: int


@dataclass(frozen=True, slots=True)
class FileImported:
    """One source file read (``skipped``: unchanged since the last run).

    ``messages_so_far`` counts what the run has stored until now; a file's own
    messages may still be waiting in the batch that the next write commits.
    """

    harness: str
    path: str
    bytes: int
    messages_so_far: int
    skipped: bool


@dataclass(slots=True)
class ImportSummary:
    """What a run did; the keys of ``viva import --json``."""

    run_id: str
    files_scanned: int = 0
    files_unchanged: int = 0
    sessions_new: int = 0
    sessions_updated: int = 0
    sessions_unchanged: int = 0
    messages_added: int = 0
    lines_read: int = 0
    lines_skipped: int = 0
    lines_blank: int = 0
    lines_quarantined: int = 0
    bytes_read: int = 0
    bytes_withheld: int = 0
    redactions: int = 0
    problems: list[Problem] = field(default_factory=list)
    new_session_ids: set[str] = field(default_factory=set)
    updated_session_ids: set[str] = field(default_factory=set)

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


ImportEvent = ImportStarted | FileImported


def run_import(
    ctx: Context,
    harnesses: list[str] | None = None,
    overrides: dict[str, str] | None = None,
) -> Generator[ImportEvent, None, ImportSummary]:
    """Recover every session the chosen harnesses left on disk (owner only)."""
    require_owner(ctx.actor, "import sessions")
    chosen = [registry.check(h) for h in harnesses] if harnesses else registry.names()
    started = ctx.store.now()
    summary = ImportSummary(run_id="r" + secrets.token_hex(6))
    config_roots = ctx.store.config.section("roots")
    sources: list[SourceFile] = []
    for harness in chosen:
        for root in registry.roots(harness, overrides, config_roots):
            try:
                sources.extend(registry.discover(root))
            except OSError as exc:
                summary.problems.append(
                    Problem(str(root.path), None, f"cannot list: {exc.strerror}")
                )
    stats = {s.path: _stat(s, summary) for s in sources}
    yield ImportStarted(len(sources), sum(st.st_size for st in stats.values() if st))
    known = _known_files(ctx, chosen)
    pending = Pending(ctx.store.now())
    for source in sources:
        st = stats[source.path]
        if st is None:
            continue
        summary.files_scanned += 1
        seen = known.get((source.harness, str(source.path)))
        if seen is not None and seen[1:] == (st.st_size, st.st_mtime_ns, st.st_ino):
            summary.files_unchanged += 1
            yield FileImported(
                source.harness, str(source.path), st.st_size, summary.messages_added, True
            )
            continue
        row = _file_row(ctx, seen[0]) if seen is not None else None
        try:
            if source.kind in LINE_KINDS:
                _import_lines(ctx, summary, source, st, row, pending)
            else:
                _flush(ctx, summary, pending)
                _import_whole(ctx, summary, source, st, row)
        except OSError as exc:
            summary.problems.append(
                Problem(str(source.path), None, f"cannot read: {exc.strerror or exc}")
            )
        yield FileImported(
            source.harness, str(source.path), st.st_size, summary.messages_added, False
        )
    _flush(ctx, summary, pending)
    summary.sessions_updated = len(summary.updated_session_ids - summary.new_session_ids)
    summary.sessions_new = len(summary.new_session_ids)
    total = ctx.store.read(
        lambda c: c.execute(
            select(func.count()).select_from(S).where(S.c.harness.in_(chosen))
        ).scalar()
    )
    summary.sessions_unchanged = int(total or 0) - summary.sessions_new - summary.sessions_updated
    summary.lines_skipped = summary.lines_blank + summary.lines_quarantined
    _attribute(ctx, summary)
    _record_run(ctx, summary, chosen, started)
    return summary


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


class Fingerprint(NamedTuple):
    """What decides whether a source changed (``os.stat_result``'s names)."""

    st_size: int
    st_mtime_ns: int
    st_ino: int
    st_mtime: float


def _stat(source: SourceFile, summary: ImportSummary) -> Fingerprint | None:
    """The file's fingerprint; a SQLite source includes its ``-wal`` file, where new
    rows sit until a checkpoint while the database file keeps its size and mtime."""
    try:
        st = source.stat or source.path.stat()
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


def _known_files(ctx: Context, harnesses: list[str]) -> dict[tuple[str, str], tuple[int, ...]]:
    """(id, size, mtime, inode) of every file read before: all a skip decision needs."""
    cols = (F.c.harness, F.c.path, F.c.id, F.c.size, F.c.mtime_ns, F.c.inode)
    rows = ctx.store.read(
        lambda c: c.execute(select(*cols).where(F.c.harness.in_(harnesses))).all()
    )
    return {(r[0], r[1]): tuple(r[2:]) for r in rows}


def _file_row(ctx: Context, file_id: int) -> Any:
    """Everything remembered about a file that changed (offset, digest, reader state)."""
    return ctx.store.read(lambda c: c.execute(select(F).where(F.c.id == file_id)).one())


def _resume_point(source: SourceFile, st: Fingerprint, row: Any) -> tuple[int, int, dict[str, Any]]:
    """(offset, next line, reader state) to continue from; (0, 1, {}) to start over."""
    if (
        row is None
        or source.kind != "jsonl"
        or row.inode != st.st_ino
        or st.st_size < row.byte_offset
    ):
        return 0, 1, {}
    if row.byte_offset and row.last_line_length:
        with open(source.path, "rb") as fh:
            start = row.byte_offset - row.last_line_length
            if range_sha256(fh, start, row.last_line_length) != row.last_line_digest:
                return 0, 1, {}
    return row.byte_offset, row.lines + 1, dict(row.reader_state or {})


def _import_lines(
    ctx: Context,
    summary: ImportSummary,
    source: SourceFile,
    st: Fingerprint,
    row: Any,
    pending: Pending,
) -> None:
    """Read one JSON-lines file from its resume point into the pending batch."""
    reader = registry.module(source.harness)
    offset, next_line, state = _resume_point(source, st, row)
    path = str(source.path)
    progress = Progress()
    if pending.batch.harness != source.harness:
        _flush(ctx, summary, pending)
        pending.batch = Batch(source.harness)
    quarantined = pending.quarantined
    now = pending.now

    with open_source(source.path) as fh:
        outcomes = iter_lines(fh, offset, next_line, progress=progress)

        def records() -> Iterator[Record]:
            for out in outcomes:
                summary.lines_read += 1
                summary.bytes_read += out.length
                if out.reason is not None:
                    summary.problems.append(Problem(path, out.line, out.reason))
                if out.kind == "blank":
                    summary.lines_blank += 1
                elif out.kind == "quarantined":
                    summary.lines_quarantined += 1
                    quarantined.append(
                        quarantine_row(
                            source.harness,
                            path,
                            out.line,
                            out.offset,
                            out.length,
                            out.reason or "unusable line",
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
            pending.batch.add(chunk, path)
            if pending.batch.size >= BATCH_BYTES:
                _flush(ctx, summary, pending)
    if progress.error:
        summary.problems.append(Problem(path, progress.next_line, progress.error))
    summary.bytes_withheld += progress.withheld
    file_state = {
        "harness": source.harness,
        "path": path,
        "kind": source.kind,
        "size": st.st_size,
        "mtime_ns": st.st_mtime_ns,
        "inode": st.st_ino,
        "byte_offset": progress.offset,
        "lines": progress.next_line - 1,
        "last_line_length": progress.last_line_length
        if progress.lines
        else (row.last_line_length if row is not None and offset else 0),
        "last_line_digest": progress.last_line_sha256
        or (row.last_line_digest if row is not None and offset else ""),
        "reader_state": state,
        "file_mtime": datetime.fromtimestamp(st.st_mtime, UTC),
        "imported_at": now,
    }
    pending.files.append(file_state)
    if pending.batch.size >= BATCH_BYTES:
        _flush(ctx, summary, pending)


def _import_whole(
    ctx: Context, summary: ImportSummary, source: SourceFile, st: Fingerprint, row: Any
) -> None:
    reader = registry.module(source.harness)
    problems: list[Problem] = []
    whole = Pending(ctx.store.now(), Batch(source.harness), replace_usage=True)
    for chunk in reader.read_source(source, problems):
        whole.batch.add(chunk, str(source.path))
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
    _flush(ctx, summary, whole)


@dataclass
class Pending:
    """What the next write transaction stores: chunks of one or more files, their
    quarantined lines, and the states of the files read to the end.

    Gathering small files into one transaction matters: most session files are
    small, and a transaction per file would cost more than the parsing.
    """

    now: datetime
    batch: Batch = field(default_factory=lambda: Batch(""))
    quarantined: list[tuple[dict[str, Any], list[dict[str, Any]]]] = field(default_factory=list)
    files: list[dict[str, Any]] = field(default_factory=list)
    replace_usage: bool = False


def _flush(ctx: Context, summary: ImportSummary, pending: Pending) -> None:
    """Store the pending batch in one short write transaction, then start a new one."""
    batch, quarantined, files = pending.batch, list(pending.quarantined), list(pending.files)
    pending.batch = Batch(batch.harness)
    pending.quarantined.clear()
    pending.files.clear()
    if not batch.sessions and not quarantined and not files:
        return
    batch.finish()
    now = ctx.store.now()

    def work(conn: Connection) -> None:
        result = write_batch(conn, batch, summary.run_id, now, replace_usage=pending.replace_usage)
        summary.new_session_ids |= result.new_sessions
        summary.updated_session_ids |= result.updated_sessions
        summary.messages_added += result.messages_added
        summary.redactions += result.redactions
        for qrow, ledger in quarantined:
            qid = conn.execute(
                insert(Q).values(run_id=summary.run_id, **qrow)
            ).inserted_primary_key[0]
            if ledger:
                conn.execute(
                    insert(R),
                    [
                        {
                            **e,
                            "run_id": summary.run_id,
                            "session_id": None,
                            "message_key": None,
                            "quarantine_id": qid,
                            "ruleset": qrow["ruleset"],
                        }
                        for e in ledger
                    ],
                )
                summary.redactions += len(ledger)
        _save_file_states(conn, files)

    ctx.store.write(work)


def _save_file_states(conn: Connection, states: list[dict[str, Any]]) -> None:
    """Remember how far each file was read (insert the new, update the known)."""
    if not states:
        return
    known = {
        (r.harness, r.path)
        for r in conn.execute(
            select(F.c.harness, F.c.path).where(F.c.path.in_([s["path"] for s in states]))
        )
    }
    fresh = [
        {**s, "first_seen_at": s["imported_at"]}
        for s in states
        if (s["harness"], s["path"]) not in known
    ]
    if fresh:
        conn.execute(insert(F), fresh)
    for state in states:
        if (state["harness"], state["path"]) in known:
            key = (F.c.harness == state["harness"]) & (F.c.path == state["path"])
            conn.execute(update(F).where(key).values(**state))


def _record_run(
    ctx: Context, summary: ImportSummary, harnesses: list[str], started: datetime
) -> None:
    data = summary.to_json()
    problems = data.pop("problems")
    ctx.store.write(
        lambda c: c.execute(
            insert(RUNS).values(
                id=summary.run_id,
                started_at=started,
                finished_at=ctx.store.now(),
                harnesses=harnesses,
                counts=data,
                problems=problems[:1000],
            )
        )
    )
