"""The redaction upgrade: every stored text re-checked with the current rules.

A rule added after a record was stored never reached it; the upgrade redacts
such records again. It reads a batch, redacts it outside the write lock, and
writes it in one short transaction that holds the table's permit
(:func:`~viva_store.db.guards.redaction_permit`, the one UPDATE the append-only
guards admit): the new text and version of each changed row, the version alone
of the others, a ``redaction`` ledger row per marker added (rule and place, never
the value) and one ``redaction_upgrade`` event. A row is written only if it still
holds what was read, so two upgrades at once never apply twice. Redaction is
idempotent: an upgrade run again finds nothing older and changes nothing.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from sqlalchemy import Connection, func, insert, select, update
from sqlalchemy.engine import RowMapping

from viva_store.access import require_owner
from viva_store.db import meta
from viva_store.db.guards import redaction_permit
from viva_store.db.meta import stored_version
from viva_store.db.schema import MESSAGE, REDACTION, REDACTION_UPGRADE, SESSION
from viva_store.recall import fts_keys
from viva_store.recall.fts import INDEXED
from viva_store.recall.fts_keys import Indexed
from viva_store.recheck.tables import MUTABLE, VERSIONED, Rewritable
from viva_store.records import JsonRecord
from viva_store.redact import RULESET_VERSION
from viva_store.redact.upgrade import Recheck, is_older, recheck
from viva_store.store import Context

BATCH = 2000
IN_LIST = 500


@dataclass(slots=True)
class TableUpgrade(JsonRecord):
    """What an upgrade did to one table: records re-checked, changed, markers added."""

    table: str
    checked: int = 0
    changed: int = 0
    redactions: int = 0


@dataclass(slots=True)
class UpgradeReport(JsonRecord):
    """What a redaction upgrade did, in total and per table (only tables it re-checked)."""

    ruleset: str
    run_id: str
    records_checked: int = 0
    records_changed: int = 0
    redactions_added: int = 0
    tables: list[TableUpgrade] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        out = JsonRecord.to_json(self)
        out["tables"] = [t.to_json() for t in self.tables]
        return out

    def add(self, part: TableUpgrade) -> None:
        if not part.checked:
            return
        self.tables.append(part)
        self.records_checked += part.checked
        self.records_changed += part.changed
        self.redactions_added += part.redactions


@dataclass(slots=True)
class _Writes:
    """What one batch's transaction recorded, and what the caller must do after it."""

    ledger: list[dict[str, Any]] = field(default_factory=list)
    reindex: list[tuple[int, Indexed, Indexed]] = field(default_factory=list)
    changed: int = 0
    checked: int = 0


def remember_version(conn: Connection, version: str = RULESET_VERSION) -> None:
    """Record that the whole store is redacted with ``version`` (the current rules)."""
    meta.remember_version(conn, version)


def _batch(conn: Connection, spec: Rewritable, after: Any, versioned: bool) -> list[RowMapping]:
    table, key = spec.table, spec.key
    names = dict.fromkeys((key.name, *(["ruleset"] if versioned else []), *spec.extra))
    query = select(*(table.c[n] for n in (*names, *spec.columns) if n in table.c))
    if versioned:
        query = query.where(table.c.ruleset != RULESET_VERSION)
    if after is not None:
        query = query.where(key > after)
    return list(conn.execute(query.order_by(key).limit(BATCH)).mappings())


def _ledger(spec: Rewritable, row: RowMapping, check: Recheck, run_id: str) -> list[dict[str, Any]]:
    base = {"session_id": None, "message_key": None, "quarantine_id": None, **spec.place(row)}
    return [
        {**base, "run_id": run_id, "field": h.field, "rule": h.rule, "position": h.position}
        for h in check.hits
    ]


def _record(
    conn: Connection, spec: Rewritable, writes: _Writes, run_id: str, by: str, at: Any
) -> None:
    """The ledger and the event of one batch's transaction."""
    if writes.ledger:
        rows = [{**r, "ruleset": RULESET_VERSION} for r in writes.ledger]
        conn.execute(insert(REDACTION), rows)
    if spec.table is MESSAGE and writes.reindex and conn.dialect.name == "sqlite":
        fts_keys.reindex_rewritten(conn, writes.reindex)
    conn.execute(
        insert(REDACTION_UPGRADE).values(
            run_id=run_id,
            table_name=spec.name,
            ruleset=RULESET_VERSION,
            checked=writes.checked,
            changed=writes.changed,
            redactions=len(writes.ledger),
            actor=by,
            at=at,
        )
    )


@contextmanager
def _secure_delete(conn: Connection) -> Iterator[None]:
    """SQLite: overwrite what a rewrite frees, so the old text leaves the file's pages."""
    if conn.dialect.name != "sqlite":
        yield
        return
    before = conn.exec_driver_sql("PRAGMA secure_delete").scalar()
    conn.exec_driver_sql("PRAGMA secure_delete=ON")
    try:
        yield
    finally:
        conn.exec_driver_sql(f"PRAGMA secure_delete={int(before or 0)}")


def _indexed(row: RowMapping, values: dict[str, Any]) -> tuple[Indexed, Indexed]:
    """A rewritten message's indexed columns before and after (what re-indexing needs)."""
    text, args, result = INDEXED
    before = (row[text], row[args], row[result])
    after = tuple(values.get(c, row[c]) for c in INDEXED)
    return before, (after[0], after[1], after[2])


def _write_versioned(
    conn: Connection,
    spec: Rewritable,
    checks: Sequence[tuple[RowMapping, Recheck]],
    run_id: str,
    by: str,
    at: Any,
) -> _Writes:
    table, key = spec.table, spec.key
    writes = _Writes()
    unchanged: dict[str, list[Any]] = {}
    with _secure_delete(conn), redaction_permit(conn, spec.name, RULESET_VERSION):
        for row, check in checks:
            if not check.changed:
                unchanged.setdefault(row["ruleset"], []).append(row[key.name])
                continue
            done = conn.execute(
                update(table)
                .where(key == row[key.name], table.c.ruleset == row["ruleset"])
                .values(**check.values, ruleset=RULESET_VERSION)
            ).rowcount
            if done:
                writes.changed += 1
                writes.ledger += _ledger(spec, row, check, run_id)
                if spec.table is MESSAGE and any(c in check.values for c in INDEXED):
                    writes.reindex.append((row["id"], *_indexed(row, check.values)))
        for old, keys in unchanged.items():
            for start in range(0, len(keys), IN_LIST):
                writes.checked += conn.execute(
                    update(table)
                    .where(key.in_(keys[start : start + IN_LIST]), table.c.ruleset == old)
                    .values(ruleset=RULESET_VERSION)
                ).rowcount
        writes.checked += writes.changed
        _record(conn, spec, writes, run_id, by, at)
    return writes


def _write_mutable(
    conn: Connection,
    spec: Rewritable,
    checks: Sequence[tuple[RowMapping, Recheck]],
    run_id: str,
    by: str,
    at: Any,
) -> _Writes:
    table, key = spec.table, spec.key
    writes = _Writes()
    with _secure_delete(conn):
        for row, check in checks:
            unchanged_since = [table.c[name] == row[name] for name in check.values]
            done = conn.execute(
                update(table).where(key == row[key.name], *unchanged_since).values(**check.values)
            ).rowcount
            if done:
                writes.changed += 1
                writes.ledger += _ledger(spec, row, check, run_id)
        writes.checked = writes.changed
        if writes.changed:
            _record(conn, spec, writes, run_id, by, at)
    return writes


def _upgrade_table(
    ctx: Context, spec: Rewritable, run_id: str, by: str, versioned: bool
) -> TableUpgrade:
    """Re-check one table batch by batch: each batch read, redacted, then written."""
    part = TableUpgrade(spec.name)
    write = _write_versioned if versioned else _write_mutable
    after: Any = None
    while rows := ctx.store.read(partial(_batch, spec=spec, after=after, versioned=versioned)):
        after = rows[-1][spec.key.name]
        if versioned:
            rows = [row for row in rows if is_older(row["ruleset"])]
        else:
            part.checked += len(rows)
        checks = [(row, recheck(row, spec.text, spec.json)) for row in rows]
        if not versioned:  # an unchanged row of a table without versions needs no write
            checks = [(row, check) for row, check in checks if check.changed]
        if not checks:
            continue
        now = ctx.store.now()
        writes = ctx.store.write(
            partial(write, spec=spec, checks=checks, run_id=run_id, by=by, at=now)
        )
        if versioned:
            part.checked += writes.checked
        part.changed += writes.changed
        part.redactions += len(writes.ledger)
    return part


def older_records(conn: Connection) -> dict[str, int]:
    """How many records of each versioned table an upgrade would re-check now."""
    out: dict[str, int] = {}
    for spec in VERSIONED:
        version = spec.table.c.ruleset
        counts = conn.execute(
            select(version, func.count()).where(version != RULESET_VERSION).group_by(version)
        )
        older = sum(int(n) for v, n in counts if is_older(v))
        if older:
            out[spec.name] = older
    return out


def run_upgrade(ctx: Context, by: str) -> UpgradeReport:
    """Re-check every record redacted by older rules (and, when the store's last upgrade
    is older, every mutable table); the caller checks who may."""
    report = UpgradeReport(RULESET_VERSION, "u" + secrets.token_hex(6))
    last = ctx.store.read(stored_version)
    for spec in VERSIONED:
        report.add(_upgrade_table(ctx, spec, report.run_id, by, versioned=True))
    if last is None or is_older(last):
        for spec in MUTABLE:
            report.add(_upgrade_table(ctx, spec, report.run_id, by, versioned=False))
    ctx.store.write(remember_version)
    changed = {t.table for t in report.tables if t.changed}
    if changed & {MESSAGE.name, SESSION.name}:
        _after_rewrites(ctx, titles=SESSION.name in changed)
    return report


@dataclass(frozen=True, slots=True)
class RedactionStatus(JsonRecord):
    """Whether the store is redacted with the current rules, and what an upgrade would do."""

    ruleset: str
    store_ruleset: str | None
    records_older: int
    older: dict[str, int]

    @property
    def store_current(self) -> bool:
        return self.store_ruleset is not None and not is_older(self.store_ruleset)

    @property
    def upgrade_due(self) -> bool:
        return bool(self.records_older) or not self.store_current

    def to_json(self) -> dict[str, Any]:
        return {**JsonRecord.to_json(self), "upgrade_due": self.upgrade_due}


def redaction_status(ctx: Context) -> RedactionStatus:
    """The rule-set versions the store holds, counted without changing anything (owner:
    the counts span every member's records)."""
    require_owner(ctx.actor, "count the store's records by rule set")
    older = ctx.store.read(older_records)
    last = ctx.store.read(stored_version)
    return RedactionStatus(RULESET_VERSION, last, sum(older.values()), older)


def redact_upgrade(ctx: Context) -> UpgradeReport:
    """``viva redact --upgrade``: the owner re-checks the whole store with the current rules."""
    require_owner(ctx.actor, "re-redact the store")
    return run_upgrade(ctx, by=ctx.actor.describe())


def upgrade_if_older(ctx: Context, by: str = "import") -> UpgradeReport | None:
    """For the importer: run the upgrade when the store's last one predates the current
    rules (None: it does not, and nothing was read but one ``store_meta`` row). Rows
    written since then with an unknown version wait for the next rule-set change or
    ``viva redact --upgrade``, which counts them."""
    last = ctx.store.read(stored_version)
    if last is not None and not is_older(last):
        return None
    return run_upgrade(ctx, by=by)


def _after_rewrites(ctx: Context, titles: bool) -> None:
    """Bring what was derived from rewritten text up to date, and on SQLite let go of the
    old bytes: the full-text indexes merged (a forgotten text's words leave their
    segments), the write-ahead log emptied."""
    from viva_store.recall import fts
    from viva_store.recall import index as recall_index

    if titles:
        recall_index.refresh(ctx)
    if ctx.store.engine.dialect.name != "sqlite":
        return

    def merge(conn: Connection) -> None:
        with _secure_delete(conn):
            for name in (fts.MESSAGE_FTS, fts.TITLE_FTS):
                conn.exec_driver_sql(f"INSERT INTO {name}({name}) VALUES ('optimize')")

    ctx.store.write(merge)
    raw = ctx.store.engine.raw_connection()
    try:
        raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        raw.close()
