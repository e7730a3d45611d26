"""A member's skill set: membership, tracks, weights, forgetting (DESIGN §3).

Everything is derived from the append-only skill event log (kinds in
:mod:`viva_store.skills.events`); the ``member_skill`` cache always equals a
rebuild of it (:func:`check_cache`). Forgetting is applied before any read of a set
returns (:func:`viva_store.skills.forget.settle`).

Who may do what: a member may read its own set, record its own uses, add or reclaim a
skill for itself and change its tracks; it can never touch another member's. The owner
can do everything; only the owner syncs a skill from one member to another and corrects
a use. Uses are recorded in :mod:`viva_store.skills.uses`; projection is
:mod:`viva_store.skills.project`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Connection, select

from viva_store.access import member_scope, require_owner, require_self_or_owner
from viva_store.clock import as_utc
from viva_store.db.schema import SKILL_EVENT
from viva_store.errors import NotFound
from viva_store.registry import reader
from viva_store.skills.axis import refresh_axes, session_count, stale_axes
from viva_store.skills.curve import curve
from viva_store.skills.events import day_of, instant_of_day, skill_params
from viva_store.skills.forget import Settled, created_at, settle
from viva_store.skills.membership import (
    add_skill,
    ensure_natives,
    natives_of,
    reclaim_skill,
    set_track,
)
from viva_store.skills.pair import load_events
from viva_store.skills.params import SkillParams
from viva_store.skills.rebuild import compute_states, member_names, rebuild_members
from viva_store.skills.records import (
    MemberSkillRecord,
    SkillCurve,
    SkillEventRecord,
)
from viva_store.skills.state import read_cache, same_state
from viva_store.store import Context

__all__ = [
    "add_skill",
    "check_cache",
    "ensure_natives",
    "list_skills",
    "rebuild_skills",
    "reclaim_skill",
    "set_track",
    "skill_curve",
    "skill_history",
    "skill_parameters",
    "status_of",
    "trial_until",
]


def _params(ctx: Context) -> SkillParams:
    return skill_params(ctx.store.config.section("skills"))


def skill_parameters(ctx: Context) -> SkillParams:
    """The store's skill numbers: config.toml ``[skills]`` over the defaults (a demo store
    decays faster). Help texts and dialogs quote these, never the defaults."""
    return _params(ctx)


def _settled(ctx: Context, member: str, action: str) -> Settled:
    require_self_or_owner(ctx.actor, member, action)
    params = _params(ctx)
    now = ctx.store.now()

    def work(conn: Connection) -> Settled:
        natives_of(conn, member)
        return settle(conn, params, now, member)

    return ctx.store.write(work)


def status_of(settled: Settled, skill: str, params: SkillParams) -> str:
    """``forgotten``, ``native``, ``would_forget``, ``protected`` or ``active``."""
    state = settled.states[skill]
    if state.status == "forgotten":
        return "forgotten"
    if state.native:
        return "native"
    if skill in settled.would_forget:
        return "would_forget"
    if settled.protected(skill, params):
        return "protected"
    return "active"


@reader
def list_skills(
    ctx: Context, member: str, include_forgotten: bool = False
) -> list[MemberSkillRecord]:
    """``member``'s skill set, heaviest first (forgotten ones too with ``include_forgotten``)."""
    params = _params(ctx)
    settled = _settled(ctx, member, "read the skill set")
    reasons = {d.name: d.reason for d in settled.decisions}
    out: list[MemberSkillRecord] = []
    for skill, state in settled.states.items():
        status = status_of(settled, skill, params)
        if status == "forgotten" and not include_forgotten:
            continue
        protected = state.entered_pos + params.protect_sessions
        out.append(
            MemberSkillRecord(
                name=skill,
                weight=settled.weight(skill, params),
                track=state.track,
                status=status,
                last_used=state.last_used_at,
                uses=state.uses,
                native=state.native,
                in_set=state.status == "active",
                entered_pos=state.entered_pos,
                protected_until_pos=protected if status == "protected" else None,
                forget_reason=reasons.get(skill),
            )
        )
    return sorted(out, key=lambda r: (not r.in_set, -r.weight, r.name))


@reader
def skill_history(
    ctx: Context, member: str, skill: str | None = None, limit: int | None = 200
) -> list[SkillEventRecord]:
    """``member``'s skill events, newest first (one skill's with ``skill``)."""
    _settled(ctx, member, "read the skill history")
    query = select(SKILL_EVENT).where(
        SKILL_EVENT.c.member == member, member_scope(ctx.actor, SKILL_EVENT.c.member)
    )
    if skill is not None:
        query = query.where(SKILL_EVENT.c.skill == skill)
    query = query.order_by(SKILL_EVENT.c.id.desc())
    if limit is not None:
        query = query.limit(limit)
    rows = ctx.store.read(lambda c: list(c.execute(query)))
    return [
        SkillEventRecord(
            id=r.id,
            member=r.member,
            skill=r.skill,
            kind=r.kind,
            value=r.value,
            outcome=r.outcome,
            session_id=r.session_id,
            execution_id=r.execution_id,
            target_id=r.target_id,
            track=r.track,
            session_pos=r.session_pos,
            day=r.day,
            at=as_utc(r.at),
            actor=r.actor,
            reason=r.reason,
            basis=r.basis,
        )
        for r in rows
    ]


@reader
def skill_curve(ctx: Context, member: str, skill: str) -> SkillCurve:
    """One skill's weight history on its track and its decay to come (``viva skill curve``)."""
    params = _params(ctx)
    settled = _settled(ctx, member, "read skill curves")
    state = settled.states.get(skill)
    if state is None:
        raise NotFound(f"{skill} was never in {member}'s skill set")
    now = ctx.store.now()

    def work(conn: Connection) -> SkillCurve:
        events = load_events(conn, [(member, skill)])[(member, skill)]
        a_now = float(session_count(conn, member)) if state.track == "session" else day_of(now)
        a_from = min((e.session_pos if state.track == "session" else e.day) for e in events)
        c = curve(events, state.track, params, min(a_from, a_now), a_now)
        due = None if state.native else c.forget_due_at
        timed = state.track == "time"

        def on(a: float | None) -> datetime | None:
            return instant_of_day(a) if timed and a is not None else None

        return SkillCurve(
            member=member,
            skill=skill,
            track=state.track,
            status=status_of(settled, skill, params),
            a_now=a_now,
            weight_now=c.weight_now,
            forget_below=params.forget_below,
            crosses_at=c.crosses_at,
            forget_due_at=due,
            protected_until_pos=c.protected_until_pos,
            points=tuple(c.points),
            marks=tuple(c.marks),
            projection=tuple(c.projection),
            now=on(a_now),
            crosses_on=on(c.crosses_at),
            forget_due_on=on(due),
        )

    return ctx.store.read(work)


def trial_until(ctx: Context) -> datetime | None:
    """When the forgetting trial ends, while it runs (None once it is over)."""
    params = _params(ctx)
    born = ctx.store.read(created_at)
    if born is None:
        return None
    end = born + timedelta(days=params.trial_days)
    return end if ctx.store.now() < end else None


def rebuild_skills(ctx: Context, member: str | None = None) -> int:
    """Owner: rebuild the cache of one member (all when None) from the log; returns rows."""
    require_owner(ctx.actor, "rebuild skill weights")
    params = _params(ctx)
    now = ctx.store.now()
    members = None if member is None else [member]

    def work(conn: Connection) -> int:
        refresh_axes(conn, members)  # the axis rows too: a rebuild trusts nothing derived
        return len(rebuild_members(conn, params, now, members))

    return ctx.store.write(work)


def check_cache(ctx: Context, member: str | None = None) -> list[str]:
    """Owner: where the cache differs from a rebuild of the log (empty: it is equal)."""
    require_owner(ctx.actor, "check skill weights")
    params = _params(ctx)
    now = ctx.store.now()
    members = None if member is None else [member]

    def work(conn: Connection) -> list[str]:
        rebuilt = compute_states(conn, params, now, members)
        cached = read_cache(conn, members)
        problems = [
            f"{k[0]}/{k[1]}: cache {cached.get(k)} ≠ rebuild {rebuilt.get(k)}"
            for k in sorted(set(rebuilt) | set(cached))
            if k not in cached or k not in rebuilt or not same_state(cached[k], rebuilt[k])
        ]
        for name in stale_axes(conn, member_names(conn, members)):
            problems.append(f"{name}: the stored session axis differs from attribution")
        return problems

    return ctx.store.read(work)
