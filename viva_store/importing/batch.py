"""The write half of an import: pending batches, file states, the run record."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, insert, select, update

from viva_store.db.schema import IMPORT_RUN, QUARANTINE, REDACTION, SOURCE_FILE
from viva_store.importing.prepare import Batch
from viva_store.importing.read import QuarantineRow, Sink
from viva_store.importing.write import write_batch
from viva_store.store import Context


@dataclass(slots=True)
class Tally:
    """What the writes of a run stored (merged into the run's summary)."""

    new_session_ids: set[str] = field(default_factory=set)
    updated_session_ids: set[str] = field(default_factory=set)
    messages_added: int = 0
    redactions: int = 0


def known_files(ctx: Context, harnesses: list[str]) -> dict[tuple[str, str], tuple[int, ...]]:
    """(id, size, mtime, inode) of every file read before: all a skip decision needs.

    One scan of the table, filtered here: looking the chosen harnesses up in the
    ``(harness, path)`` index would fetch every row by its id, which costs
    several times the scan on the re-import of an unchanged history.
    """
    rows = ctx.store.read(lambda c: c.exec_driver_sql(_KNOWN).fetchall())
    chosen = set(harnesses)
    return {(h, p): (i, size, mtime, ino) for h, p, i, size, mtime, ino in rows if h in chosen}


# Plain SQL on both engines (no parameters, no types to process): this query is
# most of what a re-import of an unchanged history asks of the store.
_KNOWN = f"SELECT harness, path, id, size, mtime_ns, inode FROM {SOURCE_FILE.name}"


def file_row(ctx: Context, file_id: int) -> Any:
    """Everything remembered about a file that changed (offset, digest, reader state)."""
    return ctx.store.read(
        lambda c: c.execute(select(SOURCE_FILE).where(SOURCE_FILE.c.id == file_id)).one()
    )


@dataclass
class Pending:
    """What the next write transaction stores: chunks of one or more files, their
    quarantined lines, and the states of the files read to the end.

    Gathering small files into one transaction matters: most session files are
    small, and a transaction per file would cost more than the parsing.
    """

    now: datetime
    sink: Sink = field(default_factory=lambda: Sink(Batch("")))
    files: list[dict[str, Any]] = field(default_factory=list)
    replace_usage: bool = False

    @property
    def size(self) -> int:
        return self.sink.batch.size


def flush(ctx: Context, summary: Tally, run_id: str, pending: Pending) -> None:
    """Store the pending batch in one short write transaction, then start a new one."""
    batch, files = pending.sink.batch, list(pending.files)
    quarantined: list[QuarantineRow] = list(pending.sink.quarantined)
    pending.sink.batch = Batch(batch.harness)
    pending.sink.quarantined.clear()
    pending.files.clear()
    if not batch.sessions and not quarantined and not files:
        return
    batch.finish()
    now = ctx.store.now()

    def work(conn: Connection) -> None:
        result = write_batch(conn, batch, run_id, now, replace_usage=pending.replace_usage)
        summary.new_session_ids |= result.new_sessions
        summary.updated_session_ids |= result.updated_sessions
        summary.messages_added += result.messages_added
        summary.redactions += result.redactions
        for qrow, ledger in quarantined:
            inserted = conn.execute(
                insert(QUARANTINE).values(run_id=run_id, **qrow)
            ).inserted_primary_key
            qid = inserted[0] if inserted is not None else None
            if ledger:
                conn.execute(
                    insert(REDACTION),
                    [
                        {
                            **e,
                            "run_id": run_id,
                            "session_id": None,
                            "message_key": None,
                            "quarantine_id": qid,
                            "ruleset": qrow["ruleset"],
                        }
                        for e in ledger
                    ],
                )
                summary.redactions += len(ledger)
        save_file_states(conn, files)

    ctx.store.write(work)


def save_file_states(conn: Connection, states: list[dict[str, Any]]) -> None:
    """Remember how far each file was read (insert the new, update the known)."""
    if not states:
        return
    known = {
        (r.harness, r.path)
        for r in conn.execute(
            select(SOURCE_FILE.c.harness, SOURCE_FILE.c.path).where(
                SOURCE_FILE.c.path.in_([s["path"] for s in states])
            )
        )
    }
    fresh = [
        {**s, "first_seen_at": s["imported_at"]}
        for s in states
        if (s["harness"], s["path"]) not in known
    ]
    if fresh:
        conn.execute(insert(SOURCE_FILE), fresh)
    for state in states:
        if (state["harness"], state["path"]) in known:
            key = (SOURCE_FILE.c.harness == state["harness"]) & (
                SOURCE_FILE.c.path == state["path"]
            )
            conn.execute(update(SOURCE_FILE).where(key).values(**state))


def record_run(
    ctx: Context, run_id: str, data: dict[str, Any], harnesses: list[str], started: datetime
) -> None:
    """Every run is recorded: when, what, counts, problems (the first 1,000)."""
    data = dict(data)
    problems = data.pop("problems")
    ctx.store.write(
        lambda c: c.execute(
            insert(IMPORT_RUN).values(
                id=run_id,
                started_at=started,
                finished_at=ctx.store.now(),
                harnesses=harnesses,
                counts=data,
                problems=problems[:1000],
            )
        )
    )
