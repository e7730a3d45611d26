"""A session's lineage: its parent, the original a copy or continuation repeats, its
sub-agent sessions and its other children (forks, branches, continuations, copies).

Links are stored as the parent's native id on the child (``parent_native_id`` with a
``relation``); only sessions the actor may see are returned.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy import Connection, and_, or_

from viva_store.db.schema import SESSION
from viva_store.records import JsonRecord, SessionRecord
from viva_store.store import Context

COPY_RELATIONS = ("copy_of", "continues", "continuation")
"""Relations that make the parent the session's original rather than its parent."""

SUBAGENT = "subagent"


@dataclass(frozen=True, slots=True)
class RelatedSessions(JsonRecord):
    """What ``session show`` lists around a session."""

    parent: SessionRecord | None
    original: SessionRecord | None
    subagents: tuple[SessionRecord, ...]
    children: tuple[SessionRecord, ...]

    def to_json(self) -> dict[str, object]:
        def brief(s: SessionRecord | None) -> dict[str, object] | None:
            if s is None:
                return None
            return {k: s.to_json()[k] for k in ("id", "harness", "native_id", "relation", "title")}

        return {
            "parent": brief(self.parent),
            "original": brief(self.original),
            "subagents": [brief(s) for s in self.subagents],
            "children": [brief(s) for s in self.children],
        }


def children_of(
    conn: Connection, ctx: Context, sessions: Iterable[SessionRecord]
) -> dict[str, list[SessionRecord]]:
    """The visible child sessions of each of ``sessions`` (by Viva id), oldest first."""
    from viva_store.sessions.service import _base, _record

    wanted = {(s.harness, s.native_id): s.id for s in sessions}
    out: dict[str, list[SessionRecord]] = {sid: [] for sid in wanted.values()}
    pairs = sorted(wanted)
    for start in range(0, len(pairs), 200):
        part = pairs[start : start + 200]
        cond = or_(
            *(and_(SESSION.c.harness == h, SESSION.c.parent_native_id == n) for h, n in part)
        )
        query = _base(ctx).where(cond).order_by(SESSION.c.started_at, SESSION.c.id)
        for row in conn.execute(query):
            out[wanted[(row.harness, row.parent_native_id)]].append(_record(row))
    return out


def related(conn: Connection, ctx: Context, session: SessionRecord) -> RelatedSessions:
    """``session``'s parent or original and its children, as far as the actor may see."""
    from viva_store.sessions.service import _base, _record

    linked: SessionRecord | None = None
    if session.parent_id is not None:
        row = conn.execute(_base(ctx).where(SESSION.c.id == session.parent_id)).first()
        linked = _record(row) if row is not None else None
    is_copy = session.relation in COPY_RELATIONS
    kids = children_of(conn, ctx, [session])[session.id]
    return RelatedSessions(
        parent=None if is_copy else linked,
        original=linked if is_copy else None,
        subagents=tuple(k for k in kids if k.relation == SUBAGENT),
        children=tuple(k for k in kids if k.relation != SUBAGENT),
    )
