"""Keeping recall's derived data current: the full-text index and per-session importance.

:func:`refresh` brings everything up to date and is cheap when nothing
changed. It runs at the end of an import (bulk: every new message in chunks
of ``CHUNK`` ids, one short write transaction each) and, lazily, before a
recall query finds work pending (incremental) — so a search never misses a
message that is stored, even after an import that stopped half-way.

What it maintains (all derived, all rebuildable by :func:`rebuild`):

* the message index (SQLite; PostgreSQL's expression index needs nothing),
  up to the ``messages`` watermark in ``recall_state``;
* one ``recall_session`` row per session: the indexed title, the count of
  tool errors, whether a principle cites the session, the owner's latest
  mark, and the importance derived from them
  (:func:`viva_store.recall.ranking.importance`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Connection, bindparam, case, func, insert, select, update

from viva_store.access import require_owner
from viva_store.db.schema import (
    MESSAGE,
    PRINCIPLE_VERSION,
    RECALL_MARK,
    RECALL_SESSION,
    RECALL_STATE,
    SESSION,
)
from viva_store.recall import fts, fts_keys
from viva_store.recall.ranking import ImportanceSignals, importance
from viva_store.store import Context

CHUNK = 500_000
IN_BATCH = 500
WATERMARK = "messages"
PRINCIPLES = "principle_versions"
_SESSION_REF = re.compile(r"\bs[0-9a-f]{12}\b")


@dataclass(slots=True)
class RefreshReport:
    """What a refresh did."""

    messages_indexed: int = 0
    sessions_refreshed: int = 0
    titles_changed: int = 0
    chunks: int = 0
    touched: set[str] = field(default_factory=set)


def _chunks(values: list[Any]) -> Iterable[list[Any]]:
    for start in range(0, len(values), IN_BATCH):
        yield values[start : start + IN_BATCH]


def _get(conn: Connection, name: str) -> int:
    value = conn.execute(select(RECALL_STATE.c.value).where(RECALL_STATE.c.name == name)).scalar()
    return int(value or 0)


def _set(conn: Connection, name: str, value: int) -> None:
    if conn.execute(select(RECALL_STATE.c.name).where(RECALL_STATE.c.name == name)).first() is None:
        conn.execute(insert(RECALL_STATE).values(name=name, value=value))
    else:
        conn.execute(update(RECALL_STATE).where(RECALL_STATE.c.name == name).values(value=value))


def pending(conn: Connection) -> bool:
    """Whether :func:`refresh` has anything to do (one statement of cheap counts)."""

    def state(name: str) -> Any:
        return select(RECALL_STATE.c.value).where(RECALL_STATE.c.name == name).scalar_subquery()

    row = conn.execute(
        select(
            select(func.max(MESSAGE.c.id)).scalar_subquery(),
            state(WATERMARK),
            select(func.count()).select_from(SESSION).scalar_subquery(),
            select(func.count()).select_from(RECALL_SESSION).scalar_subquery(),
            select(func.count()).select_from(PRINCIPLE_VERSION).scalar_subquery(),
            state(PRINCIPLES),
        )
    ).one()
    top, mark, sessions, rows, principles, cited = (int(v or 0) for v in row)
    return top > mark or sessions != rows or principles != cited


def _ensure_rows(conn: Connection, ids: Iterable[str] | None) -> None:
    """A ``recall_session`` row for these sessions (all sessions when None)."""
    missing = select(SESSION.c.id).where(~SESSION.c.id.in_(select(RECALL_SESSION.c.session_id)))
    if ids is None:
        fresh = list(conn.execute(missing).scalars())
    else:
        wanted = sorted(set(ids))
        fresh = []
        for part in _chunks(wanted):
            fresh += list(conn.execute(missing.where(SESSION.c.id.in_(part))).scalars())
    if fresh:
        conn.execute(
            insert(RECALL_SESSION),
            [
                {
                    "session_id": sid,
                    "title": None,
                    "message_count": 0,
                    "tool_errors": 0,
                    "cited": False,
                    "marked": None,
                    "importance": 0.0,
                    "reason": "",
                }
                for sid in fresh
            ],
        )


def _index_chunk(conn: Connection, report: RefreshReport) -> bool:
    """Index the next chunk of messages; False when there is none."""
    fts.hold_message_writes(conn)
    after = _get(conn, WATERMARK)
    top = conn.execute(select(func.max(MESSAGE.c.id))).scalar() or 0
    if top <= after:
        return False
    upto = min(top, after + CHUNK)
    errors = func.sum(case((MESSAGE.c.kind == "tool_error", 1), else_=0))
    rows = list(
        conn.execute(
            select(MESSAGE.c.session_id, errors.label("errors"))
            .where(MESSAGE.c.id > after, MESSAGE.c.id <= upto)
            .group_by(MESSAGE.c.session_id)
        )
    )
    _ensure_rows(conn, [r.session_id for r in rows])  # the index refers to them (SQLite)
    if conn.dialect.name == "sqlite":  # PostgreSQL's GIN indexes keep themselves current
        report.messages_indexed += fts_keys.index_messages(conn, after, upto)
    bumps = [{"sid": r.session_id, "n": int(r.errors or 0)} for r in rows if r.errors]
    if bumps:
        conn.execute(
            update(RECALL_SESSION)
            .where(RECALL_SESSION.c.session_id == bindparam("sid"))
            .values(tool_errors=RECALL_SESSION.c.tool_errors + bindparam("n")),
            bumps,
        )
    report.touched.update(r.session_id for r in rows)
    report.chunks += 1
    _set(conn, WATERMARK, upto)
    return True


def _cited_sessions(conn: Connection) -> set[str]:
    refs: set[str] = set()
    for evidence in conn.execute(select(PRINCIPLE_VERSION.c.evidence)).scalars():
        for item in evidence or []:
            refs.update(_SESSION_REF.findall(str(item)))
    return refs


def _sync_sessions(conn: Connection, report: RefreshReport) -> None:
    """Rows for every session, changed titles, citations, and importance where it moved."""
    _ensure_rows(conn, None)
    report.titles_changed += fts.index_new_titles(conn)
    title = (
        select(SESSION.c.title).where(SESSION.c.id == RECALL_SESSION.c.session_id).scalar_subquery()
    )
    conn.execute(update(RECALL_SESSION).where(RECALL_SESSION.c.title.is_(None)).values(title=title))
    retitled = conn.execute(
        select(
            RECALL_SESSION.c.key,
            RECALL_SESSION.c.session_id,
            RECALL_SESSION.c.title,
            SESSION.c.title.label("new"),
        )
        .join(SESSION, SESSION.c.id == RECALL_SESSION.c.session_id)
        .where(RECALL_SESSION.c.title.is_distinct_from(SESSION.c.title))
    )
    for row in list(retitled):
        fts.retitle(conn, row.key, row.title, row.new)
        conn.execute(
            update(RECALL_SESSION).where(RECALL_SESSION.c.key == row.key).values(title=row.new)
        )
        report.titles_changed += 1
    principles = conn.execute(select(func.count()).select_from(PRINCIPLE_VERSION)).scalar() or 0
    if principles != _get(conn, PRINCIPLES):
        cited = _cited_sessions(conn)
        flips = [
            {"sid": row.session_id, "c": not row.cited}
            for row in conn.execute(select(RECALL_SESSION.c.session_id, RECALL_SESSION.c.cited))
            if bool(row.cited) != (row.session_id in cited)
        ]
        if flips:
            conn.execute(
                update(RECALL_SESSION)
                .where(RECALL_SESSION.c.session_id == bindparam("sid"))
                .values(cited=bindparam("c")),
                flips,
            )
            report.touched.update(f["sid"] for f in flips)
        _set(conn, PRINCIPLES, int(principles))
    new_rows = conn.execute(
        select(RECALL_SESSION.c.session_id).where(RECALL_SESSION.c.reason == "")
    ).scalars()
    report.touched.update(new_rows)
    report.sessions_refreshed += reweigh(conn, report.touched)


def reweigh(conn: Connection, session_ids: Iterable[str]) -> int:
    """Recompute the importance of these sessions from their signals; returns how many."""
    ids = sorted(set(session_ids))
    changes = []
    for part in _chunks(ids):
        rows = conn.execute(
            select(
                RECALL_SESSION.c.session_id,
                RECALL_SESSION.c.marked,
                RECALL_SESSION.c.cited,
                RECALL_SESSION.c.tool_errors,
                SESSION.c.message_count,
            )
            .join(SESSION, SESSION.c.id == RECALL_SESSION.c.session_id)
            .where(RECALL_SESSION.c.session_id.in_(part))
        )
        for row in rows:
            value, reason = importance(
                ImportanceSignals(row.marked, bool(row.cited), row.message_count, row.tool_errors)
            )
            changes.append({"sid": row.session_id, "v": value, "r": reason, "n": row.message_count})
    if changes:
        conn.execute(
            update(RECALL_SESSION)
            .where(RECALL_SESSION.c.session_id == bindparam("sid"))
            .values(importance=bindparam("v"), reason=bindparam("r"), message_count=bindparam("n")),
            changes,
        )
    return len(changes)


def refresh(ctx: Context) -> RefreshReport:
    """Index every stored message and bring per-session importance up to date."""
    report = RefreshReport()
    while ctx.store.write(lambda c: _index_chunk(c, report)):
        pass
    ctx.store.write(lambda c: _sync_sessions(c, report))
    return report


def refresh_if_pending(ctx: Context) -> RefreshReport | None:
    """:func:`refresh` when :func:`pending` says so (the lazy path before a query)."""
    if not ctx.store.read(pending):
        return None
    return refresh(ctx)


def rebuild(ctx: Context) -> RefreshReport:
    """Owner: throw the derived data away and build it again from the stored sessions."""
    require_owner(ctx.actor, "rebuild the recall index")
    reset(ctx)
    return refresh(ctx)


def reset(ctx: Context) -> None:
    """Owner: empty the derived data (indexes, importance); the next refresh rebuilds it."""
    require_owner(ctx.actor, "reset the recall index")

    def work(conn: Connection) -> None:
        fts.clear(conn)
        conn.execute(RECALL_SESSION.delete())
        conn.execute(RECALL_STATE.delete())
        _ensure_rows(conn, None)
        newest = (
            select(RECALL_MARK.c.session_id, func.max(RECALL_MARK.c.id).label("id")).group_by(
                RECALL_MARK.c.session_id
            )
        ).subquery()
        for row in conn.execute(select(RECALL_MARK).join(newest, RECALL_MARK.c.id == newest.c.id)):
            conn.execute(
                update(RECALL_SESSION)
                .where(RECALL_SESSION.c.session_id == row.session_id)
                .values(marked=row.importance)
            )

    ctx.store.write(work)
