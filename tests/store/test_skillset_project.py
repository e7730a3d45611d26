"""Projection (DESIGN §3): at most 10 skills, relevance first then weight, explained.

The ranking itself is pure (``viva_store.skills.rank``) and property-tested here; the
service tests check what a member's projection picks, logs and never changes.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.store.test_skillset_support import (
    T0,
    Axis,
    import_extra_skills,
    set_born,
    skills,
)
from viva_store.errors import InvalidInput
from viva_store.principles.service import approve, propose
from viva_store.skills.project import project
from viva_store.skills.rank import Candidate, Doc, bm25, choose, tokenize
from viva_store.skills.skillset import add_skill, skill_history
from viva_store.skills.uses import record_use
from viva_store.store import Context

# --- the pure ranking -----------------------------------------------------------------

words = st.sampled_from(["flaky", "test", "sqlite", "migration", "review", "log", "deploy"])
docs = st.lists(
    st.builds(
        Doc,
        name=st.from_regex(r"[a-z]{3,8}", fullmatch=True),
        description=st.lists(words, max_size=8).map(" ".join),
        tags=st.lists(words, max_size=3).map(tuple),
    ),
    max_size=12,
    unique_by=lambda d: d.name,
)


@given(docs=docs, query=st.lists(words, max_size=5).map(" ".join))
def test_bm25_scores_are_non_negative_and_zero_without_a_shared_word(
    docs: list[Doc], query: str
) -> None:
    scores = bm25(query, docs)
    assert set(scores) == {d.name for d in docs}
    terms = set(tokenize(query))
    for d in docs:
        shared = terms & set(tokenize(f"{d.name} {d.description} {' '.join(d.tags)}"))
        assert scores[d.name] >= 0.0
        assert (scores[d.name] > 0.0) == bool(shared)
    assert bm25(query, list(reversed(docs))) == scores  # the order of the library is no input


def test_bm25_prefers_the_name_and_rare_words() -> None:
    library = [
        Doc("debugging-flaky-tests", "Find why a test fails sometimes."),
        Doc("code-review", "Review a change; mention flaky tests if you see them."),
        Doc("release-checklist", "Steps before a release: tests pass, changelog."),
    ]
    scores = bm25("fix the flaky test", library)
    assert scores["debugging-flaky-tests"] > scores["code-review"] > scores["release-checklist"]


candidates = st.lists(
    st.builds(
        Candidate,
        name=st.from_regex(r"[a-z]{1,6}", fullmatch=True),
        relevance=st.sampled_from([0.0, 0.5, 1.25, 3.0]),
        weight=st.floats(0, 5, allow_nan=False),
    ),
    max_size=25,
    unique_by=lambda c: c.name,
)


@given(cands=candidates, limit=st.integers(0, 12), seed=st.randoms())
def test_choose_takes_relevance_first_then_weight_whatever_the_input_order(
    cands: list[Candidate], limit: int, seed: object
) -> None:
    picks, left = choose(cands, limit)
    assert len(picks) == min(limit, len(cands))
    keys = [(-p.relevance, -p.weight, p.name) for p in picks]
    assert keys == sorted(keys)
    picked = {p.name for p in picks}
    for c in cands:
        if c.name not in picked and picks:
            assert (-picks[-1].relevance, -picks[-1].weight, picks[-1].name) < (
                -c.relevance,
                -c.weight,
                c.name,
            )
    assert all(p.reason for p in picks) and all(not x.picked and x.reason for x in left)
    shuffled = list(cands)
    seed.shuffle(shuffled)  # type: ignore[attr-defined]
    assert choose(shuffled, limit) == (picks, left)


# --- the service ----------------------------------------------------------------------


@pytest.fixture
def deven(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> Axis:
    set_born(ctx, T0 - timedelta(days=90))
    return Axis(ctx, monkeypatch, "deven", timedelta(hours=1))


def test_projection_picks_at_most_10_relevance_first_then_weight(
    ctx: Context, deven: Axis, tmp_path: Path
) -> None:
    extra = import_extra_skills(ctx, tmp_path / "extra", 10)
    for name in [*extra, "debugging-flaky-tests", "regression-test-first"]:
        add_skill(ctx, "deven", name)
    deven.to(1)
    record_use(ctx, "deven", "extra-07", "success", session=deven.ids[0])  # heavier
    before = {n: (s.weight, s.uses) for n, s in skills(ctx, "deven").items()}
    p = project(ctx, "deven", "Fix the flaky test in the sqlite migration")
    names = [s.name for s in p.skills]
    assert len(names) == 10 and p.candidates == 15
    relevant = [s for s in p.skills if s.relevance > 0]
    assert names[: len(relevant)] == [s.name for s in relevant]
    assert names[0] == "debugging-flaky-tests"
    assert {"sqlite-migrations", "regression-test-first"} <= set(names)
    # Among the skills no word of the task matches, the heavier comes first.
    unmatched = [s for s in p.skills if s.relevance == 0]
    assert unmatched[0].name == "extra-07"
    assert [s.weight for s in unmatched] == sorted((s.weight for s in unmatched), reverse=True)
    assert all("relevance" in s.reason or "weight" in s.reason for s in p.skills)
    assert p.not_picked and all("at most 10" in s.reason for s in p.not_picked)
    # Logged, never a weight change and never a use.
    projected = [e for e in skill_history(ctx, "deven") if e.kind == "projected"]
    assert sorted(e.skill for e in projected) == sorted(names)
    assert {n: (s.weight, s.uses) for n, s in skills(ctx, "deven").items()} == before


def test_a_dry_run_changes_nothing_and_the_limit_is_capped(ctx: Context, deven: Axis) -> None:
    p = project(ctx, "deven", "review", limit=2, record=False)
    assert len(p.skills) == 2 and p.skills[0].name == "code-review"
    assert [e for e in skill_history(ctx, "deven") if e.kind == "projected"] == []
    with pytest.raises(InvalidInput, match="limit"):
        project(ctx, "deven", "review", limit=11)


def test_active_principles_join_the_projection(ctx: Context, deven: Axis) -> None:
    candidate = propose(ctx, "deven", "Write the failing test first.", "It pins the bug.")
    approve(ctx, candidate.id)
    p = project(ctx, "deven", "fix a bug")
    assert [x["text"] for x in p.principles] == ["Write the failing test first."]
    assert project(ctx, "alice", "fix a bug").principles == ()
