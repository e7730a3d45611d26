"""The bulk rebuild's paths agree with the per-pair reference at their edges.

The rebuild sums most pairs' uses in one SQL aggregate against one shift for every
member, places loose uses and entries by SQL probes and what is tied to an execution in
Python, and leaves to the per-pair path the pairs whose sums would leave the floating-point
range. Each case ends with the cache equal to the rebuild and to the pure reference,
and checks which path the pairs took; a rebuild writes only the rows it changes.
"""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Connection, and_, delete, update

from tests.store.test_skillset_support import (
    T0,
    Axis,
    assert_cache_is_a_rebuild,
    set_born,
    set_now,
    skills,
    with_config,
)
from viva_store.db.schema import MEMBER_SKILL, SKILL_EVENT
from viva_store.members.executions import start_execution
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.skills.events import skill_params
from viva_store.skills.rebuild import compute_states, write_states
from viva_store.skills.scan import shifts
from viva_store.skills.skillset import add_skill
from viva_store.skills.state import PairState, same_state
from viva_store.skills.uses import record_use
from viva_store.store import Context


def paths(ctx: Context) -> dict[str, int]:
    """How many pairs a rebuild of every member takes by the aggregate and one by one."""
    params = skill_params(ctx.store.config.section("skills"))
    stats: dict[str, int] = {}
    ctx.store.read(lambda c: compute_states(c, params, ctx.store.now(), None, stats))
    return stats


@pytest.fixture
def deven(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> Axis:
    """Deven's axis, a session an hour, in a store past its trial month, with
    incident-triage in his set."""
    set_born(ctx, T0 - timedelta(days=365))
    axis = Axis(ctx, monkeypatch, "deven", timedelta(hours=1))
    add_skill(ctx, "deven", "incident-triage")
    return axis


def test_members_share_one_shift_unless_their_counts_are_far_apart() -> None:
    params = skill_params({"half_life_sessions": 2.0})  # 300 e-folds: 866 sessions
    assert shifts({"deven": 10, "alice": 800}, params) == {"deven": 800, "alice": 800}
    assert shifts({"deven": 10, "alice": 900}, params) == {"deven": 10, "alice": 900}
    assert shifts({}, params) == {}


def test_a_pair_idle_beyond_the_sums_range_is_rebuilt_one_by_one(
    ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A half-life of half a session: 559 idle sessions are 775 e-folds, past the range
    # of a double (e^-745 is zero), so the shifted sum of that pair would be lost.
    # Deven's count and Alice's are also too far apart for one shift.
    fast = with_config(ctx, half_life_sessions=0.5)
    set_born(fast, T0 - timedelta(days=365))
    deven = Axis(fast, monkeypatch, "deven", timedelta(minutes=30))
    add_skill(fast, "deven", "incident-triage")
    add_skill(fast, "deven", "session-handoff")
    deven.to(1)
    record_use(fast, "deven", "incident-triage", "success", session=deven.ids[0])
    # Used only outside sessions, long ago: no term of the SQL sums may stand for it.
    record_use(fast, "deven", "session-handoff", "success")
    deven.to(560)
    add_skill(fast, "deven", "log-investigation")
    record_use(fast, "deven", "log-investigation", "failure", session=deven.ids[-1])
    alice = Axis(fast, monkeypatch, "alice", timedelta(minutes=30))
    alice.to(1)
    set_now(monkeypatch, deven.start_of(560) + timedelta(minutes=5))
    add_skill(fast, "alice", "incident-triage")
    record_use(fast, "alice", "incident-triage", "success", session=alice.ids[0])
    taken = paths(fast)
    assert taken["slow"] >= 1  # incident-triage at least; forgotten, so a forget event too
    assert skills(fast, "deven")["incident-triage"].status == "forgotten"
    # Entered at 560 (1.0), used in session 560 (+0.25): no decay yet.
    assert skills(fast, "deven")["log-investigation"].weight == pytest.approx(1.25)
    assert_cache_is_a_rebuild(fast)


def test_a_use_tied_to_a_running_execution_is_placed_at_the_executions_start(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, deven: Axis
) -> None:
    deven.to(3)
    grant = issue_grant(ctx, "deven")
    start_execution(ctx, "deven", "claude-code", "/home/deven/work", grant_id=grant.id)
    member = ctx.as_actor(resolve_actor(ctx.store, grant.token))
    set_now(monkeypatch, deven.start_of(3) + timedelta(minutes=20))
    assert record_use(member, "deven", "incident-triage", "success").credited
    use = ctx.store.read(
        lambda c: c.execute(SKILL_EVENT.select().where(SKILL_EVENT.c.kind == "used")).one()._mapping
    )
    assert use["session_id"] is None and use["execution_id"] is not None  # loose, tied
    deven.to(5)  # the axis moves on: a rebuild places the use again
    assert paths(ctx)["slow"] == 0
    assert skills(ctx, "deven")["incident-triage"].uses == 1
    assert_cache_is_a_rebuild(ctx)


def test_a_loose_use_tied_to_nothing_is_placed_at_its_instant(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, deven: Axis
) -> None:
    deven.to(2)
    for _ in range(2):  # two loose uses a day apart: the pair's index is walked
        set_now(monkeypatch, deven.start_of(deven.now) + timedelta(minutes=10))
        assert record_use(ctx, "deven", "incident-triage", "success").credited
        deven.to(deven.now + 24)
    assert paths(ctx)["slow"] == 0
    assert skills(ctx, "deven")["incident-triage"].uses == 2
    assert_cache_is_a_rebuild(ctx)


def test_a_rebuild_writes_only_the_rows_it_changes(ctx: Context, deven: Axis) -> None:
    deven.to(3)
    record_use(ctx, "deven", "incident-triage", "success", session=deven.ids[-1])
    params = skill_params(ctx.store.config.section("skills"))

    def rebuild(conn: Connection) -> int:
        states = compute_states(conn, params, ctx.store.now(), ["deven"])
        return write_states(conn, ["deven"], states, ctx.store.now())

    ctx.store.write(rebuild)  # whatever the use left to rounding, the rebuild owns it now
    assert ctx.store.write(rebuild) == 0
    pair = and_(MEMBER_SKILL.c.member == "deven", MEMBER_SKILL.c.skill == "incident-triage")
    ctx.store.write(
        lambda c: c.execute(update(MEMBER_SKILL).where(pair).values(w_ref=MEMBER_SKILL.c.w_ref + 1))
    )
    assert ctx.store.write(rebuild) == 1
    assert_cache_is_a_rebuild(ctx)
    rows = len(skills(ctx, "deven"))
    ctx.store.write(
        lambda c: c.execute(delete(MEMBER_SKILL).where(MEMBER_SKILL.c.member == "deven"))
    )
    assert ctx.store.write(rebuild) == rows
    assert_cache_is_a_rebuild(ctx)


def test_states_are_the_same_up_to_the_weights_rounding_and_no_further() -> None:
    state = PairState(
        "deven", "code-review", "session", "active", False, 1.5, 12.0, 3, 40, 2, 1.0, 0.0, None
    )
    assert same_state(state, replace(state, w_ref=1.5 * (1 + 1e-12), a_ref=12.0 + 1e-12))
    assert not same_state(state, replace(state, w_ref=1.5 * (1 + 1e-6)))
    assert not same_state(state, replace(state, a_ref=12.5))
    changed: dict[str, Any] = {
        "member": "alice",
        "skill": "sqlite-migrations",
        "track": "time",
        "status": "forgotten",
        "native": True,
        "epoch_seq": 4,
        "last_seq": None,
        "uses": 3,
        "entered_pos": 2.0,
        "entered_day": 1.0,
        "last_used_at": T0,
    }
    assert set(changed) | {"w_ref", "a_ref"} == {f.name for f in fields(PairState)}
    for name, value in changed.items():
        assert not same_state(state, replace(state, **{name: value})), name
