"""The write half of an import: what the next transaction stores, and who stores it.

A run's reads flow into a :class:`Pending` batch; the :class:`Writer` stores it
in one short write transaction (:func:`~viva_store.importing.write.commit`)
whenever it fills, before another harness's files, and at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select

from viva_store.db.schema import IMPORT_RUN, SOURCE_FILE
from viva_store.importing.harness.model import ParsedChunk
from viva_store.importing.prepare import Batch, quarantine_row
from viva_store.importing.read import FileState, QuarantinedLine
from viva_store.importing.write import QuarantineRow, WriteResult, commit
from viva_store.store import Context

BATCH_BYTES = 8 << 20
"""Text a pending batch gathers before it is stored (bounds memory per transaction)."""


@dataclass(slots=True)
class Tally:
    """What the writes of a run stored, added up."""

    new_session_ids: set[str] = field(default_factory=set)
    updated_session_ids: set[str] = field(default_factory=set)
    messages_added: int = 0
    redactions: int = 0

    def add(self, result: WriteResult) -> None:
        """Count one transaction's result."""
        self.new_session_ids |= result.new_sessions
        self.updated_session_ids |= result.updated_sessions
        self.messages_added += result.messages_added
        self.redactions += result.redactions


@dataclass(slots=True)
class Pending:
    """What the next write transaction stores: chunks of one or more files of one
    harness (redacted as they are added), their quarantined lines, and the states
    of the files read to the end.

    Gathering small files into one transaction matters: most session files are
    small, and a transaction per file would cost more than the parsing.
    """

    now: datetime
    batch: Batch = field(default_factory=lambda: Batch(""))
    quarantined: list[QuarantineRow] = field(default_factory=list)
    files: list[FileState] = field(default_factory=list)
    replace_usage: bool = False  # whole-file sources report running totals: latest wins

    @property
    def size(self) -> int:
        return self.batch.size

    @property
    def empty(self) -> bool:
        return not (self.batch.sessions or self.quarantined or self.files)

    def add(self, item: ParsedChunk | QuarantinedLine, source_path: str) -> None:
        """Take one thing a read yielded from ``source_path``."""
        if isinstance(item, QuarantinedLine):
            self.quarantined.append(quarantine_row(item, self.now))
        else:
            self.batch.add(item, source_path)

    def absorb(self, other: Pending) -> None:
        """Take everything ``other`` (a worker's batch of the same harness) holds."""
        self.batch.absorb(other.batch)
        self.quarantined.extend(other.quarantined)
        self.files.extend(other.files)


class Writer:
    """Stores what a run reads, one pending batch at a time, and adds up what it stored."""

    def __init__(self, ctx: Context, run_id: str) -> None:
        self.ctx = ctx
        self.run_id = run_id
        self.now = ctx.store.now()
        self.pending = Pending(self.now)
        self.written = Tally()

    @property
    def full(self) -> bool:
        return self.pending.size >= BATCH_BYTES

    def begin(self, harness: str) -> None:
        """A file of ``harness`` is next: a batch holds one harness's sessions, so
        the pending one is stored first if it is another's."""
        if self.pending.batch.harness != harness:
            self.flush(harness)

    def flush(self, harness: str | None = None) -> None:
        """Store the pending batch (if it holds anything) and start the next one."""
        pending = self.pending
        self.pending = Pending(self.now, Batch(harness or pending.batch.harness))
        self.store(pending)

    def store(self, pending: Pending) -> None:
        """Store ``pending`` in one write transaction."""
        if pending.empty:
            return
        pending.batch.finish()
        now = self.ctx.store.now()
        result = self.ctx.store.write(lambda conn: commit(conn, pending, self.run_id, now))
        self.written.add(result)


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


def file_state(ctx: Context, file_id: int) -> FileState:
    """Everything remembered about a file that changed (offset, digest, reader state)."""
    row = ctx.store.read(
        lambda c: c.execute(select(SOURCE_FILE).where(SOURCE_FILE.c.id == file_id)).one()
    )
    return FileState.from_row(row)


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
