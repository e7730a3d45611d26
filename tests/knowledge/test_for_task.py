"""``for_task`` against the visibility rules, for random items, tasks and engagement states.

The rules, restated here independently of the code: personal memory and self-model
candidates only in their member's tasks; project knowledge only in that project's tasks;
team knowledge and skills in every task; only what passed the gate (a self-model
hypothesis while it is recorded); the engagement state never adds an item.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from viva_store.knowledge.model import (
    ADMITTED,
    DECLINED,
    KINDS,
    PERSONAL,
    PROJECT,
    PROPOSED,
    RETRACTED,
    SELF_MODEL,
    SKILL,
    SUPERSEDED,
    TEAM,
    USED,
    Engagement,
    Event,
    Item,
    Source,
    Task,
    dynamic_flags,
    for_task,
    words,
)

T0 = datetime(2026, 11, 1, tzinfo=UTC)
MEMBERS = ("samuel", "deven", "alice")
PROJECTS = ("alpha", "beta", None)
DOMAINS = ("work", "personal", None)
PATTERNS = (None, "deploy", "*review*", "release?")
TEXTS = ("deploy alpha", "review the diff", "release1 notes", "")
LIFECYCLES = (
    (PROPOSED,),
    (PROPOSED, ADMITTED),
    (PROPOSED, ADMITTED, USED),
    (PROPOSED, DECLINED),
    (PROPOSED, ADMITTED, RETRACTED),
    (PROPOSED, ADMITTED, SUPERSEDED),
    (PROPOSED, RETRACTED),
)


@st.composite
def items(draw: st.DrawFn) -> Item:
    kind = draw(st.sampled_from(KINDS))
    actions = draw(st.sampled_from(LIFECYCLES))
    events = tuple(
        Event(n, a, "owner", T0 + timedelta(hours=n), session="s1" if a == USED else None)
        for n, a in enumerate(actions)
    )
    return Item(
        id=f"k{draw(st.integers(0, 10**6))}",
        member=draw(st.sampled_from(MEMBERS)),
        kind=kind,
        project=draw(st.sampled_from(PROJECTS))
        if kind != PROJECT
        else draw(st.sampled_from(PROJECTS[:2])),
        domain=draw(st.sampled_from(DOMAINS)),
        task_pattern=draw(st.sampled_from(PATTERNS)),
        summary=draw(st.sampled_from(TEXTS)),
        body="",
        reason="recurred",
        evidence="",
        sources=(Source("s1"), Source("s2")),
        importance=draw(st.floats(0, 1)),
        why="",
        confidence=None,
        occurred_at=T0,
        flags=(),
        proposed_by="owner",
        created_at=T0,
        events=events,
    )


tasks = st.builds(
    Task,
    member=st.sampled_from(MEMBERS),
    text=st.sampled_from(TEXTS),
    project=st.sampled_from(PROJECTS),
    domain=st.sampled_from(DOMAINS),
)
states = st.one_of(
    st.none(),
    st.builds(Engagement, domain=st.sampled_from(DOMAINS), project=st.sampled_from(PROJECTS)),
)


def allowed_by_kind(item: Item, task: Task) -> bool:
    """Item 2 of the rules: who sees each kind."""
    if item.kind in (PERSONAL, SELF_MODEL):
        return item.member == task.member
    if item.kind == PROJECT:
        return task.project is not None and item.project == task.project
    return item.kind in (TEAM, SKILL)


def passed_the_gate(item: Item) -> bool:
    actions = [e.action for e in item.events]
    ended = {DECLINED, RETRACTED, SUPERSEDED} & set(actions)
    if item.kind == SELF_MODEL:
        return not ended and ADMITTED not in actions
    return ADMITTED in actions and not ended


@settings(max_examples=400, deadline=None)
@given(st.lists(items(), max_size=30), tasks, states)
def test_for_task_never_returns_an_item_outside_the_rules(
    pool: list[Item], task: Task, state: Engagement | None
) -> None:
    seen = for_task(pool, task, state)
    for item in seen:
        assert allowed_by_kind(item, task), (item.kind, item.member, item.project, task)
        assert passed_the_gate(item)
        if item.project is not None:  # a project narrows any kind to its tasks
            assert item.project == task.project
    # the engagement state may narrow, never widen
    without = {id(i) for i in for_task(pool, task, None)}
    assert {id(i) for i in seen} <= without


@settings(max_examples=200, deadline=None)
@given(st.lists(items(), max_size=30), tasks)
def test_shared_kinds_reach_every_task_of_every_member(pool: list[Item], task: Task) -> None:
    """The shared layer is shared: an unconditioned, admitted team item reaches every task."""
    seen = {id(i) for i in for_task(pool, task)}
    for item in pool:
        unconditioned = item.project is None and item.domain is None and not item.task_pattern
        if item.kind in (TEAM, SKILL) and unconditioned and passed_the_gate(item):
            assert id(item) in seen


def test_words_follow_the_evidence() -> None:
    base = Item("k1", "deven", TEAM, None, None, None, "s", "", "recurred", "", (Source("s1"),),
                0.5, "", None, T0, (), "owner", T0)  # fmt: skip
    admitted = (Event(1, PROPOSED, "deven", T0), Event(2, ADMITTED, "owner", T0))
    uses = tuple(Event(3 + n, USED, "deven", T0, session=f"s{n % 2}") for n in range(3))
    assert words(base) == "candidate"
    assert words(Item(**{**_fields(base), "events": admitted})) == "recorded"
    # three recorded uses in two sessions: reused twice (one per session)
    assert words(Item(**{**_fields(base), "events": admitted + uses})) == "reused 2 times"
    assert words(Item(**{**_fields(base), "events": admitted + uses[:1]})) == "reused 1 time"
    assert "learn" not in words(Item(**{**_fields(base), "events": admitted + uses}))


def _fields(item: Item) -> dict[str, object]:
    return {f: getattr(item, f) for f in Item.__dataclass_fields__}


def test_dynamic_facts_are_flagged_and_explanations_are_not() -> None:
    assert dynamic_flags("PR #42 is merged") == ("issue or PR status",)
    assert dynamic_flags("the issue is still open") == ("issue or PR status",)
    assert dynamic_flags("task 7 is in progress") == ("task state",)
    assert dynamic_flags("deven's grant expires tonight") == ("grant",)
    assert dynamic_flags("We merge PRs only after CI, because main broke twice") == ()
    assert dynamic_flags("Why the flaky test fails: it depends on wall time") == ()
