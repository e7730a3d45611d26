"""Reading knowledge items and their events in one transaction, within the actor's scope.

A member-scoped read loads, inside the query, only what some task of that member could
see: its own items, the shared kinds, and project knowledge of the projects asked for.
The exact rule is then :func:`viva_store.knowledge.model.for_task`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from sqlalchemy import ColumnElement, Connection, and_, or_, select, true

from viva_store.clock import as_utc
from viva_store.db.schema import KNOWLEDGE_EVENT, KNOWLEDGE_ITEM, KNOWLEDGE_STATE
from viva_store.knowledge.model import (
    ADMITTED,
    CANDIDATE,
    PROJECT,
    SELF_MODEL,
    SHARED_KINDS,
    SUPERSEDED,
    Event,
    Glance,
    Item,
    Source,
    words,
)
from viva_store.knowledge.records import KnowledgeEventRecord, KnowledgeRecord
from viva_store.sessions.service import visible_session_ids
from viva_store.store import Context

K = KNOWLEDGE_ITEM.c


def scope(ctx: Context, projects: Sequence[str] = (), c: Any = K) -> ColumnElement[bool]:
    """The rows a call may load: everything for the owner; for a member, what its tasks
    in ``projects`` could see and what it proposed or owns itself. ``c``: the columns of
    ``knowledge_item`` or ``knowledge_state``."""
    if ctx.actor.is_owner:
        return true()
    who = ctx.actor.member
    parts: list[ColumnElement[bool]] = [c.member == who, c.kind.in_(sorted(SHARED_KINDS))]
    if projects:
        parts.append(and_(c.kind == PROJECT, c.project.in_(sorted(set(projects)))))
    return or_(*parts)


def _item(row: Any, events: Sequence[Event]) -> Item:
    return Item(
        id=row.id,
        member=row.member,
        kind=row.kind,
        project=row.project,
        domain=row.domain,
        task_pattern=row.task_pattern,
        summary=row.summary,
        body=row.body,
        reason=row.reason,
        evidence=row.evidence,
        sources=tuple(Source(s["session"], s.get("seq")) for s in row.sources),
        importance=float(row.importance),
        why=row.why,
        confidence=row.confidence,
        occurred_at=as_utc(row.occurred_at),
        flags=tuple(row.flags),
        proposed_by=row.proposed_by,
        created_at=as_utc(row.created_at),
        events=tuple(events),
    )


def load(
    conn: Connection,
    ctx: Context,
    projects: Sequence[str] = (),
    ids: Iterable[str] | None = None,
    member: str | None = None,
    mentioning: Iterable[str] = (),
) -> list[Item]:
    """Items within the actor's scope, oldest first, each with its events. ``mentioning``:
    only items whose summary or body contains one of these words (case aside)."""
    query = select(KNOWLEDGE_ITEM).where(scope(ctx, projects))
    words = sorted({w for w in mentioning if w})
    if words:

        def like(w: str) -> str:
            return "%" + w.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"

        query = query.where(
            or_(*(c.ilike(like(w), escape="\\") for w in words for c in (K.summary, K.body)))
        )
    if ids is not None:
        query = query.where(K.id.in_(sorted(set(ids))))
    if member is not None:
        query = query.where(K.member == member)
    rows = list(conn.execute(query.order_by(K.created_at, K.id)))
    if not rows:
        return []
    events: dict[str, list[Event]] = {r.id: [] for r in rows}
    E = KNOWLEDGE_EVENT.c
    wanted = list(events)
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        for e in conn.execute(select(KNOWLEDGE_EVENT).where(E.item_id.in_(part)).order_by(E.id)):
            events[e.item_id].append(
                Event(e.id, e.action, e.actor, as_utc(e.at), e.reason, e.session_id, e.other_id)
            )
    return [_item(r, events[r.id]) for r in rows]


def glances(
    conn: Connection, ctx: Context, project: str | None, words: Iterable[str] = ()
) -> list[Glance]:
    """The live items in the actor's scope (admitted, or a recorded self-model hypothesis)
    that a task in ``project`` (``None``: in none) is not shut out of by their own
    project, as glances, read from ``knowledge_state``. ``words``: only items whose
    summary contains one of them, or that a project or pattern activates (all of them when
    a word is not ASCII, whose case the engines do not fold as Python does). Each condition
    is one :func:`~viva_store.knowledge.model.for_task` implies; that function decides."""
    S = KNOWLEDGE_STATE.c
    live = or_(S.status == ADMITTED, and_(S.kind == SELF_MODEL, S.status == CANDIDATE))
    own_project = [S.project.is_(None), S.project == ""] + (
        [S.project == project] if project else []
    )
    # the cheap tests first: SQLite stops at the first that fails
    conditions = [live, scope(ctx, [project] if project else [], S), or_(*own_project)]
    wanted = sorted(set(words))
    if wanted and all(w.isascii() for w in wanted):
        conditions.append(
            or_(
                S.project.is_not(None),
                S.task_pattern.is_not(None),
                *(_contains(conn, S.summary, w) for w in wanted),
            )
        )
    query = select(
        S.item_id, S.member, S.kind, S.project, S.domain, S.task_pattern, S.status,
        S.summary, S.importance,
    ).where(*conditions)  # fmt: skip
    return [Glance(*r) for r in conn.execute(query)]


def _contains(conn: Connection, column: ColumnElement[str], word: str) -> ColumnElement[bool]:
    """``column`` may contain ``word`` (lower-case ASCII letters and digits, no wildcard),
    case aside: a superset of what Python's ``str.lower`` finds. The engines fold only
    ASCII case, and the one other character that lowers to ASCII (the Kelvin sign, to
    ``k``) is let through by ``_``. SQLite's LIKE ignores ASCII case already: ``ilike``
    there would only add ``lower()`` of both sides, per row."""
    pattern = "%" + word.replace("k", "_") + "%"
    return column.like(pattern) if conn.dialect.name == "sqlite" else column.ilike(pattern)


def to_records(
    conn: Connection, ctx: Context, items: Sequence[Item], history: bool = False
) -> list[KnowledgeRecord]:
    """Records of ``items``, leaving out sessions the actor cannot see."""
    cited = {s.session for i in items for s in i.sources}
    cited |= {u.session for i in items for u in i.uses if u.session}
    seen = cited if ctx.actor.is_owner else visible_session_ids(conn, ctx, cited)
    out = []
    for item in items:
        sources = tuple(s.ref() for s in item.sources if s.session in seen)
        superseded = item.last(SUPERSEDED) if item.status == SUPERSEDED else None
        ended = item.events[-1].at if item.status in ("retracted", SUPERSEDED) else None
        out.append(
            KnowledgeRecord(
                id=item.id,
                member=item.member,
                kind=item.kind,
                summary=item.summary,
                status=item.status,
                reason=item.reason,
                sources=sources,
                uses=len(item.uses),
                importance=item.importance,
                project=item.project,
                words=words(item),
                body=item.body,
                evidence=item.evidence,
                why=item.why,
                confidence=item.confidence,
                domain=item.domain,
                task_pattern=item.task_pattern,
                occurred_at=item.occurred_at,
                invalidated_at=ended,
                superseded_by=superseded.other if superseded else None,
                flags=item.flags,
                proposed_by=item.proposed_by,
                created_at=item.created_at,
                used_in=tuple(u.session for u in item.uses if u.session in seen),
                sources_hidden=len(item.sources) - len(sources),
                history=tuple(
                    KnowledgeEventRecord(
                        e.id, e.action, e.actor, e.at, e.reason, e.session, e.other
                    )
                    for e in item.events
                )
                if history
                else (),
            )
        )
    return out


def lock(conn: Connection, item_id: str) -> None:
    """Hold the item's row until the transaction ends (PostgreSQL), serializing decisions."""
    conn.execute(select(K.id).where(K.id == item_id).with_for_update())
