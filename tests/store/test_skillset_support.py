"""Helpers for the skill-set tests: a member's sessions on a clock the test drives.

Sessions are inserted as rows and filed through the real triage service, so every axis
change takes the same path (and the same weight rebuild) as in use. The clock is
``VIVA_NOW``; :class:`Axis` keeps it just after the member's latest session.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection, insert, update

from viva_store.config import Config
from viva_store.db.schema import SESSION, STORE_META
from viva_store.skills.axis import load_axes
from viva_store.skills.events import skill_params
from viva_store.skills.library import import_skills
from viva_store.skills.pair import load_pair_events, pair_facts, read_cache, same_state
from viva_store.skills.records import MemberSkillRecord
from viva_store.skills.skillset import check_cache, list_skills
from viva_store.skills.state import PairState, state_from_events
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


def pure_states(ctx: Context) -> dict[tuple[str, str], PairState]:
    """Every pair rebuilt one by one from its events with the pure maths (the reference)."""
    params = skill_params(ctx.store.config.section("skills"))

    def work(conn: Connection) -> dict[tuple[str, str], PairState]:
        cached = read_cache(conn)
        members = {m for m, _ in cached}
        axes = load_axes(conn, members)
        out: dict[tuple[str, str], PairState] = {}
        for member, skill in cached:
            track, status = pair_facts(conn, member, skill)
            events = load_pair_events(conn, member, skill, axes[member])
            state = state_from_events(
                member,
                skill,
                events,
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
