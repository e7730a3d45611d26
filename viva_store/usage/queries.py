"""The two statements usage runs: the sessions in scope, and their usage rows per model.

The actor's scope is part of both (``attribution`` joined, :func:`member_scope`), as
for every read: a member's call never reads another member's sessions.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Select, func, select

from viva_store.access import Actor, member_scope
from viva_store.clock import as_utc
from viva_store.db.schema import ATTRIBUTION, SESSION, USAGE
from viva_store.usage.grouping import SessionUsage
from viva_store.usage.records import TOKEN_KINDS, Tokens

_COLUMNS = tuple(f"{kind}_tokens" for kind in TOKEN_KINDS)


def _scoped(actor: Actor, member: str | None, since: datetime | None) -> Select[Any]:
    query = select(
        SESSION.c.id,
        SESSION.c.started_at,
        SESSION.c.project,
        SESSION.c.cwd,
        SESSION.c.git_branch,
        SESSION.c.harness,
        ATTRIBUTION.c.status,
        ATTRIBUTION.c.member,
        *(SESSION.c[c] for c in _COLUMNS),
    ).select_from(SESSION.outerjoin(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id))
    if not actor.is_owner:
        query = query.where(
            ATTRIBUTION.c.status == "attributed", member_scope(actor, ATTRIBUTION.c.member)
        )
    if member is not None:
        query = query.where(ATTRIBUTION.c.status == "attributed", ATTRIBUTION.c.member == member)
    if since is not None:
        query = query.where(SESSION.c.started_at >= since)
    return query


def _per_model(ids: Any) -> Select[Any]:
    return (
        select(USAGE.c.session_id, USAGE.c.model, *(func.sum(USAGE.c[c]) for c in _COLUMNS))
        .where(USAGE.c.session_id.in_(ids))
        .group_by(USAGE.c.session_id, USAGE.c.model)
    )


def session_usage(
    conn: Connection, actor: Actor, member: str | None, since: datetime | None
) -> list[SessionUsage]:
    """Every session in scope with its stored totals and its usage rows' tokens per model."""
    scoped = _scoped(actor, member, since)
    ids = select(scoped.subquery().c.id)
    split: dict[str, list[tuple[str | None, Tokens]]] = {}
    for row in conn.execute(_per_model(ids)):
        counts: Sequence[Any] = row[2:]
        split.setdefault(row.session_id, []).append(
            (row.model, Tokens(*(int(n or 0) for n in counts)))
        )
    out = []
    for row in conn.execute(scoped.order_by(SESSION.c.id)):
        attributed = row.status == "attributed"
        out.append(
            SessionUsage(
                id=row.id,
                started_at=as_utc(row.started_at) if row.started_at else None,
                project=row.project or row.cwd,
                branch=row.git_branch,
                harness=row.harness,
                member=row.member if attributed else None,
                tokens=Tokens(*(int(row._mapping[c] or 0) for c in _COLUMNS)),
                by_model=tuple(split.get(row.id, ())),
            )
        )
    return out
