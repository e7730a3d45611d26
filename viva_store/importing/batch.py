"""The write half of an import: what the next transaction stores, and who stores it.

A run's reads flow into a :class:`Pending` batch; the :class:`Writer` stores it
in one short write transaction (:func:`~viva_store.importing.write.commit`)
whenever it fills, before another harness's files, and at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import Connection

from viva_store.importing.harness.model import ParsedChunk
from viva_store.importing.paths import PathKeys
from viva_store.importing.prepare import Batch, clean
from viva_store.importing.read import QuarantinedLine
from viva_store.importing.state import FileState
from viva_store.importing.summary import Tally
from viva_store.importing.write import QuarantineRow, WriteResult, commit
from viva_store.redact import RULESET_VERSION, FolderNames, redact_path, redact_text
from viva_store.skills.uses import after_attribution
from viva_store.store import Context
from viva_store.triage.attribution import match_executions
from viva_store.triage.launched import match_window

BATCH_BYTES = 8 << 20
"""Text a pending batch gathers before it is stored (bounds memory per transaction)."""


@dataclass(slots=True)
class Pending:
    """What the next write transaction stores: chunks of one or more files of one
    harness (redacted as they are added), their quarantined lines (redacted by
    :meth:`finish`, when the folder names their paths hold are known), and the
    states of the files read to the end.

    Gathering small files into one transaction matters: most session files are
    small, and a transaction per file would cost more than the parsing.
    """

    now: datetime
    batch: Batch = field(default_factory=lambda: Batch(""))
    lines: list[QuarantinedLine] = field(default_factory=list)  # quarantined, not redacted yet
    quarantined: list[QuarantineRow] = field(default_factory=list)
    files: list[FileState] = field(default_factory=list)
    replace_usage: bool = False  # whole-file sources report running totals: latest wins

    @property
    def size(self) -> int:
        return self.batch.size

    @property
    def empty(self) -> bool:
        return not (self.batch.sessions or self.lines or self.quarantined or self.files)

    def add(self, item: ParsedChunk | QuarantinedLine, source_path: str) -> None:
        """Take one thing a read yielded from ``source_path``."""
        if isinstance(item, QuarantinedLine):
            self.lines.append(item)
        else:
            self.batch.add(item, source_path)

    def absorb(self, other: Pending) -> None:
        """Take everything ``other`` (a worker's batch of the same harness) holds."""
        self.batch.absorb(other.batch)
        self.lines.extend(other.lines)
        self.quarantined.extend(other.quarantined)
        self.files.extend(other.files)

    def finish(self, folders: FolderNames) -> None:
        """Redact what is still raw (session metadata, quarantined lines) with the folder
        names ``folders`` learnt, this batch's working folders included."""
        self.batch.finish(folders)
        self.quarantined += [quarantine_row(line, self.now, folders) for line in self.lines]
        self.lines = []


class Writer:
    """Stores what a run reads, one pending batch at a time, and adds up what it stored."""

    def __init__(self, ctx: Context, run_id: str, keys: PathKeys) -> None:
        self.ctx = ctx
        self.run_id = run_id
        self.keys = keys
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
        pending.finish(self.keys.folders)
        now = self.ctx.store.now()
        result = self.ctx.store.write(lambda conn: self._commit(conn, pending, now))
        self.written.add(result)

    def _commit(self, conn: Connection, pending: Pending, now: datetime) -> WriteResult:
        result = commit(conn, pending, self.run_id, now, self.keys)
        attribute(conn, self.ctx, result, now)
        return result


def attribute(conn: Connection, ctx: Context, result: WriteResult, now: datetime) -> None:
    """Inside a batch's transaction: attribute its new sessions by execution record
    (I6), and credit the skill uses of the launched sessions it added to (a session
    stored over several batches is credited as its transcript grows; crediting is
    idempotent). Both ends of a copy link the batch changed count as touched, stored
    before or not: what follows the link is settled by the batch that makes it."""
    linked = result.linked_sessions
    touched = result.new_sessions | result.updated_sessions | linked
    if not touched:
        return
    changed = match_executions(conn, result.new_sessions | linked, match_window(ctx), now)
    # Skill weights follow the members' new session axes.
    after_attribution(conn, ctx, changed, touched)


def quarantine_row(
    line: QuarantinedLine, at: datetime, folders: FolderNames
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A quarantined line as a row (raw bytes scanned as text and redacted) and its ledger."""
    text = clean(line.raw.decode("utf-8", errors="replace")) if line.raw else ""
    redacted, hits = redact_text(text)
    path, path_hits = redact_path(clean(line.path), folders)
    row = {
        "harness": line.harness,
        "path": path,
        "line": line.line,
        "byte_offset": line.offset,
        "length": line.length,
        "reason": line.reason,
        "raw": redacted,
        "ruleset": RULESET_VERSION,
        "at": at,
    }
    ledger = [{"field": "raw", "rule": h.rule, "position": h.start} for h in hits]
    ledger += [{"field": "path", "rule": h.rule, "position": h.start} for h in path_hits]
    return row, ledger
