"""Storing one pending batch in one short write transaction: :func:`commit`.

Idempotent by construction: a message is new only if its ``(session, key)``
is not stored yet, a usage figure only if its ``(harness, usage_key)`` is
not; so re-reading a file (replaced, shrunk, or a crash mid-import) adds
nothing twice. No engine-specific SQL: existing keys are selected first, then
the new rows are inserted with one Core ``executemany`` per table and shape.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Table, func, insert, select, update

from viva_store.clock import as_utc
from viva_store.db.schema import MESSAGE, QUARANTINE, REDACTION, SESSION, SOURCE_FILE, USAGE
from viva_store.importing.copies import settle_copies
from viva_store.importing.paths import PathKeys
from viva_store.importing.prepare import Batch, PreparedSession

if TYPE_CHECKING:
    from viva_store.importing.batch import Pending
    from viva_store.importing.state import FileState

QuarantineRow = tuple[dict[str, Any], list[dict[str, Any]]]
"""A quarantined line's row (redacted) and its redaction ledger."""

IN_BATCH = 500
TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


@dataclass(slots=True)
class WriteResult:
    """What a batch changed."""

    new_sessions: set[str] = field(default_factory=set)
    updated_sessions: set[str] = field(default_factory=set)
    linked_sessions: set[str] = field(default_factory=set)
    """Both ends of every copy link the batch made or undone (stored before or not)."""
    messages_added: int = 0
    redactions: int = 0


def commit(
    conn: Connection, pending: Pending, run_id: str, now: datetime, keys: PathKeys
) -> WriteResult:
    """Everything one pending batch stores, in the caller's one transaction: the
    sessions with their new messages, usage and redaction ledger, the quarantined
    lines, and how far each file was read. Work that must commit together with a
    batch's sessions belongs here."""
    result = write_batch(conn, pending.batch, run_id, now, replace_usage=pending.replace_usage)
    if not pending.replace_usage:
        result.linked_sessions = settle_copies(conn, pending.batch)
    result.redactions += write_quarantine(conn, pending.quarantined, run_id)
    save_file_states(conn, pending.files, keys)
    return result


def _existing(conn: Connection, column: Any, where: Any, values: Sequence[str]) -> set[str]:
    found: set[str] = set()
    for start in range(0, len(values), IN_BATCH):
        part = values[start : start + IN_BATCH]
        found.update(conn.execute(select(column).where(where, column.in_(part))).scalars())
    return found


def _session_values(prepared: PreparedSession, row: Any | None) -> dict[str, Any]:
    meta = prepared.meta
    values: dict[str, Any] = {}
    for name in (
        "parent_native_id",
        "relation",
        "project",
        "cwd",
        "git_branch",
        "entrypoint",
        "originator",
    ):
        new = getattr(meta, name)
        if new is not None and (row is None or getattr(row, name) is None):
            values[name] = new
    models = sorted(set(row.models if row is not None else []) | meta.models)
    if row is None or models != sorted(row.models):
        values["models"] = models
    old_start = row.started_at if row is not None else None
    if meta.started_at and (old_start is None or as_utc(meta.started_at) < as_utc(old_start)):
        values["started_at"] = meta.started_at
    old_end = row.ended_at if row is not None else None
    if meta.ended_at and (old_end is None or as_utc(meta.ended_at) > as_utc(old_end)):
        values["ended_at"] = meta.ended_at
    newer = row is None or row.title is None or meta.title_rank >= row.title_rank
    if meta.title and newer and (row is None or meta.title != row.title):
        values["title"], values["title_rank"] = meta.title, meta.title_rank
    return values


def write_batch(
    conn: Connection,
    batch: Batch,
    run_id: str,
    now: datetime,
    *,
    replace_usage: bool,
) -> WriteResult:
    """Store ``batch``: sessions (merged), new messages, new usage, the redaction ledger.

    Set-wise: a handful of statements per batch, whatever the number of
    sessions in it (a batch gathers many small files).
    """
    result = WriteResult()
    ids = list(batch.sessions)
    rows: dict[str, Any] = {}
    for start in range(0, len(ids), IN_BATCH):
        part = ids[start : start + IN_BATCH]
        rows.update((r.id, r) for r in conn.execute(select(SESSION).where(SESSION.c.id.in_(part))))
    fresh_usage = _fresh_usage(conn, batch, replace_usage)
    new_rows: list[dict[str, Any]] = []
    changes: list[tuple[str, dict[str, Any]]] = []
    all_messages: list[dict[str, Any]] = []
    ledger: list[dict[str, Any]] = []
    for sid, prepared in batch.sessions.items():
        row = rows.get(sid)
        values = _session_values(prepared, row)
        count = row.message_count if row is not None else 0
        messages = prepared.messages
        if row is not None and messages:
            stored = _existing(
                conn, MESSAGE.c.key, MESSAGE.c.session_id == sid, [m["key"] for m in messages]
            )
            messages = [m for m in messages if m["key"] not in stored]
        for offset, message in enumerate(messages):
            message["seq"] = count + offset
        all_messages.extend(messages)
        result.messages_added += len(messages)
        added_keys = {m["key"] for m in messages}
        usage = fresh_usage.get(sid, [])
        tokens = {t: sum(u[t] for u in usage) for t in TOKENS}
        if row is None:
            new_rows.append(
                {
                    "id": sid,
                    "harness": batch.harness,
                    "native_id": prepared.meta.native_id,
                    "title_rank": 0,
                    "source_path": prepared.source_path,
                    "imported_at": now,
                    "updated_at": now,
                    "models": [],
                    **values,
                    "message_count": len(messages),
                    **tokens,
                }
            )
            result.new_sessions.add(sid)
        elif values or messages or usage:
            values["message_count"] = count + len(messages)
            for t in TOKENS:
                values[t] = int(getattr(row, t) or 0) + tokens[t]
            changes.append((sid, values))
            result.updated_sessions.add(sid)
        ledger.extend(
            entry
            for entry in prepared.ledger
            if entry["message_key"] is None or entry["message_key"] in added_keys
        )
    insert_rows(conn, SESSION, new_rows)
    for sid, values in changes:
        conn.execute(update(SESSION).where(SESSION.c.id == sid).values(updated_at=now, **values))
    insert_rows(conn, MESSAGE, all_messages)
    inserted = [u for usage in fresh_usage.values() for u in usage if not u.pop("_stored", False)]
    insert_rows(conn, USAGE, inserted)
    if replace_usage:
        _refresh_tokens(conn, fresh_usage)
    if ledger:
        conn.execute(
            insert(REDACTION),
            [{**entry, "run_id": run_id, "quarantine_id": None} for entry in ledger],
        )
    result.redactions = len(ledger)
    return result


def insert_rows(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Insert ``rows`` with one Core ``executemany`` per shape (the row's keys, in the
    order its builder gives them): one statement needs one shape, and a column left
    out is stored as SQL NULL."""
    shapes: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    for row in rows:
        shapes.setdefault(tuple(row), []).append(row)
    for shape in shapes.values():
        conn.execute(table.insert(), shape)


def write_quarantine(conn: Connection, rows: list[QuarantineRow], run_id: str) -> int:
    """Store quarantined lines and their ledgers; returns the redactions recorded."""
    redactions = 0
    for qrow, ledger in rows:
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
            redactions += len(ledger)
    return redactions


def save_file_states(conn: Connection, states: list[FileState], keys: PathKeys) -> None:
    """Remember how far each file was read (insert the new, update the known), each
    under its redacted path and the key that finds it again. A file stored under its
    own path before its path was known to hold a secret (older rules, or a folder
    named after a cwd not read yet) moves to its redacted path and digest key."""
    if not states:
        return
    stored = {(s.harness, s.path): keys.stored(s.path) for s in states}
    wanted = {key for _, key in stored.values()}
    wanted |= {path for (_, path), (_, key) in stored.items() if key != path}
    path_keys = sorted(wanted)
    known: set[tuple[str, str]] = set()
    for start in range(0, len(path_keys), IN_BATCH):
        part = path_keys[start : start + IN_BATCH]
        known.update(
            (r.harness, r.path_key)
            for r in conn.execute(
                select(SOURCE_FILE.c.harness, SOURCE_FILE.c.path_key).where(
                    SOURCE_FILE.c.path_key.in_(part)
                )
            )
        )
    fresh: list[dict[str, Any]] = []
    for state in states:
        shown, key = stored[(state.harness, state.path)]
        was = next((k for k in (key, state.path) if (state.harness, k) in known), None)
        if was is not None:
            where = (SOURCE_FILE.c.harness == state.harness) & (SOURCE_FILE.c.path_key == was)
            conn.execute(update(SOURCE_FILE).where(where).values(**state.row(shown, key)))
            known.discard((state.harness, was))
            known.add((state.harness, key))
        else:
            known.add((state.harness, key))
            fresh.append({**state.row(shown, key), "first_seen_at": state.imported_at})
    if fresh:
        conn.execute(insert(SOURCE_FILE), fresh)


def _fresh_usage(conn: Connection, batch: Batch, replace: bool) -> dict[str, list[dict[str, Any]]]:
    """Usage figures of the batch not stored yet, by session.

    Whole-file sources (Hermes) report a session's running totals under one
    key: there the latest read replaces the stored figure (marked ``_stored``).
    """
    keys = [u["usage_key"] for p in batch.sessions.values() for u in p.usage]
    stored = (
        _existing(conn, USAGE.c.usage_key, USAGE.c.harness == batch.harness, keys)
        if keys
        else set()
    )
    out: dict[str, list[dict[str, Any]]] = {}
    for sid, prepared in batch.sessions.items():
        for u in prepared.usage:
            if u["usage_key"] not in stored:
                # A response replayed in another file of the batch counts once: first wins.
                stored.add(u["usage_key"])
                out.setdefault(sid, []).append(u)
            elif replace:
                conn.execute(
                    update(USAGE)
                    .where(USAGE.c.harness == batch.harness, USAGE.c.usage_key == u["usage_key"])
                    .values(**{t: u[t] for t in TOKENS})
                )
                out.setdefault(sid, []).append({**u, "_stored": True})
    return out


def _refresh_tokens(conn: Connection, session_ids: Iterable[str]) -> None:
    """Recompute totals from the usage table (after a replace-by-latest)."""
    for sid in session_ids:
        sums = conn.execute(
            select(*(func.coalesce(func.sum(USAGE.c[t]), 0) for t in TOKENS)).where(
                USAGE.c.session_id == sid
            )
        ).one()
        conn.execute(
            update(SESSION)
            .where(SESSION.c.id == sid)
            .values(**dict(zip(TOKENS, sums, strict=True)))
        )
