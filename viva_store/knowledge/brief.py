"""The task brief: what a member needs before it starts (temporal model §7).

Goal, constraints (the member's principles in force), what was tried and why it failed,
outputs and what is unfinished (the member's earlier launches of the same task), and the
related knowledge :func:`~viva_store.knowledge.model.for_task` allows, each item with its
provenance. Dynamic facts are not stored: the launches are read as they are now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, func, select

from viva_store.access import Actor, require_self_or_owner
from viva_store.clock import as_utc
from viva_store.db.schema import EXECUTION
from viva_store.engagement.service import current_state
from viva_store.errors import InvalidInput
from viva_store.knowledge.load import glances, load, to_records
from viva_store.knowledge.model import Engagement, Glance, Task, for_task
from viva_store.knowledge.records import KnowledgeRecord
from viva_store.members.roster import get_member
from viva_store.records import JsonRecord
from viva_store.registry import reader
from viva_store.store import Context

MAX_TASK = 2000
_WORD = re.compile(r"[^\W_]{3,}")
_COMMON = frozenset(
    [
        "the",
        "and",
        "for",
        "with",
        "from",
        "into",
        "this",
        "that",
        "then",
        "than",
        "when",
        "what",
        "which",
        "who",
        "how",
        "are",
        "was",
        "were",
        "has",
        "have",
        "had",
        "not",
        "but",
        "all",
        "any",
        "can",
        "our",
        "its",
        "out",
        "you",
        "your",
    ]
)


@dataclass(frozen=True, slots=True)
class Attempt(JsonRecord):
    """An earlier launch of the same task, as its execution record says now."""

    execution: str
    harness: str
    started_at: datetime
    ended_at: datetime | None
    outcome: str | None
    why: str
    session: str | None


@dataclass(frozen=True, slots=True)
class BriefRecord(JsonRecord):
    """A task brief; ``knowledge`` holds the most related items, ``knowledge_more`` how
    many more related ones the limit left out."""

    member: str
    task: str
    project: str | None
    goal: str
    constraints: tuple[str, ...]
    tried: tuple[Attempt, ...]
    outputs: tuple[Attempt, ...]
    unfinished: tuple[Attempt, ...]
    knowledge: tuple[KnowledgeRecord, ...]
    knowledge_more: int


def words_of(text: str) -> set[str]:
    """The words a task and an item are compared by (three letters or more, not the
    commonest English ones)."""
    return {w for w in (m.lower() for m in _WORD.findall(text)) if w not in _COMMON}


def related(items: list[Glance], task: Task, limit: int) -> tuple[list[Glance], int]:
    """The items most related to the task: words shared with their summaries first, then
    importance; an item the task's project or pattern activated counts as related."""
    wanted = words_of(task.text)

    def score(item: Glance) -> int:
        overlap = len(wanted & words_of(item.summary))
        return overlap + (1 if (item.task_pattern or item.project) else 0)

    kept = [(s, i) for i in items if (s := score(i)) > 0]
    kept.sort(key=lambda p: (-p[0], -p[1].importance, p[1].id))
    chosen = [i for _, i in kept[:limit]]
    return chosen, len(kept) - len(chosen)


def _attempts(conn: Connection, member: str, task: str) -> list[Attempt]:
    E = EXECUTION.c
    rows = conn.execute(
        select(EXECUTION)
        .where(E.member == member, func.lower(func.trim(E.task)) == task.strip().lower())
        .order_by(E.started_at)
    )
    out = []
    for r in rows:
        why = ""
        if r.outcome == "failure":
            why = f"exit status {r.exit_status}" if r.exit_status is not None else "failed"
        elif r.ended_at is None:
            why = "not finished"
        out.append(
            Attempt(
                r.id,
                r.harness,
                as_utc(r.started_at),
                as_utc(r.ended_at) if r.ended_at else None,
                r.outcome,
                why,
                r.native_session_id,
            )
        )
    return out


def brief_limit(ctx: Context) -> int:
    try:
        return int(ctx.store.config.section("knowledge").get("brief_limit", 10))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"config [knowledge] brief_limit: {exc}") from None


@reader
def brief(ctx: Context, member: str, task: str, project: str | None = None) -> BriefRecord:
    """The brief of ``member``'s ``task`` (the member itself or the owner may ask)."""
    get_member(ctx, member)
    require_self_or_owner(ctx.actor, member, "read a task brief")
    task = task.strip()
    if not task:
        raise InvalidInput("the task is empty (--task TEXT)")
    task = task[:MAX_TASK]
    project = (project.strip() or None) if project is not None else None
    limit = brief_limit(ctx)
    from viva_store.principles.service import active_principles

    constraints = tuple(p.text for p in active_principles(ctx, member))

    def work(conn: Connection) -> tuple[list[Attempt], list[KnowledgeRecord], int]:
        state = current_state(conn, member)
        spec = Task(member, task, project)
        seer = ctx.as_actor(Actor(member=member))  # the task's member decides what it sees
        seen = glances(conn, seer, project, words_of(task))
        allowed = for_task(seen, spec, Engagement(state.domain, state.project))
        chosen, more = related(allowed, spec, limit)
        order = {g.id: n for n, g in enumerate(chosen)}
        found = load(conn, seer, [project] if project else [], ids=order)
        items = sorted(found, key=lambda i: order[i.id])
        return _attempts(conn, member, task), to_records(conn, ctx, items), more

    attempts, knowledge, more = ctx.store.read(work)
    return BriefRecord(
        member=member,
        task=task,
        project=project,
        goal=task,
        constraints=constraints,
        tried=tuple(a for a in attempts if a.outcome == "failure"),
        outputs=tuple(a for a in attempts if a.outcome == "success"),
        unfinished=tuple(a for a in attempts if a.ended_at is None),
        knowledge=tuple(knowledge),
        knowledge_more=more,
    )
