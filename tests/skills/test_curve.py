"""Weight curves (DESIGN §3): the history and projected decay `viva skill curve` shows."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viva_store.skills.curve import curve
from viva_store.skills.params import SkillParams, Track
from viva_store.skills.weights import WeightEvent, closed_form, position

P = SkillParams()


def enter(seq: int, pos: float) -> WeightEvent:
    return WeightEvent(seq, "enter", 1.0, pos, pos * 2)


def use(seq: int, value: float, pos: float) -> WeightEvent:
    return WeightEvent(seq, "use", value, pos, pos * 2)


def upto(events: list[WeightEvent], a: float, track: Track) -> list[WeightEvent]:
    """The log as the axis saw it at ``a``: events positioned at or before it, corrections
    of those included (a correction rewrites history at the corrected use's position)."""
    kept = {e.seq for e in events if e.kind != "revalue" and position(e, track) <= a}
    return [e for e in events if e.seq in kept or e.target_seq in kept]


@st.composite
def logs(draw: st.DrawFn) -> list[WeightEvent]:
    n = draw(st.integers(min_value=1, max_value=25))
    events: list[WeightEvent] = []
    uses: list[int] = []
    for seq in range(1, n + 1):
        kind = draw(st.sampled_from(["enter", "use", "use"] + (["revalue"] if uses else [])))
        pos = float(draw(st.integers(min_value=0, max_value=120)))
        value = draw(st.sampled_from([1.0, 0.25, 0.0]))
        if kind == "revalue":
            target = draw(st.sampled_from(uses))
            events.append(WeightEvent(seq, "revalue", value, pos, pos, target_seq=target))
        elif kind == "enter":
            events.append(WeightEvent(seq, "enter", 1.0, pos, pos * 1.5))
        else:
            events.append(WeightEvent(seq, "use", value, pos, pos * 1.5))
            uses.append(seq)
    return events


@settings(max_examples=200)
@given(logs(), st.sampled_from(["session", "time"]), st.sampled_from([0.5, 1.0, 3.0]))
def test_every_history_point_is_the_closed_form_of_the_log_up_to_it(
    events: list[WeightEvent], track: Track, step: float
) -> None:
    a_now = 200.0
    c = curve(events, track, P, 0.0, a_now, step)
    assert [a for a, _ in c.points] == sorted({a for a, _ in c.points})
    for a, w in c.points:
        expected = closed_form(upto(events, a, track), track, a, P)
        assert math.isclose(w, expected, rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(c.weight_now, closed_form(events, track, a_now, P), rel_tol=1e-12)
    assert c.points[-1][0] == a_now


def test_an_unused_skill_curve_halves_and_projects_its_crossing() -> None:
    c = curve([enter(1, 0)], "session", P, None, 40, step=10)
    assert [a for a, _ in c.points] == [0, 10, 20, 30, 40]
    assert [w for _, w in c.points] == pytest.approx([2 ** (-a / 30) for a in (0, 10, 20, 30, 40)])
    assert c.marks == [(0, "enter", 1.0)]
    assert c.crosses_at == pytest.approx(30 * math.log2(10))  # ≈ 99.66 sessions
    assert c.forget_due_at == c.crosses_at  # idle (20) and protection (10) lapsed earlier
    assert c.protected_until_pos == 10
    grid = [a for a, _ in c.projection if a != c.crosses_at]
    assert grid == [40, 50, 60, 70, 80, 90, 100]  # until the crossing, then one step
    assert (c.crosses_at, 0.1) in c.projection
    assert c.projection[-2][1] >= 0.1 > c.projection[-1][1]


def test_the_time_track_crosses_after_about_199_days() -> None:
    c = curve([enter(1, 0)], "time", P, None, 0, step=30)
    assert c.crosses_at == pytest.approx(60 * math.log2(10))
    assert c.crosses_at == pytest.approx(199.3, abs=0.1)


def test_points_just_after_each_event_and_corrections_marked_at_the_use() -> None:
    events = [
        enter(1, 0),
        use(2, 1.0, 2.5),
        use(3, 0.25, 4),
        WeightEvent(4, "revalue", 0.0, 9, 18, target_seq=2),
    ]
    c = curve(events, "session", P, None, 6, step=2)
    assert [a for a, _ in c.points] == [0, 2, 2.5, 4, 6]
    assert dict(c.points)[2.5] == pytest.approx(2 ** (-2.5 / 30))  # the corrected use adds 0
    assert dict(c.points)[4] == pytest.approx(2 ** (-4 / 30) + 0.25)
    assert c.marks == [
        (0, "enter", 1.0),
        (2.5, "use", 1.0),
        (2.5, "revalue", 0.0),
        (4, "use", 0.25),
    ]


def test_a_reclaim_shows_as_a_reset_to_one() -> None:
    events = [enter(1, 0), use(2, 1.0, 1), use(3, 1.0, 2), enter(4, 50)]
    c = curve(events, "session", P, None, 50, step=25)
    assert dict(c.points)[25] > 1.0
    assert dict(c.points)[50] == 1.0


def test_forget_due_waits_for_the_idle_threshold_after_a_recent_use() -> None:
    params = SkillParams(value_failure=0.01)
    events = [enter(1, 0), use(2, params.value_failure, 99)]
    c = curve(events, "session", params, None, 99, step=1)
    assert c.crosses_at is not None and c.crosses_at < 99 + 20
    assert c.forget_due_at == 119


def test_a_skill_already_below_threshold_projects_one_step() -> None:
    c = curve([enter(1, 0)], "session", P, 100, 120, step=5)
    assert c.crosses_at == 120
    assert [a for a, _ in c.projection] == [120, 125]


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="step"):
        curve([enter(1, 0)], "session", P, 0, 10, step=0)
    with pytest.raises(ValueError, match="a_now"):
        curve([enter(1, 0)], "session", P, 10, 5)
    with pytest.raises(ValueError, match="step"):
        curve([enter(1, 0)], "session", P, 0, 1e9, step=1)
    empty = curve([], "session", P, None, 3)
    assert (empty.points, empty.projection, empty.crosses_at) == ([(3, 0.0)], [], None)
