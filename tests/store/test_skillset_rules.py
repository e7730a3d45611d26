"""The skill-weight rules of DESIGN §3, end to end through the services.

Each test reads like the rule it pins. The clock is ``VIVA_NOW``; a member's session
axis is built from sessions filed through triage (tests/store/test_skillset_support.py).
Parameters are the DESIGN defaults unless a test says otherwise.
"""

from __future__ import annotations

import math
from datetime import timedelta
from pathlib import Path

import pytest

from tests.store.test_skillset_support import (
    T0,
    Axis,
    assert_cache_is_a_rebuild,
    import_extra_skills,
    set_born,
    set_now,
    skills,
    with_config,
)
from viva_store.errors import InvalidInput
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.skills.skillset import (
    add_skill,
    reclaim_skill,
    set_track,
    skill_curve,
    skill_history,
)
from viva_store.skills.uses import record_use
from viva_store.store import Context

HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


@pytest.fixture
def deven(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> Axis:
    """Deven's session axis, one session an hour; the trial month long over."""
    set_born(ctx, T0 - timedelta(days=90))
    return Axis(ctx, monkeypatch, "deven", HOUR)


def kinds(ctx: Context, member: str, skill: str) -> list[str]:
    return [e.kind for e in reversed(skill_history(ctx, member, skill, limit=None))]


def test_a_skill_entered_and_never_used_is_forgotten_about_100_sessions_later(
    ctx: Context, deven: Axis
) -> None:
    add_skill(ctx, "deven", "log-investigation")
    deven.to(99)  # 2^(-99/30) = 0.101
    kept = skills(ctx, "deven")["log-investigation"]
    assert kept.status == "active" and kept.weight == pytest.approx(2 ** (-99 / 30))
    deven.advance()  # 2^(-100/30) = 0.0992 < 0.1, idle 100 sessions >= 20
    gone = skills(ctx, "deven")["log-investigation"]
    assert (gone.status, gone.in_set) == ("forgotten", False)
    [event] = [e for e in skill_history(ctx, "deven", "log-investigation") if e.kind == "forgotten"]
    assert event.reason == "low_weight_idle"
    assert event.basis is not None and event.basis["idle"] == 100
    assert event.basis["weight"] == pytest.approx(2 ** (-100 / 30))
    assert_cache_is_a_rebuild(ctx)


def test_a_use_worth_1_then_idle_crosses_0_1_about_100_sessions_after_the_use(
    ctx: Context, deven: Axis
) -> None:
    # code-review is native to deven: it entered at the team load, long before.
    deven.to(300)
    record_use(ctx, "deven", "code-review", "success", session=deven.ids[-1])
    expected = 1 + 2 ** (-300 / 30)  # the use plus what is left of the entry
    assert skills(ctx, "deven")["code-review"].weight == pytest.approx(expected)
    curve = skill_curve(ctx, "deven", "code-review")
    assert curve.crosses_at is not None
    assert curve.crosses_at - 300 == pytest.approx(30 * math.log2(expected / 0.1))
    assert curve.crosses_at - 300 == pytest.approx(99.7, abs=0.1)
    deven.to(399)
    assert skills(ctx, "deven")["code-review"].weight > 0.1
    deven.to(400)
    weight = skills(ctx, "deven")["code-review"]
    assert weight.weight < 0.1 and weight.status == "native"  # natives are never forgotten


def test_added_and_used_in_one_session_the_entry_counts_too(ctx: Context, deven: Axis) -> None:
    # Entering the set is worth 1.0 and the use another 1.0: 30·log2(20) ≈ 129.7 sessions.
    deven.to(1)
    add_skill(ctx, "deven", "log-investigation")
    record_use(ctx, "deven", "log-investigation", "success", session=deven.ids[-1])
    deven.to(130)
    assert skills(ctx, "deven")["log-investigation"].status == "active"
    deven.to(131)
    assert skills(ctx, "deven")["log-investigation"].status == "forgotten"


def test_on_the_time_track_an_unused_skill_is_forgotten_after_about_199_days(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_born(ctx, T0 - timedelta(days=90))
    axis = Axis(ctx, monkeypatch, "deven", 10 * DAY)  # protection lapses after 10 sessions
    add_skill(ctx, "deven", "log-investigation")
    set_track(ctx, "deven", "log-investigation", "time")
    assert 60 * math.log2(10) == pytest.approx(199.3, abs=0.1)
    axis.to(19)  # sessions up to day 180
    set_now(monkeypatch, T0 - timedelta(minutes=30) + 199 * DAY)
    kept = skills(ctx, "deven")["log-investigation"]
    assert kept.status == "active" and kept.weight == pytest.approx(2 ** (-199 / 60), rel=1e-6)
    set_now(monkeypatch, T0 - timedelta(minutes=30) + 200 * DAY)
    assert skills(ctx, "deven")["log-investigation"].status == "forgotten"
    [event] = [e for e in skill_history(ctx, "deven") if e.kind == "forgotten"]
    assert event.basis is not None and event.basis["idle"] == pytest.approx(200)
    assert_cache_is_a_rebuild(ctx)


def test_a_failure_only_skill_is_forgotten_once_below_0_1_and_idle(
    ctx: Context, deven: Axis
) -> None:
    # Each failure is worth 0.25 > 0 and restarts the idle count; with the DESIGN values a
    # failure keeps the weight above 0.1 for ~40 sessions, so by the time it is below 0.1
    # it has idled well over 20: it goes at the first session below the threshold.
    add_skill(ctx, "deven", "log-investigation")
    for _ in range(5):
        deven.advance()
        record_use(ctx, "deven", "log-investigation", "failure", session=deven.ids[-1])
    w5 = 2 ** (-5 / 30) + sum(0.25 * 2 ** (-(5 - i) / 30) for i in range(1, 6))
    crossing = 5 + 30 * math.log2(w5 / 0.1)
    deven.to(math.floor(crossing))
    assert skills(ctx, "deven")["log-investigation"].status == "active"
    deven.advance()
    assert skills(ctx, "deven")["log-investigation"].status == "forgotten"
    [event] = [e for e in skill_history(ctx, "deven") if e.kind == "forgotten"]
    assert event.basis is not None and event.basis["idle"] == deven.now - 5 >= 20


def test_below_0_1_a_skill_still_waits_20_idle_sessions(ctx: Context, deven: Axis) -> None:
    # Where a use is worth less than the threshold (failure = 0.01 here), the idle rule bites.
    low = with_config(ctx, value_failure=0.01)
    add_skill(low, "deven", "log-investigation")
    deven.to(99)
    record_use(low, "deven", "log-investigation", "failure", session=deven.ids[-1])
    deven.to(104)
    below = skills(low, "deven")["log-investigation"]
    assert below.weight < 0.1 and below.status == "active"  # idle 5
    deven.to(118)
    assert skills(low, "deven")["log-investigation"].status == "active"  # idle 19
    deven.to(119)
    assert skills(low, "deven")["log-investigation"].status == "forgotten"  # idle 20


def test_the_31st_skill_evicts_the_lowest_once_protections_lapse(
    ctx: Context, deven: Axis, tmp_path: Path
) -> None:
    import_extra_skills(ctx, tmp_path / "extra", 15)
    natives = {"code-review", "python-refactoring", "sqlite-migrations"}
    library = sorted(set(_library(ctx)) - natives)[:31]
    for name in library:
        add_skill(ctx, "deven", name)
    deven.advance()
    used = library[2:]  # the first two are never used: a tie, broken by name
    for name in used:
        record_use(ctx, "deven", name, "success", session=deven.ids[-1])
    deven.to(9)
    now = skills(ctx, "deven")
    assert [n for n in library if now[n].status != "protected"] == []  # over 30, all protected
    deven.to(10)
    now = skills(ctx, "deven")
    forgotten = [n for n in library if now[n].status == "forgotten"]
    assert forgotten == [library[0]]
    assert now[library[0]].forget_reason == "over_capacity"
    assert sum(1 for n in library if now[n].in_set) == 30
    assert {n for n in natives if now[n].status == "native"} == natives  # they do not count
    assert_cache_is_a_rebuild(ctx)


def _library(ctx: Context) -> list[str]:
    from viva_store.skills.library import list_library

    return [s.name for s in list_library(ctx)]


def test_natives_survive_everything(ctx: Context, deven: Axis, tmp_path: Path) -> None:
    extra = import_extra_skills(ctx, tmp_path / "extra", 31)
    for name in extra:
        add_skill(ctx, "deven", name)
    deven.to(400)  # natives decayed to 2^(-400/30) ≈ 0.0001, set over capacity meanwhile
    now = skills(ctx, "deven")
    for native in ("code-review", "python-refactoring", "sqlite-migrations"):
        assert now[native].status == "native" and now[native].weight < 0.001
        assert "forgotten" not in kinds(ctx, "deven", native)
    assert all(now[n].status == "forgotten" for n in extra)


def test_the_trial_month_shows_would_forget_and_applies_nothing(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    set_born(ctx, T0 - timedelta(hours=2))
    axis = Axis(ctx, monkeypatch, "deven", HOUR)  # 100 sessions in about four days
    add_skill(ctx, "deven", "log-investigation")
    axis.to(100)
    for _ in range(3):  # reading again and again does not log it again
        trial = skills(ctx, "deven")["log-investigation"]
        assert (trial.status, trial.in_set) == ("would_forget", True)
        axis.advance()
    assert kinds(ctx, "deven", "log-investigation") == ["added", "would_forget"]
    set_now(monkeypatch, T0 + timedelta(days=31))
    assert skills(ctx, "deven")["log-investigation"].status == "forgotten"
    assert kinds(ctx, "deven", "log-investigation") == ["added", "would_forget", "forgotten"]


def test_reclaim_restores_weight_1_with_a_fresh_protection(ctx: Context, deven: Axis) -> None:
    add_skill(ctx, "deven", "log-investigation")
    record_use(ctx, "deven", "log-investigation", "success")
    deven.to(140)
    assert skills(ctx, "deven")["log-investigation"].status == "forgotten"
    as_deven = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    reclaim_skill(as_deven, "deven", "log-investigation")  # the member itself, no approval
    back = skills(ctx, "deven")["log-investigation"]
    assert (back.status, back.weight, back.uses, back.last_used) == ("protected", 1.0, 0, None)
    deven.to(149)
    assert skills(ctx, "deven")["log-investigation"].status == "protected"
    deven.to(150)
    assert skills(ctx, "deven")["log-investigation"].status == "active"
    # It starts afresh at 1.0 from the reclaim: gone about 100 sessions later, not before.
    deven.to(239)
    assert skills(ctx, "deven")["log-investigation"].status == "active"
    deven.to(240)
    assert skills(ctx, "deven")["log-investigation"].status == "forgotten"
    assert kinds(ctx, "deven", "log-investigation") == [
        "added",
        "used",
        "forgotten",
        "reclaimed",
        "forgotten",
    ]
    with pytest.raises(InvalidInput, match="already"):
        add_skill(ctx, "deven", "code-review")
    assert_cache_is_a_rebuild(ctx)


def test_classifying_an_old_session_moves_the_axis_and_the_weights(
    ctx: Context, deven: Axis
) -> None:
    add_skill(ctx, "deven", "log-investigation")
    deven.to(10)
    record_use(ctx, "deven", "log-investigation", "success", session=deven.ids[1])  # session 2
    before = skills(ctx, "deven")["log-investigation"].weight
    assert before == pytest.approx(2 ** (-10 / 30) + 2 ** (-8 / 30))
    # A terminal session deven had between sessions 1 and 2 is filed into its experience:
    # the use is now in session 3 of 11, the entry still at 0.
    from tests.store.test_skillset_support import insert_sessions

    [late] = insert_sessions(ctx, "deven", [deven.start_of(1) + 30 * timedelta(minutes=1)], "old")
    after = skills(ctx, "deven")["log-investigation"].weight
    assert after == pytest.approx(2 ** (-11 / 30) + 2 ** (-8 / 30))
    assert_cache_is_a_rebuild(ctx)
    from viva_store.triage.classify import unclassify

    unclassify(ctx, [late])
    assert skills(ctx, "deven")["log-investigation"].weight == pytest.approx(before)
    assert_cache_is_a_rebuild(ctx)


def test_one_credited_use_per_member_skill_and_session(ctx: Context, deven: Axis) -> None:
    deven.to(2)
    first = record_use(ctx, "deven", "code-review", "success", session=deven.ids[0])
    again = [
        record_use(ctx, "deven", "code-review", "success", session=deven.ids[0]) for _ in range(2)
    ]
    other = record_use(ctx, "deven", "code-review", "failure", session=deven.ids[1])
    assert first.credited and other.credited and not any(a.credited for a in again)
    assert {a.event_id for a in again} == {first.event_id}
    assert kinds(ctx, "deven", "code-review").count("used") == 2
    assert skills(ctx, "deven")["code-review"].uses == 2
