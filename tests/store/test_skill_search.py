"""Searching the team library mid-session (``search_skills``): relevance, scope, limits."""

from __future__ import annotations

import pytest

from viva_store.errors import AccessDenied, InvalidInput
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.skills.library import list_library
from viva_store.skills.rank import Doc, bm25
from viva_store.skills.search import search_skills
from viva_store.store import Context


def as_member(ctx: Context, member: str) -> Context:
    return ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, member).token))


def test_matches_come_best_first_with_the_projections_relevance(ctx: Context) -> None:
    found = search_skills(ctx, "flaky test under repetition", limit=50)

    assert found[0].name == "debugging-flaky-tests"
    docs = [Doc(s.name, s.description, s.tags) for s in list_library(ctx)]
    scores = bm25("flaky test under repetition", docs)
    assert [m.relevance for m in found] == sorted(
        (v for v in scores.values() if v > 0), reverse=True
    )
    assert all(m.relevance == scores[m.name] for m in found)


def test_a_query_that_matches_nothing_finds_nothing(ctx: Context) -> None:
    assert search_skills(ctx, "zzqx nonsenseword") == []


def test_a_member_sees_its_own_standing_with_each_skill(ctx: Context) -> None:
    deven = as_member(ctx, "deven")

    found = {m.name: m.set_status for m in search_skills(deven, "code review migrations", limit=50)}

    assert found["code-review"] == "active"  # native to deven
    assert found["sqlite-migrations"] == "active"
    owner_view = {m.name: m.set_status for m in search_skills(ctx, "code review", limit=50)}
    assert owner_view["code-review"] is None  # the owner alone carries no set


def test_a_member_cannot_ask_for_another_members_set(ctx: Context) -> None:
    with pytest.raises(AccessDenied, match="cannot search skills for alice"):
        search_skills(as_member(ctx, "deven"), "review", member="alice")


def test_the_limit_is_kept_and_checked(ctx: Context) -> None:
    assert len(search_skills(ctx, "test testing review code", limit=2)) == 2
    with pytest.raises(InvalidInput, match="limit"):
        search_skills(ctx, "review", limit=0)
