"""Knowledge (DESIGN §5a): the curated layer between experience and skills.

Read functions here go through one visibility rule: a member sees its own items, and
of the others what a task of its own could see (:func:`~viva_store.knowledge.model.
for_task`): team knowledge and skills, and project knowledge of the project asked for.
The write side (the gate, uses, retractions) is re-exported and loaded when first used.
"""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

from viva_store.access import Actor, require_owner, require_self_or_owner
from viva_store.errors import InvalidInput, NotFound
from viva_store.knowledge.load import load, to_records
from viva_store.knowledge.model import (
    ADMITTED,
    KINDS,
    STATUSES,
    USED,
    Engagement,
    Item,
    Task,
    for_task,
    in_scope,
    live,
)
from viva_store.knowledge.records import KnowledgeEventRecord, KnowledgeRecord, ReviewRecord
from viva_store.lazy import exports
from viva_store.members.roster import get_member
from viva_store.registry import reader
from viva_store.store import Context

if TYPE_CHECKING:
    from viva_store.knowledge.brief import BriefRecord, brief
    from viva_store.knowledge.gate import admit, decline, propose
    from viva_store.knowledge.lifecycle import retract, supersede, use
else:  # the write side loads when first used (viva_store.lazy)
    __getattr__ = exports(
        globals(),
        {
            "viva_store.knowledge.brief": ("BriefRecord", "brief"),
            "viva_store.knowledge.gate": ("admit", "decline", "propose"),
            "viva_store.knowledge.lifecycle": ("retract", "supersede", "use"),
        },
    )

__all__ = [
    "KINDS",
    "STATUSES",
    "BriefRecord",
    "KnowledgeEventRecord",
    "KnowledgeRecord",
    "ReviewRecord",
    "admit",
    "brief",
    "decline",
    "get_item",
    "knowledge_for_task",
    "list_knowledge",
    "propose",
    "retract",
    "review_queue",
    "supersede",
    "use",
]


def _visible(ctx: Context, item: Item, project: str | None) -> bool:
    """The owner sees everything; a member its own items and what its tasks could see."""
    if ctx.actor.is_owner or item.member == ctx.actor.member:
        return True
    assert ctx.actor.member is not None
    return live(item) and in_scope(item, Task(ctx.actor.member, project=project))


@reader
def list_knowledge(
    ctx: Context,
    member: str | None = None,
    kind: str | None = None,
    status: str | None = None,
    project: str | None = None,
) -> list[KnowledgeRecord]:
    """Items the actor may see, oldest first; ``project``: as a task of that project sees
    them (and narrows to it). ``member``, ``kind`` and ``status`` narrow further."""
    if kind is not None and kind not in KINDS:
        raise InvalidInput(f"unknown kind {kind!r}; choose one of {', '.join(KINDS)}")
    if status is not None and status not in STATUSES:
        raise InvalidInput(f"unknown status {status!r}; choose one of {', '.join(STATUSES)}")
    if member is not None:
        get_member(ctx, member)
    projects = [project] if project else []

    def work(conn: Any) -> list[KnowledgeRecord]:
        items = [
            i
            for i in load(conn, ctx, projects, member=member)
            if _visible(ctx, i, project)
            and (kind is None or i.kind == kind)
            and (status is None or i.status == status)
            and (project is None or i.project in (None, project))
        ]
        return to_records(conn, ctx, items)

    return ctx.store.read(work)


@reader
def get_item(ctx: Context, item_id: str, project: str | None = None) -> KnowledgeRecord:
    """One item with its history, if the actor may see it."""

    def work(conn: Any) -> KnowledgeRecord:
        found = [
            i
            for i in load(conn, ctx, [project] if project else [], ids=[item_id.strip()])
            if _visible(ctx, i, project)
        ]
        if not found:
            raise NotFound(f"no knowledge item {item_id!r} (see `viva knowledge list`)")
        return to_records(conn, ctx, found, history=True)[0]

    return ctx.store.read(work)


def task_items(
    conn: Any, ctx: Context, member: str, task: Task, state: Engagement | None
) -> list[Item]:
    """What ``member``'s ``task`` may see, decided by :func:`for_task` (the task's member
    decides, even when the owner asks)."""
    projects = [task.project] if task.project else []
    return for_task(load(conn, ctx.as_actor(Actor(member=member)), projects), task, state)


@reader
def knowledge_for_task(
    ctx: Context,
    member: str,
    task: str,
    project: str | None = None,
    domain: str | None = None,
) -> list[KnowledgeRecord]:
    """The items a task of ``member`` may see, most important first (its engagement state
    can narrow this, never widen it)."""
    get_member(ctx, member)
    require_self_or_owner(ctx.actor, member, "read the knowledge of tasks")
    from viva_store.engagement.service import current_state

    def work(conn: Any) -> list[KnowledgeRecord]:
        state = current_state(conn, member)
        items = task_items(
            conn,
            ctx,
            member,
            Task(member, task, project, domain),
            Engagement(state.domain, state.project),
        )
        items.sort(key=lambda i: (-i.importance, i.created_at, i.id))
        return to_records(conn, ctx, items)

    return ctx.store.read(work)


def review_params(section: Any) -> tuple[int, int, float]:
    """``[knowledge]`` in ``config.toml``: unused_days, unverified_days, min_confidence."""
    try:
        unused = int(section.get("unused_days", 60))
        unverified = int(section.get("unverified_days", 30))
        low = float(section.get("min_confidence", 0.5))
    except (TypeError, ValueError) as exc:
        raise InvalidInput(f"config [knowledge]: {exc}") from None
    return unused, unverified, low


@reader
def review_queue(ctx: Context, member: str | None = None) -> list[ReviewRecord]:
    """The owner's review queue: admitted items long unused, or of low confidence and never
    used, longest idle first. Nothing decays by itself; the owner decides."""
    require_owner(ctx.actor, "review knowledge")
    unused, unverified, low = review_params(ctx.store.config.section("knowledge"))
    now = ctx.store.now()

    def work(conn: Any) -> list[ReviewRecord]:
        due: list[tuple[Item, str, int]] = []
        for item in load(conn, ctx, member=member):
            if item.status != ADMITTED:
                continue
            admitted = item.last(ADMITTED)
            last_use = item.last(USED)
            since = (last_use or admitted or item.events[-1]).at
            idle = (now - since) // timedelta(days=1)
            if idle >= unused:
                due.append((item, f"unused for {idle} days (review after {unused})", idle))
            sure = item.confidence if item.confidence is not None else 1.0
            if idle < unused and last_use is None and sure < low and idle >= unverified:
                why = f"confidence {sure:.2f}, never used in {idle} days"
                due.append((item, why, idle))
        due.sort(key=lambda d: (-d[2], d[0].id))
        records = to_records(conn, ctx, [d[0] for d in due])
        return [ReviewRecord(r, d[1], d[2]) for r, d in zip(records, due, strict=True)]

    return ctx.store.read(work)
