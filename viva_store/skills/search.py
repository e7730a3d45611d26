"""Searching the team library mid-session: the skills a projection left out stay findable.

A projection puts at most ten skills into a session (DESIGN §3); a member looking for
another one searches the library with the projection's own relevance — BM25 over name,
description and tags (:func:`viva_store.skills.rank.bm25`) — and reads the one that fits
with ``viva skill show``. Only skills that match a word of the query are returned.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from viva_store.access import require_self_or_owner
from viva_store.db.schema import MEMBER_SKILL, SKILL
from viva_store.errors import InvalidInput
from viva_store.registry import reader
from viva_store.skills.rank import Doc, bm25
from viva_store.skills.records import SkillMatch
from viva_store.store import Context

MAX_LIMIT = 50
MAX_QUERY = 2_000
"""Longer queries are cut, as a projection cuts a long task (a search never fails on one)."""


@reader
def search_skills(
    ctx: Context, query: str, member: str | None = None, limit: int = 10
) -> list[SkillMatch]:
    """Team skills that match ``query``, most relevant first (then by name).

    ``member`` (default: the member acting) is whose set the ``set_status`` of each match
    comes from; the owner acting alone gets ``None`` there. A member may ask only for
    itself.
    """
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"limit: between 1 and {MAX_LIMIT}, got {limit}")
    member = member if member is not None else ctx.actor.member
    if member is not None:
        require_self_or_owner(ctx.actor, member, "search skills")

    def work(conn: Connection) -> tuple[list[Doc], dict[str, str | None], dict[str, str]]:
        rows = list(
            conn.execute(
                select(SKILL.c.name, SKILL.c.description, SKILL.c.tags, SKILL.c.derived_from)
            )
        )
        statuses: dict[str, str] = {}
        if member is not None:
            owned = select(MEMBER_SKILL.c.skill, MEMBER_SKILL.c.status).where(
                MEMBER_SKILL.c.member == member
            )
            statuses = {r.skill: r.status for r in conn.execute(owned)}
        docs = [Doc(r.name, r.description, tuple(r.tags or ())) for r in rows]
        return docs, {r.name: r.derived_from for r in rows}, statuses

    docs, derived, statuses = ctx.store.read(work)
    scores = bm25(query[:MAX_QUERY], docs)
    found = sorted(
        (d for d in docs if scores.get(d.name, 0.0) > 0), key=lambda d: (-scores[d.name], d.name)
    )
    return [
        SkillMatch(
            name=d.name,
            description=d.description,
            tags=d.tags,
            derived_from=derived[d.name],
            relevance=scores[d.name],
            set_status=statuses.get(d.name),
        )
        for d in found[:limit]
    ]
