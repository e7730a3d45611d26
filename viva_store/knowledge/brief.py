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

from viva_store.access import require_self_or_owner
from viva_store.clock import as_utc
from viva_store.db.schema import EXECUTION
from viva_store.engagement.service import current_state
from viva_store.errors import InvalidInput
from viva_store.knowledge.load import to_records
from viva_store.knowledge.model import Engagement, Item, Task
from viva_store.knowledge.records import KnowledgeRecord
from viva_store.knowledge.service import task_items
from viva_store.members.roster import get_member
from viva_store.records import JsonRecord
from viva_store.registry import reader
from viva_store.store import Context

MAX_TASK = 2000
_WORD = re.compile(r"[^\W_]{3,}")


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
    """A task brief; ``knowledge`` holds the related items, ``knowledge_more`` how many
    other items the task may see but are less related."""

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
    return {w.lower() for w in _WORD.findall(text)}


def related(items: list[Item], task: Task, limit: int) -> tuple[list[Item], int]:
    """The items most related to the task: shared words first, then importance; items the
    task's project or pattern activated count as related."""
    wanted = words_of(task.text)

    def score(item: Item) -> float:
        overlap = len(wanted & words_of(f"{item.summary} {item.body}"))
        activated = 1 if (item.task_pattern or item.project) else 0
        return overlap + activated

    scored = [(score(i), i) for i in items]
    kept = [p for p in scored if p[0] > 0]
    kept.sort(key=lambda p: (-p[0], -p[1].importance, p[1].id))
    chosen = [i for _, i in kept[:limit]]
    return chosen, len(items) - len(chosen)


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
        items = task_items(conn, ctx, member, spec, Engagement(state.domain, state.project))
        chosen, more = related(items, spec, limit)
        return _attempts(conn, member, task), to_records(conn, ctx, chosen), more

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
