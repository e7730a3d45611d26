"""Forgetting (DESIGN §3): who leaves a member's set, as a pure function of the log and now."""

from __future__ import annotations

import math
import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from viva_store.skills.forgetting import ForgetDecision, SkillView, decide, idle_for
from viva_store.skills.params import SkillParams, Track
from viva_store.skills.weights import (
    WeightEvent,
    closed_form,
    last_positive_use,
    latest_enter,
    position,
)

P = SkillParams()


def view(
    name: str,
    events: list[WeightEvent],
    now_pos: float,
    now_day: float,
    track: Track = "session",
    native: bool = False,
    params: SkillParams = P,
) -> SkillView:
    """A skill as the store would present it to ``decide``, computed from its log."""
    enter = latest_enter(events)
    assert enter is not None
    used = last_positive_use(events)
    now = now_pos if track == "session" else now_day
    return SkillView(
        name=name,
        native=native,
        track=track,
        weight_now=closed_form(events, track, now, params),
        last_positive_use_pos=None if used is None else used.session_pos,
        last_positive_use_day=None if used is None else used.day,
        entered_pos=enter.session_pos,
        entered_day=enter.day,
        status_active=True,
    )


def simple(
    name: str, weight: float, entered: float = 0.0, used: float | None = None, **kw: object
) -> SkillView:
    """A skill on the session track where the session ordinal doubles as the day."""
    base = SkillView(name, False, "session", weight, used, used, entered, entered, True)
    return replace(base, **kw)  # type: ignore[arg-type]


def enter(seq: int, pos: float, day: float | None = None) -> WeightEvent:
    return WeightEvent(seq, "enter", P.initial_weight, pos, pos if day is None else day)


def use(seq: int, value: float, pos: float, day: float | None = None) -> WeightEvent:
    return WeightEvent(seq, "use", value, pos, pos if day is None else day)


def names(decisions: list[ForgetDecision]) -> list[str]:
    return [d.name for d in decisions]


def test_an_entered_unused_skill_is_forgotten_after_about_100_sessions() -> None:
    # Starting from weight 1.0 (the entry, or one success on a weight that has decayed to
    # nothing) the crossing is 1·2^(−x/30) = 0.1 → x = 30·log2(10) ≈ 99.66 sessions; the
    # issue's "about 100 sessions" and "about 199 days" (60·log2(10) ≈ 199.3) are this.
    crossing = 30 * math.log2(10)
    assert crossing == pytest.approx(99.66, abs=0.01)
    log = [enter(1, 0)]
    assert closed_form(log, "session", crossing, P) == pytest.approx(0.1)
    assert decide([view("s", log, 99, 99)], 99, 99, P, trial=False) == []
    [gone] = decide([view("s", log, 100, 100)], 100, 100, P, trial=False)
    assert (gone.name, gone.reason, gone.applied, gone.idle) == ("s", "low_weight_idle", True, 100)
    assert gone.weight == pytest.approx(2 ** (-100 / 30))


def test_a_skill_used_once_then_idle_crosses_after_the_use_plus_its_own_decay() -> None:
    # Entered at 0 and succeeded at once: W = 1 + 1 = 2, so 30·log2(20) ≈ 129.66 sessions.
    log = [enter(1, 0), use(2, P.value_success, 0)]
    assert closed_form(log, "session", 30 * math.log2(20), P) == pytest.approx(0.1)
    # Used once after its entry weight has decayed away: W ≈ 1, the "about 100" case.
    old = [enter(1, 0), use(2, P.value_success, 1000)]
    crossing = 1000 + 30 * math.log2((1 + 2 ** (-1000 / 30)) / 0.1)
    assert crossing - 1000 == pytest.approx(99.66, abs=0.01)
    assert decide([view("s", old, 1099, 1099)], 1099, 1099, P, trial=False) == []
    assert names(decide([view("s", old, 1100, 1100)], 1100, 1100, P, trial=False)) == ["s"]


def test_on_the_time_track_an_unused_skill_crosses_after_about_199_days() -> None:
    crossing = 60 * math.log2(10)
    assert crossing == pytest.approx(199.3, abs=0.1)
    log = [enter(1, pos=0, day=0)]
    kept = view("s", log, now_pos=50, now_day=199, track="time")
    assert decide([kept], 50, 199, P, trial=False) == []
    gone = view("s", log, now_pos=50, now_day=200, track="time")
    [decision] = decide([gone], 50, 200, P, trial=False)
    assert decision.idle == 200  # days, the skill's own track


def test_a_failure_only_skill_is_forgotten_once_below_threshold_and_idle() -> None:
    # Failures are worth 0.25 > 0, so each one restarts the idle count. With the DESIGN
    # values a use keeps the weight ≥ 0.1 for at least 30·log2(0.25/0.1) ≈ 39.7 sessions,
    # so by the time it is below 0.1 it has idled well over 20 sessions.
    log = [enter(1, 0)] + [use(i + 1, P.value_failure, i) for i in range(1, 6)]
    crossing = 5 + 30 * math.log2(closed_form(log, "session", 5, P) / 0.1)
    last_kept = math.floor(crossing)
    assert decide([view("f", log, last_kept, last_kept)], last_kept, last_kept, P, False) == []
    now = last_kept + 1
    [gone] = decide([view("f", log, now, now)], now, now, P, trial=False)
    assert gone.reason == "low_weight_idle"
    assert gone.idle == now - 5 >= P.idle_sessions


def test_below_threshold_but_used_recently_waits_for_20_idle_sessions() -> None:
    # The idle rule bites when a use is worth less than the threshold (a configuration
    # where a failure is worth 0.01): the weight is below 0.1, the skill waits 20 sessions.
    params = SkillParams(value_failure=0.01)
    log = [enter(1, 0), use(2, params.value_failure, 99)]
    for now in (104, 118):
        skill = view("f", log, now, now, params=params)
        assert skill.weight_now < 0.1
        assert decide([skill], now, now, params, trial=False) == []
    [gone] = decide([view("f", log, 119, 119, params=params)], 119, 119, params, False)
    assert gone.idle == 20


def test_a_corrected_use_does_not_count_as_a_use_for_idleness() -> None:
    corrected = [
        enter(1, 0),
        use(2, P.value_success, 95),
        WeightEvent(3, "revalue", P.value_corrected, 97, 97, target_seq=2),
    ]
    skill = view("c", corrected, 100, 100)
    assert skill.last_positive_use_pos is None
    assert skill.weight_now == pytest.approx(2 ** (-100 / 30))  # the use now adds nothing
    assert idle_for(skill, 100, 100) == 100
    assert names(decide([skill], 100, 100, P, trial=False)) == ["c"]
    # The same low weight with a real (failed) use 5 sessions ago is not idle enough.
    failed = replace(skill, last_positive_use_pos=95.0, last_positive_use_day=95.0)
    assert decide([failed], 100, 100, P, trial=False) == []


def test_the_31st_skill_evicts_the_lowest_once_protections_lapse() -> None:
    # 31 skills enter at session 0; skill k is used k times, so s00 is the lowest.
    skills = []
    for k in range(31):
        log = [enter(1, 0)] + [use(2 + i, P.value_success, i) for i in range(k)]
        skills.append((f"s{k:02d}", log))
    for now in range(10):
        assert decide([view(n, log, now, now) for n, log in skills], now, now, P, False) == []
    [gone] = decide([view(n, log, 10, 10) for n, log in skills], 10, 10, P, trial=False)
    assert (gone.name, gone.reason, gone.applied) == ("s00", "over_capacity", True)


def test_a_newcomer_is_protected_so_the_lowest_old_skill_goes() -> None:
    old = [simple(f"old{k:02d}", weight=0.5 + k / 100) for k in range(30)]
    newcomer = simple("new", weight=0.2, entered=50)
    assert names(decide([*old, newcomer], 55, 55, P, trial=False)) == ["old00"]
    assert names(decide([*old, newcomer], 60, 60, P, trial=False)) == ["new"]


def test_only_protected_skills_over_capacity_means_no_eviction() -> None:
    fresh = [simple(f"s{k:02d}", weight=1.0, entered=5) for k in range(31)]
    assert decide(fresh, 10, 10, P, trial=False) == []


def test_eviction_ties_break_by_oldest_positive_use_then_name() -> None:
    base = [simple(f"k{k:02d}", weight=5.0) for k in range(29)]
    tied = [
        simple("b", weight=1.0, used=40),
        simple("a", weight=1.0, used=40),
        simple("c", weight=1.0, used=30),
        simple("d", weight=1.0),  # never used since it entered: the oldest
    ]
    assert names(decide([*base, *tied], 50, 50, P, trial=False)) == ["d", "c", "a"]


def test_natives_survive_everything_and_do_not_count() -> None:
    natives = [simple(f"native{k:d}", weight=0.0, native=True) for k in range(5)]
    others = [simple(f"s{k:02d}", weight=1.0) for k in range(30)]
    assert decide([*natives, *others], 1000, 1000, P, trial=False) == []
    capacity_zero = SkillParams(capacity=0)
    assert set(names(decide([*natives, *others], 1000, 1000, capacity_zero, False))) == {
        s.name for s in others
    }


def test_trial_month_reports_would_forget_without_applying() -> None:
    skills = [simple("low", weight=0.01)] + [simple(f"s{k:02d}", 1.0) for k in range(31)]
    real = decide(skills, 100, 100, P, trial=False)
    trial = decide(skills, 100, 100, P, trial=True)
    assert [d.applied for d in real] == [True, True]
    assert trial == [replace(d, applied=False) for d in real]
    assert [(d.name, d.reason) for d in trial] == [
        ("low", "low_weight_idle"),
        ("s00", "over_capacity"),
    ]


def test_reclaim_restores_weight_one_with_a_fresh_protection() -> None:
    history = [enter(1, 0)] + [use(2 + i, P.value_success, i) for i in range(3)]
    reclaimed = [*history, enter(9, 300)]  # forgotten long ago, reclaimed at session 300
    skill = view("r", reclaimed, 300, 300)
    assert skill.weight_now == 1.0
    # Over capacity and the lowest weight, yet protected for 10 sessions: another goes.
    crowd = [simple(f"s{k:02d}", weight=2.0) for k in range(30)]
    for now in range(300, 310):
        skill = view("r", reclaimed, now, now)
        assert names(decide([*crowd, skill], now, now, P, trial=False)) == ["s00"]
    assert names(decide([*crowd, view("r", reclaimed, 310, 310)], 310, 310, P, False)) == ["r"]


def test_inactive_skills_are_ignored_and_names_must_be_unique() -> None:
    gone = simple("gone", weight=0.0, status_active=False)
    assert decide([gone], 1000, 1000, P, trial=False) == []
    with pytest.raises(ValueError, match="once"):
        decide([simple("a", 1.0), simple("a", 2.0)], 0, 0, P, trial=False)


skill_views = st.builds(
    SkillView,
    name=st.text(alphabet="abcdefgh", min_size=1, max_size=4),
    native=st.booleans(),
    track=st.sampled_from(["session", "time"]),
    weight_now=st.sampled_from([0.0, 0.05, 0.1, 1.0]) | st.floats(min_value=0, max_value=5),
    last_positive_use_pos=st.none() | st.integers(min_value=0, max_value=100).map(float),
    last_positive_use_day=st.none() | st.integers(min_value=0, max_value=200).map(float),
    entered_pos=st.integers(min_value=0, max_value=100).map(float),
    entered_day=st.integers(min_value=0, max_value=200).map(float),
    status_active=st.booleans(),
)


@given(
    st.lists(skill_views, max_size=40, unique_by=lambda s: s.name),
    st.integers(min_value=0, max_value=150),
    st.integers(min_value=0, max_value=300),
    st.integers(min_value=0, max_value=8),
    st.booleans(),
    st.randoms(),
)
def test_decisions_are_a_pure_function_of_the_inputs(
    skills: list[SkillView],
    now_pos: int,
    now_day: int,
    capacity: int,
    trial: bool,
    rnd: random.Random,
) -> None:
    params = SkillParams(capacity=capacity)
    first = decide(skills, now_pos, now_day, params, trial)
    assert decide(skills, now_pos, now_day, params, trial) == first
    permuted = list(skills)
    rnd.shuffle(permuted)
    assert decide(permuted, now_pos, now_day, params, trial) == first
    by_name = {s.name: s for s in skills}
    for d in first:
        skill = by_name[d.name]
        assert skill.status_active and not skill.native
        assert now_pos - skill.entered_pos >= params.protect_sessions
        assert d.applied is not trial
    assert len(set(names(first))) == len(first)
    left = [s for s in skills if s.status_active and not s.native and s.name not in names(first)]
    unprotected_left = [s for s in left if now_pos - s.entered_pos >= params.protect_sessions]
    assert len(left) <= capacity or not unprotected_left


def test_position_reads_the_skills_track() -> None:
    e = WeightEvent(1, "use", 1.0, session_pos=3, day=7.5)
    assert (position(e, "session"), position(e, "time")) == (3, 7.5)
