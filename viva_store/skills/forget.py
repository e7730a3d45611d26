"""Forgetting, applied before any read of a member's skills returns (DESIGN §3).

:func:`settle` asks the pure :func:`viva_store.skills.forgetting.decide` what is due for
one member now (its session count and today), then logs and applies it in the caller's
transaction: a ``forgotten`` event with its reason and basis, and the cache row's status
set to ``forgotten`` — nothing is deleted, and a reclaim brings the skill back.

During the trial month (the first ``trial_days`` after the store was created, from
``store_meta.created_at``) nothing is applied: each due forget is logged once as
``would_forget`` and shown as such. "Once": a ``would_forget`` is logged again only when
the decision changes — the skill's weight history moved on (a later use or entry), or
the reason differs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy import Connection, bindparam, insert, select, update

from viva_store.clock import as_utc, parse_instant
from viva_store.db.schema import MEMBER_SKILL, SKILL_EVENT, STORE_META
from viva_store.skills.axis import counts_at, session_count
from viva_store.skills.events import VIVA, day_of
from viva_store.skills.forgetting import ForgetDecision, SkillView, decide
from viva_store.skills.params import SkillParams
from viva_store.skills.state import PairState


@dataclass(frozen=True, slots=True)
class Settled:
    """A member's skill set right after forgetting was applied, and where "now" is."""

    member: str
    states: dict[str, PairState]
    decisions: list[ForgetDecision]
    now_pos: int
    now_day: float
    trial: bool
    last_use_pos: dict[str, float] = field(default_factory=dict)

    @property
    def would_forget(self) -> set[str]:
        """Skills due to be forgotten but kept because of the trial month."""
        return {d.name for d in self.decisions if not d.applied}

    def weight(self, skill: str, params: SkillParams) -> float:
        """A skill's weight now, on its track."""
        return self.states[skill].weight(self.now_pos, self.now_day, params)

    def protected(self, skill: str, params: SkillParams) -> bool:
        """True while the skill entered fewer than ``protect_sessions`` sessions ago."""
        return self.now_pos - self.states[skill].entered_pos < params.protect_sessions


def may_be_due(state: PairState, now_pos: int, now_day: float, params: SkillParams) -> bool:
    """Whether the low-weight rule could forget this skill now (a cheap necessary test).

    Its weight is below the threshold, its protection has lapsed, and it has been in the
    set at least the idle threshold (idleness is counted from the entry at the earliest).
    """
    if state.status != "active" or state.native:
        return False
    if now_pos - state.entered_pos < params.protect_sessions:
        return False
    on_sessions = state.track == "session"
    since = now_pos - state.entered_pos if on_sessions else now_day - state.entered_day
    if since < params.idle_threshold(state.track):
        return False
    return state.weight(now_pos, now_day, params) < params.forget_below


def created_at(conn: Connection) -> datetime | None:
    """When the store was created (starts the trial month)."""
    value = conn.execute(
        select(STORE_META.c.value).where(STORE_META.c.key == "created_at")
    ).scalar()
    return parse_instant(str(value)) if value else None


def in_trial(conn: Connection, params: SkillParams, now: datetime) -> bool:
    """True during the store's first ``trial_days``."""
    born = created_at(conn)
    return born is not None and now < born + timedelta(days=params.trial_days)


def load_states(conn: Connection, member: str) -> dict[str, PairState]:
    """The member's cached skill states, by skill."""
    rows = conn.execute(select(MEMBER_SKILL).where(MEMBER_SKILL.c.member == member))
    return {r.skill: PairState.from_row(r) for r in rows}


def views(
    conn: Connection,
    states: dict[str, PairState],
    now_pos: int,
    now_day: float,
    params: SkillParams,
) -> tuple[list[SkillView], dict[str, float]]:
    """What ``decide`` needs about each active skill, and each last use's position."""
    active = [s for s in states.values() if s.status == "active"]
    member = active[0].member if active else ""
    instants = [s.last_used_at for s in active if s.last_used_at is not None and not s.native]
    positions = counts_at(conn, {member: instants}) if instants else {}
    out: list[SkillView] = []
    used_pos: dict[str, float] = {}
    for s in active:
        pos: float | None = None
        day: float | None = None
        if s.last_used_at is not None and not s.native:  # natives are never forgotten
            day = day_of(s.last_used_at)
            pos = used_pos[s.skill] = float(positions[(member, as_utc(s.last_used_at))])
        out.append(
            SkillView(
                name=s.skill,
                native=s.native,
                track=s.track,
                weight_now=s.weight(now_pos, now_day, params),
                last_positive_use_pos=pos,
                last_positive_use_day=day,
                entered_pos=s.entered_pos,
                entered_day=s.entered_day,
                status_active=True,
            )
        )
    return out, used_pos


_LOGGED_SINCE = select(SKILL_EVENT.c.reason).where(
    SKILL_EVENT.c.member == bindparam("member"),
    SKILL_EVENT.c.skill == bindparam("skill"),
    SKILL_EVENT.c.id > bindparam("after"),
    SKILL_EVENT.c.kind == "would_forget",
)


def settle(conn: Connection, params: SkillParams, now: datetime, member: str) -> Settled:
    """Apply (or, in the trial month, log as would-forget) every forget due for ``member``."""
    states = load_states(conn, member)
    now_pos = session_count(conn, member)
    now_day = day_of(now)
    trial = in_trial(conn, params, now)
    skill_views, used_pos = views(conn, states, now_pos, now_day, params)
    decisions = decide(skill_views, now_pos, now_day, params, trial)
    for d in decisions:
        state = states[d.name]
        basis = {
            "rule": d.reason,
            "weight": d.weight,
            "idle": d.idle,
            "track": state.track,
            "now_pos": now_pos,
            "now_day": now_day,
            "entered_seq": state.epoch_seq,
            "last_seq": state.last_seq,
            "last_used_at": state.last_used_at.isoformat() if state.last_used_at else None,
        }
        if not d.applied:
            logged = conn.execute(
                _LOGGED_SINCE,
                {"member": member, "skill": d.name, "after": state.last_seq or 0},
            ).scalars()
            if d.reason in set(logged):
                continue
        conn.execute(
            insert(SKILL_EVENT).values(
                member=member,
                skill=d.name,
                kind="forgotten" if d.applied else "would_forget",
                session_pos=float(now_pos),
                day=now_day,
                at=now,
                actor=VIVA,
                reason=d.reason,
                basis=basis,
            )
        )
        if d.applied:
            conn.execute(
                update(MEMBER_SKILL)
                .where(MEMBER_SKILL.c.member == member, MEMBER_SKILL.c.skill == d.name)
                .values(status="forgotten", updated_at=now)
            )
            states[d.name] = PairState(**{**states[d.name].values(), "status": "forgotten"})
    return Settled(member, states, decisions, now_pos, now_day, trial, used_pos)
