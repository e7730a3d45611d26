"""The brief's SQL narrowing against ``for_task``, on random items in a real store.

``glances`` filters ``knowledge_state`` in the query (scope, liveness, the task's
project, words shared with the task) so that a brief at 10,000 items reads only a few
rows. Each of those conditions must be one ``for_task`` and the ranking imply: what the
brief chooses from the rows read must be exactly what it would choose from every item.
"""

from __future__ import annotations

import itertools
from datetime import UTC, datetime
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st
from sqlalchemy import insert

from viva_store.access import Actor
from viva_store.db.schema import KNOWLEDGE_ITEM, KNOWLEDGE_STATE
from viva_store.knowledge.brief import related, words_of
from viva_store.knowledge.load import glances
from viva_store.knowledge.model import (
    ADMITTED,
    CANDIDATE,
    DECLINED,
    KINDS,
    RETRACTED,
    SUPERSEDED,
    Engagement,
    Glance,
    Task,
    for_task,
)
from viva_store.store import Context

T0 = datetime(2026, 11, 1, tzinfo=UTC)
MEMBERS = ("deven", "alice")
PROJECTS = (None, "", "alpha", "beta")
WORDS = ("deploy", "Deploy", "CACHE", "cache", "flaky", "Ärger", "ärger", "alpha", "the", "cake",
         "CA\u212aE")  # fmt: skip
"""Words in both cases, ASCII or not, and "cake" with a Kelvin sign (it lowers to "k")."""
STATUSES = (ADMITTED, CANDIDATE, DECLINED, RETRACTED, SUPERSEDED)
SERIAL = itertools.count()

rows = st.fixed_dictionaries(
    {
        "member": st.sampled_from(MEMBERS),
        "kind": st.sampled_from(KINDS),
        "project": st.sampled_from(PROJECTS),
        "domain": st.sampled_from((None, "work", "personal")),
        "task_pattern": st.sampled_from((None, "deploy", "*review*")),
        "status": st.sampled_from(STATUSES),
        "summary": st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join),
        "importance": st.floats(0, 1),
    }
)
tasks = st.builds(
    Task,
    member=st.sampled_from(MEMBERS),
    text=st.lists(st.sampled_from(WORDS), min_size=1, max_size=3).map(" ".join),
    project=st.sampled_from((None, "alpha", "beta")),
)
states = st.builds(
    Engagement,
    domain=st.sampled_from((None, "work")),
    project=st.sampled_from((None, "alpha", "beta")),
)


def _insert(ctx: Context, drawn: list[dict[str, Any]]) -> list[Glance]:
    """The drawn items, in both tables under ids of their own; returns them as glances."""
    out, items, states_ = [], [], []
    for row in drawn:
        item_id = f"g{next(SERIAL):07d}"
        out.append(Glance(item_id, *(row[k] for k in list(Glance.__slots__)[1:])))
        fixed = {"body": "", "reason": "recurred", "evidence": "", "sources": [], "why": "",
                 "confidence": None, "occurred_at": T0, "flags": [], "created_at": T0,
                 "ruleset": ""}  # fmt: skip
        copied = ("member", "kind", "project", "domain", "task_pattern", "summary", "importance")
        items.append(
            {"id": item_id, "proposed_by": row["member"]} | fixed | {k: row[k] for k in copied}
        )
        states_.append({"item_id": item_id, "uses": 0} | row)
    if drawn:

        def write(conn: Any) -> None:
            conn.execute(insert(KNOWLEDGE_ITEM), items)
            conn.execute(insert(KNOWLEDGE_STATE), states_)

        ctx.store.write(write)
    return out


def _row(summary: str) -> dict[str, Any]:
    """An admitted personal memory of deven's with this summary and nothing else."""
    empty = dict.fromkeys(("project", "domain", "task_pattern"))
    return (
        {"member": "deven", "kind": "personal_memory", "status": ADMITTED}
        | empty
        | {
            "summary": summary,
            "importance": 0.5,
        }
    )


def test_the_narrowed_read_chooses_what_every_item_would_give(ctx: Context) -> None:
    @settings(max_examples=150, deadline=None)
    @given(st.lists(rows, max_size=25), tasks, states, st.integers(1, 6))
    @example([_row("Ärger")], Task("deven", "ärger"), Engagement(), 3)  # case SQLite keeps
    @example([_row("CA\u212aE")], Task("deven", "cake"), Engagement(), 3)
    def check(drawn: list[dict[str, Any]], task: Task, state: Engagement, limit: int) -> None:
        pool = _insert(ctx, drawn)
        ids = {g.id for g in pool}
        seer = ctx.as_actor(Actor(member=task.member))
        read = ctx.store.read(lambda c: glances(c, seer, task.project, words_of(task.text)))
        narrowed = [g for g in read if g.id in ids]  # earlier examples' items are there too
        assert len(narrowed) <= len(pool)
        expected = related(for_task(pool, task, state), task, limit)
        assert related(for_task(narrowed, task, state), task, limit) == expected

    check()
