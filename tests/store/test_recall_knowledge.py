"""Forgotten skills and superseded principles stay findable, marked (DESIGN I2, I8)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from sqlalchemy import update

from tests.store.recall_fixtures import NOW, as_member
from viva_store.db.schema import MEMBER_SKILL
from viva_store.errors import InvalidInput
from viva_store.principles.service import approve, propose
from viva_store.recall.search import recall
from viva_store.skills.skillset import add_skill
from viva_store.store import Context


@pytest.fixture
def knowledge(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("VIVA_NOW", NOW.isoformat())
    add_skill(ctx, "deven", "log-investigation")
    add_skill(ctx, "alice", "log-investigation")
    # Forgetting is the skills service's decision; here the outcome is simply stored.
    ctx.store.write(
        lambda c: c.execute(
            update(MEMBER_SKILL)
            .where(MEMBER_SKILL.c.member == "deven", MEMBER_SKILL.c.skill == "log-investigation")
            .values(status="forgotten", updated_at=datetime(2026, 5, 1, tzinfo=UTC))
        )
    )
    first = propose(ctx, "deven", "Always benchmark the quokka cache", "it was slow")
    approve(ctx, first.id)
    second = propose(
        ctx,
        "deven",
        "Benchmark the quokka cache weekly",
        "daily was too much",
        [],
        first.principle_id,
    )
    approve(ctx, second.id)
    return {"v1": first.id, "v2": second.id}


def test_a_superseded_principle_is_found_and_marked(
    ctx: Context, knowledge: dict[str, str]
) -> None:
    items = {i.id: i for i in recall(ctx, "quokka cache").items if i.kind == "principle"}
    assert items[knowledge["v1"]].marked == "superseded"
    assert items[knowledge["v2"]].marked == "active"
    assert items[knowledge["v2"]].score > items[knowledge["v1"]].score  # in force ranks higher
    assert items[knowledge["v1"]].session_id is None


def test_a_forgotten_skill_is_found_and_marked(ctx: Context, knowledge: dict[str, str]) -> None:
    items = [i for i in recall(as_member(ctx, "deven"), "log investigation").items]
    assert [(i.kind, i.id, i.member, i.marked) for i in items] == [
        ("skill", "log-investigation", "deven", "forgotten")
    ]
    alice = recall(as_member(ctx, "alice"), "log investigation").items
    assert [(i.member, i.marked) for i in alice] == [("alice", "active")]


def test_principles_are_member_scoped(ctx: Context, knowledge: dict[str, str]) -> None:
    assert recall(as_member(ctx, "alice"), "quokka cache").items == ()
    assert len(recall(as_member(ctx, "deven"), "quokka cache").items) == 2
    assert recall(ctx, "quokka cache", member="alice").items == ()


def test_kinds_can_be_chosen(ctx: Context, knowledge: dict[str, str]) -> None:
    only = recall(ctx, "quokka cache", kinds=("principles",))
    assert only.hits == () and {i.kind for i in only.items} == {"principle"}
    assert recall(ctx, "log investigation", kinds=("sessions",)).items == ()
    with pytest.raises(InvalidInput):
        recall(ctx, "quokka", kinds=("everything",))
