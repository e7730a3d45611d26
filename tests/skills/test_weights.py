"""Skill weights (DESIGN §3): W ← W·2^(−Δ/h) + v, the same number every way it is computed."""

from __future__ import annotations

import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from viva_store.skills.params import SkillParams, Track
from viva_store.skills.weights import (
    EMPTY,
    WeightEvent,
    WeightState,
    apply_revalue,
    closed_form,
    credit_key,
    effective_values,
    fold,
    last_positive_use,
    latest_enter,
    rebuild,
    weight_at,
)

P = SkillParams()
TRACKS: list[Track] = ["session", "time"]


def close(a: float, b: float) -> bool:
    # 1e-9 relative; the 1e-12 absolute floor covers corrections, which subtract a use's
    # contribution and can cancel a sum down to (almost) nothing.
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def fold_log(events: list[WeightEvent], track: Track) -> WeightState:
    """What the store does: fold each appended event, remembering effective use values."""
    state = EMPTY
    uses: dict[int, WeightEvent] = {}
    current: dict[int, float] = {}
    for e in events:
        if e.kind == "revalue":
            assert e.target_seq is not None
            target = uses[e.target_seq]
            state = fold(state, e, track, P, target=target, current_value=current[target.seq])
            current[target.seq] = e.value
        else:
            state = fold(state, e, track, P)
            if e.kind == "use":
                uses[e.seq] = e
                current[e.seq] = e.value
    return state


@st.composite
def logs(draw: st.DrawFn) -> list[WeightEvent]:
    """A log in append order whose positions are in any order (late events included)."""
    n = draw(st.integers(min_value=1, max_value=40))
    events: list[WeightEvent] = []
    use_seqs: list[int] = []
    for seq in range(1, n + 1):
        kinds = ["enter", "use", "use", "use"] + (["revalue", "revalue"] if use_seqs else [])
        kind = draw(st.sampled_from(kinds))
        pos = draw(st.floats(min_value=0, max_value=300, allow_nan=False))
        day = draw(st.floats(min_value=0, max_value=600, allow_nan=False))
        value = draw(st.sampled_from([1.0, 0.25, 0.0]) | st.floats(min_value=0, max_value=3))
        if kind == "revalue":
            target = draw(st.sampled_from(use_seqs))
            events.append(WeightEvent(seq, "revalue", value, pos, day, target_seq=target))
        elif kind == "enter":
            events.append(WeightEvent(seq, "enter", P.initial_weight, pos, day))
        else:
            events.append(WeightEvent(seq, "use", value, pos, day))
            use_seqs.append(seq)
    return events


@settings(max_examples=400)
@given(logs(), st.sampled_from(TRACKS), st.floats(min_value=-50, max_value=400), st.randoms())
def test_fold_equals_rebuild_equals_closed_form(
    events: list[WeightEvent], track: Track, now_offset: float, rnd: random.Random
) -> None:
    folded = fold_log(events, track)
    shuffled = list(events)
    rnd.shuffle(shuffled)
    rebuilt = rebuild(shuffled, track, P)
    assert rebuilt.a_ref == folded.a_ref
    assert (rebuilt.epoch_seq, rebuilt.last_seq) == (folded.epoch_seq, folded.last_seq)
    assert close(rebuilt.w_ref, folded.w_ref)
    a_now = folded.a_ref + now_offset
    direct = closed_form(shuffled, track, a_now, P)
    assert close(weight_at(folded, a_now, track, P), direct)
    assert close(weight_at(rebuilt, a_now, track, P), direct)


@given(logs(), st.sampled_from(TRACKS))
def test_reading_early_never_grows_the_weight(events: list[WeightEvent], track: Track) -> None:
    state = rebuild(events, track, P)
    assert weight_at(state, state.a_ref - 10, track, P) == state.w_ref
    assert weight_at(state, state.a_ref + 10, track, P) <= state.w_ref


def test_entered_skill_halves_every_half_life_on_each_track() -> None:
    events = [WeightEvent(1, "enter", 1.0, session_pos=0, day=0)]
    assert closed_form(events, "session", 30, P) == pytest.approx(0.5)
    assert closed_form(events, "time", 60, P) == pytest.approx(0.5)
    assert closed_form(events, "session", 60, P) == pytest.approx(0.25)


def test_one_update_is_decay_then_value() -> None:
    state = fold(EMPTY, WeightEvent(1, "enter", 1.0, 0, 0), "session", P)
    state = fold(state, WeightEvent(2, "use", P.value_success, 30, 10), "session", P)
    assert state == WeightState(w_ref=1.5, a_ref=30, epoch_seq=1, last_seq=2)
    state = fold(state, WeightEvent(3, "use", P.value_failure, 60, 20), "session", P)
    assert state.w_ref == pytest.approx(1.5 / 2 + 0.25)


def test_a_late_use_is_added_with_its_own_decay() -> None:
    state = fold(EMPTY, WeightEvent(1, "enter", 1.0, 60, 0), "session", P)
    state = fold(state, WeightEvent(2, "use", 1.0, 30, 0), "session", P)  # an older session
    assert state.a_ref == 60
    assert state.w_ref == pytest.approx(1.0 + 0.5)


def test_a_correction_revalues_the_use_at_its_original_position() -> None:
    enter = WeightEvent(1, "enter", 1.0, 0, 0)
    use = WeightEvent(2, "use", 1.0, 30, 0)
    fix = WeightEvent(3, "revalue", P.value_corrected, 90, 0, target_seq=2)
    state = fold(fold(fold(EMPTY, enter, "session", P), use, "session", P), fix, "session", P, use)
    assert state.a_ref == 30  # the correction does not move the reference
    assert state.w_ref == pytest.approx(0.5)
    assert closed_form([enter, use, fix], "session", 60, P) == pytest.approx(0.25)
    assert effective_values([enter, use, fix]) == {2: 0.0}


def test_the_latest_correction_wins() -> None:
    events = [
        WeightEvent(1, "enter", 1.0, 0, 0),
        WeightEvent(2, "use", 1.0, 0, 0),
        WeightEvent(3, "revalue", 0.0, 1, 1, target_seq=2),
        WeightEvent(4, "revalue", 0.25, 2, 2, target_seq=2),
    ]
    assert closed_form(events, "session", 0, P) == pytest.approx(1.25)
    assert apply_revalue(WeightState(2.0, 0.0), 0.0, 1.0, 0.25, "session", P).w_ref == 1.25


def test_reclaim_resets_the_weight_to_the_initial_value() -> None:
    events = [
        WeightEvent(1, "enter", 1.0, 0, 0),
        WeightEvent(2, "use", 1.0, 5, 5),
        WeightEvent(3, "use", 1.0, 6, 6),
        WeightEvent(4, "enter", P.initial_weight, 200, 400),  # reclaimed after being forgotten
    ]
    for track in TRACKS:
        state = rebuild(events, track, P)
        assert state.w_ref == 1.0
        assert closed_form(events, track, 200 if track == "session" else 400, P) == 1.0
    # A correction of a use from before the reclaim changes nothing any more.
    fix = WeightEvent(5, "revalue", 0.0, 201, 401, target_seq=2)
    state = fold(rebuild(events, "session", P), fix, "session", P, target=events[1])
    assert state.w_ref == 1.0
    assert latest_enter([*events, fix]) == events[3]


def test_no_enter_means_every_use_counts() -> None:
    events = [WeightEvent(1, "use", 1.0, 0, 0), WeightEvent(2, "use", 0.25, 0, 0)]
    assert closed_form(events, "session", 0, P) == 1.25
    assert closed_form([], "session", 0, P) == 0.0
    assert weight_at(EMPTY, 100, "session", P) == 0.0


def test_last_positive_use_counts_failures_but_not_corrected_uses() -> None:
    enter = WeightEvent(1, "enter", 1.0, 0, 0)
    failure = WeightEvent(2, "use", P.value_failure, 3, 3)
    success = WeightEvent(3, "use", P.value_success, 7, 7)
    corrected = WeightEvent(4, "revalue", P.value_corrected, 8, 8, target_seq=3)
    assert last_positive_use([enter]) is None
    assert last_positive_use([enter, failure, success]) == success
    assert last_positive_use([enter, failure, success, corrected]) == failure


def test_fold_insists_on_log_order_and_consistent_corrections() -> None:
    state = fold(EMPTY, WeightEvent(5, "enter", 1.0, 0, 0), "session", P)
    with pytest.raises(ValueError, match="log order"):
        fold(state, WeightEvent(4, "use", 1.0, 0, 0), "session", P)
    use = WeightEvent(6, "use", 1.0, 0, 0)
    state = fold(state, use, "session", P)
    with pytest.raises(ValueError, match="re-values"):
        fold(state, WeightEvent(7, "revalue", 0.0, 0, 0, target_seq=6), "session", P)
    with pytest.raises(ValueError, match="re-values seq 5"):
        enter = WeightEvent(5, "enter", 1.0, 0, 0)
        fold(state, WeightEvent(7, "revalue", 0.0, 0, 0, target_seq=5), "session", P, enter)
    with pytest.raises(ValueError, match="unknown seq"):
        closed_form([WeightEvent(1, "revalue", 0.0, 0, 0, target_seq=9)], "session", 0, P)
    with pytest.raises(ValueError, match="twice"):
        rebuild([use, use], "session", P)


def test_credit_key_is_one_use_per_member_skill_session() -> None:
    assert credit_key("deven", "git-bisect", "s1") == credit_key("deven", "git-bisect", "s1")
    assert credit_key("deven", "git-bisect", "s1") != credit_key("deven", "git-bisect", "s2")


def test_params_default_to_design_and_name_the_bad_key() -> None:
    assert (P.value_success, P.value_failure, P.value_corrected, P.initial_weight) == (
        1.0,
        0.25,
        0.0,
        1.0,
    )
    assert (P.half_life_sessions, P.half_life_days, P.forget_below) == (30, 60, 0.1)
    assert (P.idle_sessions, P.idle_days, P.capacity, P.protect_sessions) == (20, 60, 30, 10)
    assert (P.trial_days, P.projection_limit) == (30, 10)
    assert SkillParams.from_mapping({"half_life_days": 90}).half_life("time") == 90.0
    assert P.value_for("failure") == 0.25
    cases: list[tuple[dict[str, object], str]] = [
        ({"half_life_sesions": 30}, "half_life_sesions"),
        ({"half_life_sessions": 0}, "half_life_sessions"),
        ({"capacity": 30.5}, "capacity"),
        ({"capacity": True}, "capacity"),
        ({"forget_below": "0.1"}, "forget_below"),
        ({"value_failure": -0.25}, "value_failure"),
        ({"idle_days": math.inf}, "idle_days"),
    ]
    for bad, key in cases:
        with pytest.raises(ValueError, match=f"^{key}:"):
            SkillParams.from_mapping(bad)
