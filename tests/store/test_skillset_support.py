"""Helpers for the skill-set tests: a member's sessions on a clock the test drives.

Sessions are inserted as rows and filed through the real triage service, so every axis
change takes the same path (and the same weight rebuild) as in use. The clock is
``VIVA_NOW``; :class:`Axis` keeps it just after the member's latest session.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection, insert, select, update

from viva_store.clock import as_utc
from viva_store.config import Config
from viva_store.db.schema import (
    ATTRIBUTION,
    CLASSIFICATION,
    EXECUTION,
    SESSION,
    SKILL_EVENT,
    STORE_META,
)
from viva_store.skills.events import WEIGHT_KINDS, skill_params
from viva_store.skills.library import import_skills
from viva_store.skills.pair import pair_facts
from viva_store.skills.records import MemberSkillRecord
from viva_store.skills.skillset import check_cache, list_skills
from viva_store.skills.state import (
    WEIGHT_KIND,
    PairState,
    PlacedEvent,
    read_cache,
    same_state,
    state_from_events,
)
from viva_store.store import Context, Store
from viva_store.triage.classify import classify

T0 = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)
"""Well after the stores' real creation time, so the tests' clock only moves forward."""


def set_now(monkeypatch: pytest.MonkeyPatch, at: datetime) -> None:
    """Freeze the store clock at ``at``."""
    monkeypatch.setenv("VIVA_NOW", at.isoformat())


def set_born(ctx: Context, at: datetime) -> None:
    """Date the store's creation (the trial month starts there)."""
    ctx.store.write(
        lambda c: c.execute(
            update(STORE_META).where(STORE_META.c.key == "created_at").values(value=at.isoformat())
        )
    )


def with_config(ctx: Context, **skills: object) -> Context:
    """The same store read with other ``[skills]`` parameters."""
    config: Config = replace(ctx.store.config, raw={"skills": dict(skills)})
    return Context(Store(ctx.store.engine, config), ctx.actor)


def insert_sessions(ctx: Context, member: str, starts: list[datetime], tag: str) -> list[str]:
    """Sessions starting at ``starts`` (ids ``s<tag><n>``), filed into ``member``."""
    ids = [f"s{tag}{n:05d}" for n in range(len(starts))]
    rows = [
        {
            "id": sid,
            "harness": "claude-code",
            "native_id": f"{sid}-native",
            "models": [],
            "started_at": at,
            "source_path": "",
            "input_tokens": 0,
            "output_tokens": 0,
            "cache_read_tokens": 0,
            "cache_write_tokens": 0,
            "reasoning_tokens": 0,
            "imported_at": at,
            "updated_at": at,
        }
        for sid, at in zip(ids, starts, strict=True)
    ]
    ctx.store.write(lambda c: c.execute(insert(SESSION), rows))
    classify(ctx, ids, member)
    return ids


class Axis:
    """A member's sessions, one an hour from ``T0``; the clock just after the latest."""

    def __init__(
        self, ctx: Context, monkeypatch: pytest.MonkeyPatch, member: str, step: timedelta
    ) -> None:
        self.ctx = ctx
        self.monkeypatch = monkeypatch
        self.member = member
        self.step = step
        self.ids: list[str] = []
        set_now(monkeypatch, T0 - timedelta(minutes=30))

    @property
    def now(self) -> int:
        return len(self.ids)

    def start_of(self, n: int) -> datetime:
        """When session ``n`` (1-based) starts."""
        return T0 + (n - 1) * self.step

    def advance(self, count: int = 1) -> list[str]:
        """``count`` more sessions; the clock moves to just after the last one started."""
        first = self.now + 1
        starts = [self.start_of(n) for n in range(first, first + count)]
        new = insert_sessions(self.ctx, self.member, starts, f"{self.member[:3]}{first:05d}x")
        self.ids += new
        set_now(self.monkeypatch, starts[-1] + timedelta(minutes=1))
        return new

    def to(self, n: int) -> None:
        """Advance until the member has ``n`` sessions."""
        if n > self.now:
            self.advance(n - self.now)


def skills(ctx: Context, member: str) -> dict[str, MemberSkillRecord]:
    """The member's set (forgotten too), by name."""
    return {s.name: s for s in list_skills(ctx, member, include_forgotten=True)}


def import_extra_skills(ctx: Context, folder: Path, count: int) -> list[str]:
    """Add ``count`` plain skills (``extra-00``...) to the team library."""
    names = [f"extra-{k:02d}" for k in range(count)]
    for name in names:
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Placeholder skill number {name[-2:]}.\n"
            "---\nDo the thing.\n"
        )
    assert import_skills(ctx, folder).errors == ()
    return names


def live_axis(conn: Connection, member: str) -> tuple[list[datetime], dict[str, int]]:
    """``member``'s session axis as DESIGN §3 defines it, derived here from attribution and
    sessions (not from the store's ``skill_axis`` rows): start times in order, ordinals."""
    rows = conn.execute(
        select(SESSION.c.id, SESSION.c.started_at, SESSION.c.relation)
        .join(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id)
        .where(ATTRIBUTION.c.member == member, ATTRIBUTION.c.status == "attributed")
    ).all()
    on = sorted(
        (as_utc(r.started_at), r.id)
        for r in rows
        if r.started_at is not None and r.relation != "subagent"
    )
    return [t for t, _ in on], {sid: n for n, (_, sid) in enumerate(on, 1)}


def live_events(conn: Connection, member: str, skill: str) -> list[PlacedEvent]:
    """One pair's weight events placed on the live axis by the rules of DESIGN §3: at the
    ordinal of their session (or their execution's), else at the number of sessions
    started by the instant they stand for."""
    starts, ordinal = live_axis(conn, member)
    rows = conn.execute(
        select(SKILL_EVENT)
        .where(
            SKILL_EVENT.c.member == member,
            SKILL_EVENT.c.skill == skill,
            SKILL_EVENT.c.kind.in_(WEIGHT_KINDS),
        )
        .order_by(SKILL_EVENT.c.id)
    ).all()
    out: list[PlacedEvent] = []
    for r in rows:
        sid, tau = r.session_id, None
        if sid is not None:
            started = conn.execute(select(SESSION.c.started_at).where(SESSION.c.id == sid)).scalar()
            tau = None if started is None else as_utc(started)
        elif r.execution_id is not None:
            sid = conn.execute(
                select(CLASSIFICATION.c.session_id)
                .where(
                    CLASSIFICATION.c.execution_id == r.execution_id,
                    CLASSIFICATION.c.action == "execution",
                )
                .order_by(CLASSIFICATION.c.id.desc())
            ).scalar()
        if tau is None and r.execution_id is not None:
            started = conn.execute(
                select(EXECUTION.c.started_at).where(EXECUTION.c.id == r.execution_id)
            ).scalar()
            tau = None if started is None else as_utc(started)
        tau = tau or as_utc(r.at)
        pos = ordinal[sid] if sid in ordinal else bisect_right(starts, tau)
        out.append(
            PlacedEvent(
                int(r.id),
                WEIGHT_KIND[r.kind],
                float(r.value or 0.0),
                float(pos),
                r.day,
                tau,
                r.target_id,
            )
        )
    return out


def pure_states(ctx: Context) -> dict[tuple[str, str], PairState]:
    """Every pair rebuilt one by one from its events with the pure maths, on the live axis
    (the reference)."""
    params = skill_params(ctx.store.config.section("skills"))

    def work(conn: Connection) -> dict[tuple[str, str], PairState]:
        cached = read_cache(conn)
        out: dict[tuple[str, str], PairState] = {}
        for member, skill in cached:
            track, status = pair_facts(conn, member, skill)
            state = state_from_events(
                member,
                skill,
                live_events(conn, member, skill),
                track,
                status or "active",
                cached[(member, skill)].native,
                params,
            )
            assert state is not None
            out[(member, skill)] = state
        return out

    return ctx.store.read(work)


def assert_cache_is_a_rebuild(ctx: Context) -> None:
    """The cache equals the service's rebuild and the pure per-pair rebuild."""
    assert check_cache(ctx) == []
    cached = ctx.store.read(read_cache)
    reference = pure_states(ctx)
    assert set(cached) == set(reference)
    different = [k for k in cached if not same_state(cached[k], reference[k])]
    assert different == [], [(cached[k], reference[k]) for k in different[:3]]
