"""Projection: what a new session of a member would get for a task (DESIGN §3, §4).

At most ``projection_limit`` (10) skills of the member's set, relevance to the task
first — BM25 over each skill's name, description and tags, with the team library as the
collection (:mod:`viva_store.skills.rank`) — weight second; every pick explained, and
the next ones too (why they were left out). The member's active principles join the
projection. Each pick is logged as a ``projected`` event; a projection never changes a
weight and is never a use. Forgetting is settled first, like any read of the set.
"""

from __future__ import annotations

import hashlib
from typing import Any

from sqlalchemy import Connection, insert, select

from viva_store.access import require_self_or_owner
from viva_store.db.schema import MEMBER, SKILL, SKILL_EVENT
from viva_store.errors import InvalidInput, NotFound
from viva_store.principles.service import active_principles
from viva_store.registry import reader
from viva_store.skills.axis import position_at
from viva_store.skills.events import EVENT_FIELDS, actor_name, day_of, skill_params
from viva_store.skills.forget import settle
from viva_store.skills.rank import Candidate, Choice, Doc, bm25, choose
from viva_store.skills.records import ProjectedSkill, Projection
from viva_store.store import Context

MAX_TASK = 20_000
"""Longer task texts are cut (a projection never fails on a long task)."""


@reader
def project(
    ctx: Context,
    member: str,
    task: str,
    limit: int | None = None,
    record: bool = True,
    project: str | None = None,
) -> Projection:
    """The skills (and principles) a session of ``member`` would get for ``task``.

    ``limit`` defaults to the configured ``projection_limit`` and cannot exceed it.
    ``record`` False (a dry run, e.g. ``viva launch --dry-run``) rolls back everything it
    would write: nothing is logged and no forget is applied. The owner, or the member
    itself, may ask. ``project``: the task's project, for the brief's knowledge section.
    """
    require_self_or_owner(ctx.actor, member, "project skills")
    params = skill_params(ctx.store.config.section("skills"))
    cap = params.projection_limit if limit is None else limit
    if not 0 <= cap <= params.projection_limit:
        raise InvalidInput(f"limit: between 0 and {params.projection_limit}, got {limit}")
    task = task[:MAX_TASK]
    now = ctx.store.now()

    def work(conn: Connection) -> tuple[list[Choice], list[Choice], int, dict[str, str]]:
        if conn.execute(select(MEMBER.c.name).where(MEMBER.c.name == member)).first() is None:
            raise NotFound(f"no member named {member!r} (see `viva members`)")
        settled = settle(conn, params, now, member)
        library = list(conn.execute(select(SKILL.c.name, SKILL.c.description, SKILL.c.tags)))
        descriptions = {r.name: r.description for r in library}
        docs = [Doc(r.name, r.description, tuple(r.tags or ())) for r in library]
        scores = bm25(task, docs)
        candidates = [
            Candidate(name, scores.get(name, 0.0), settled.weight(name, params))
            for name, state in settled.states.items()
            if state.status == "active"
        ]
        picks, left = choose(candidates, cap)
        if record and picks:
            digest = hashlib.sha256(task.encode()).hexdigest()
            pos = position_at(conn, member, now)
            base = dict.fromkeys(EVENT_FIELDS)
            base.update(
                member=member,
                kind="projected",
                session_pos=float(pos),
                day=day_of(now),
                at=now,
                actor=actor_name(ctx.actor.member),
                reason="viva project",
            )
            rows = [
                {
                    **base,
                    "skill": pick.name,
                    "basis": {
                        "rank": pick.rank,
                        "relevance": pick.relevance,
                        "weight": pick.weight,
                        "task_sha256": digest,
                    },
                }
                for pick in picks
            ]
            conn.execute(insert(SKILL_EVENT), rows)  # one round trip for all the picks
        return picks, left, len(candidates), descriptions

    if record:
        picks, left, count, descriptions = ctx.store.write(work)
    else:
        picks, left, count, descriptions = ctx.store.write(_dry(work))
    principles: list[Any] = active_principles(ctx, member)
    knowledge: tuple[dict[str, Any], ...] = ()
    if task.strip():
        from viva_store.knowledge.service import brief

        knowledge = tuple(r.to_json() for r in brief(ctx, member, task, project).knowledge)
    return Projection(
        member=member,
        task=task,
        limit=cap,
        candidates=count,
        skills=tuple(_record(c, descriptions) for c in picks),
        not_picked=tuple(_record(c, descriptions) for c in left),
        principles=tuple(p.to_json() for p in principles),
        knowledge=knowledge,
        project=project,
    )


def _dry(work: Any) -> Any:
    """Run ``work`` and roll its writes back (a dry run leaves the store as it was)."""

    class _Rollback(Exception):
        def __init__(self, result: Any) -> None:
            self.result = result

    def wrapped(conn: Connection) -> Any:
        raise _Rollback(work(conn))

    def run(conn: Connection) -> Any:
        try:
            with conn.begin_nested():
                wrapped(conn)
        except _Rollback as done:
            return done.result
        raise AssertionError("unreachable")

    return run


def _record(choice: Choice, descriptions: dict[str, str]) -> ProjectedSkill:
    return ProjectedSkill(
        name=choice.name,
        rank=choice.rank,
        relevance=choice.relevance,
        weight=choice.weight,
        picked=choice.picked,
        reason=choice.reason,
        description=descriptions.get(choice.name, ""),
    )
