"""The cached weights always equal a rebuild of the log (DESIGN I3), whatever happens.

Hypothesis drives random sequences of everything that touches skill sets — sessions
filed and unfiled (late ones too), adds, uses with and without sessions, corrections,
reclaims, track changes, time passing, reads that apply forgetting — against one store,
and after each sequence the cache must equal both the service's rebuild and the pure
per-pair rebuild. Each example is many database round trips, so there are few of them;
the parameters are shrunk (short half-lives, a small capacity) so forgetting, eviction
and reclaiming happen within a few steps.
"""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.store.test_skillset_support import (
    T0,
    assert_cache_is_a_rebuild,
    insert_sessions,
    set_born,
    set_now,
    with_config,
)
from viva_store.errors import InvalidInput, NotFound
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.skills.skillset import add_skill, list_skills, reclaim_skill, set_track
from viva_store.skills.uses import record_use
from viva_store.store import Context
from viva_store.triage.classify import unclassify

MEMBERS = ("deven", "alice")
POOL = (
    "code-review",
    "log-investigation",
    "incident-triage",
    "session-handoff",
    "regression-test-first",
)
FAST = {
    "half_life_sessions": 3.0,
    "half_life_days": 4.0,
    "idle_sessions": 2,
    "idle_days": 3.0,
    "capacity": 3,
    "protect_sessions": 2,
}

member = st.sampled_from(MEMBERS)
skill = st.sampled_from(POOL)
pick = st.integers(0, 10**6)
OP = st.one_of(
    st.tuples(st.just("sessions"), member, st.integers(1, 6)),
    st.tuples(st.just("sessions"), member, st.integers(1, 6)),
    st.tuples(st.just("add"), member, skill),
    st.tuples(st.just("use"), member, skill, st.sampled_from(("success", "failure")), pick),
    st.tuples(st.just("reclaim"), member, skill),
    st.tuples(st.just("late_session"), member, pick),
    st.tuples(st.just("unfile"), member, pick),
    st.tuples(st.just("add"), member, skill),
    st.tuples(st.just("use"), member, skill, st.sampled_from(("success", "failure")), pick),
    st.tuples(st.just("use_untied"), member, skill),
    st.tuples(st.just("correct"), member, skill),
    st.tuples(st.just("reclaim"), member, skill),
    st.tuples(st.just("track"), member, skill, st.sampled_from(("session", "time"))),
    st.tuples(st.just("hours"), st.integers(1, 72)),
    st.tuples(st.just("read"), member),
)


class World:
    """One store driven by the operations; its clock only moves forward."""

    def __init__(self, ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
        self.ctx = ctx
        self.monkeypatch = monkeypatch
        self.now = T0
        self.serial = 0
        set_now(monkeypatch, self.now)

    def tick(self, delta: timedelta) -> None:
        self.now += delta
        set_now(self.monkeypatch, self.now)

    def sessions(self, name: str) -> list[str]:
        found = list_sessions(self.ctx, SessionFilter(member=name))
        return [s.id for s in sorted(found, key=lambda s: (s.started_at or T0, s.id))]

    def file(self, name: str, starts: list[datetime]) -> None:
        self.serial += 1
        insert_sessions(self.ctx, name, starts, f"{name[:2]}{self.serial:04d}w")

    def apply(self, op: tuple[Any, ...]) -> None:
        kind, *args = op
        ctx = self.ctx
        if kind == "sessions":
            name, count = args
            starts = [self.now + timedelta(minutes=10 * (k + 1)) for k in range(count)]
            self.file(name, starts)
            self.tick(timedelta(minutes=10 * count + 5))
        elif kind == "late_session":
            name, n = args
            self.file(name, [T0 + (self.now - T0) * ((n % 997) / 997)])
        elif kind == "unfile":
            name, n = args
            ids = self.sessions(name)
            if ids:
                unclassify(ctx, [ids[n % len(ids)]])
        elif kind == "add":
            add_skill(ctx, *args)
        elif kind == "use":
            name, skill_name, outcome, n = args
            ids = self.sessions(name)
            record_use(ctx, name, skill_name, outcome, ids[n % len(ids)] if ids else None)
        elif kind == "use_untied":
            record_use(ctx, args[0], args[1], "success")
        elif kind == "correct":
            record_use(ctx, args[0], args[1], "corrected")
        elif kind == "reclaim":
            reclaim_skill(ctx, *args)
        elif kind == "track":
            set_track(ctx, *args)
        elif kind == "hours":
            self.tick(timedelta(hours=args[0]))
        elif kind == "read":
            list_skills(ctx, args[0], include_forgotten=True)


_WORLDS: dict[int, World] = {}


def world_of(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> World:
    """The examples of one test share its store, so they share its world (and clock)."""
    key = id(ctx.store.engine)
    if key not in _WORLDS:
        _WORLDS.clear()
        _WORLDS[key] = World(ctx, monkeypatch)
    return _WORLDS[key]


def run_ops(world: World, ops: list[tuple[Any, ...]]) -> None:
    for op in ops:
        # Refused (already in the set, not in it, nothing to correct...): nothing changes.
        with contextlib.suppress(InvalidInput, NotFound):
            world.apply(op)
        world.tick(timedelta(minutes=1))
    assert_cache_is_a_rebuild(world.ctx)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=st.lists(OP, min_size=8, max_size=40))
def test_cache_equals_a_rebuild_after_any_operations_with_fast_parameters(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, ops: list[tuple[Any, ...]]
) -> None:
    set_born(ctx, T0 - timedelta(days=365))
    run_ops(world_of(with_config(ctx, **FAST), monkeypatch), ops)


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(ops=st.lists(OP, min_size=8, max_size=40))
def test_cache_equals_a_rebuild_after_any_operations_with_design_parameters(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, ops: list[tuple[Any, ...]]
) -> None:
    run_ops(world_of(ctx, monkeypatch), ops)
