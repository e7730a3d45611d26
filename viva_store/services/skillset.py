"""A member's skill set: membership, tracks, weights, forgetting (DESIGN §3; issue 5).

Everything is derived from the append-only skill event log (kinds in
:mod:`viva_store.services.skill_sql`); the ``member_skill`` cache always equals a
rebuild of it (:func:`check_cache`). Forgetting is applied before any read of a set
returns (:func:`viva_store.services.skill_forget.settle`).

Who may do what: a member may read its own set, record its own uses, add or reclaim a
skill for itself and change its tracks; it can never touch another member's. The owner
can do everything; only the owner syncs a skill from one member to another and corrects
a use. Uses are recorded in :mod:`viva_store.services.skill_uses`; projection is
:mod:`viva_store.services.skill_project`.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy import Connection, delete, insert, select, update

from viva_store.access import member_scope, require_owner, require_self_or_owner
from viva_store.clock import as_utc
from viva_store.errors import InvalidInput, NotFound
from viva_store.services.registry import reader
from viva_store.services.skill_axis import axis_now, cached_count, load_axes, position_at
from viva_store.services.skill_credit import append_event, cache_row
from viva_store.services.skill_forget import Settled, created_at, settle
from viva_store.services.skill_rebuild import (
    compute_states,
    load_pair_events,
    read_cache,
    rebuild_members,
    rebuild_pair,
    same_state,
)
from viva_store.services.skill_records import (
    MemberSkillRecord,
    SkillChange,
    SkillCurve,
    SkillEventRecord,
)
from viva_store.services.skill_sql import (
    MS,
    SE,
    SK,
    VIVA,
    M,
    actor_name,
    day_of,
    skill_params,
)
from viva_store.services.skill_state import PairState, entered
from viva_store.skills.curve import curve
from viva_store.skills.params import TRACKS, SkillParams
from viva_store.store import Context


def _params(ctx: Context) -> SkillParams:
    return skill_params(ctx.store.config.section("skills"))


def _natives(conn: Connection, member: str) -> set[str]:
    row = conn.execute(select(M.c.native_skills).where(M.c.name == member)).first()
    if row is None:
        raise NotFound(f"no member named {member!r} (see `viva members`)")
    return set(row.native_skills or ())


def _require_skill(conn: Connection, skill: str) -> None:
    if conn.execute(select(SK.c.name).where(SK.c.name == skill)).first() is None:
        raise NotFound(f"no skill named {skill!r} in the team library (see `viva skill library`)")


def _store(conn: Connection, state: PairState, now: datetime) -> None:
    conn.execute(delete(MS).where(MS.c.member == state.member, MS.c.skill == state.skill))
    conn.execute(insert(MS).values(**state.values(), updated_at=now))


def _enter(
    conn: Connection,
    params: SkillParams,
    now: datetime,
    member: str,
    skill: str,
    kind: str,
    actor: str,
    reason: str,
    basis: dict[str, object] | None = None,
) -> tuple[int, PairState]:
    """Log ``kind`` (added, synced, reclaimed) and put the skill in the set at weight 1.0."""
    previous = cache_row(conn, member, skill)
    now_pos = axis_now(conn, member)
    pos = position_at(conn, member, now_pos, now)
    day = day_of(now)
    event_id = append_event(
        conn,
        member=member,
        skill=skill,
        kind=kind,
        value=params.initial_weight,
        session_pos=float(pos),
        day=day,
        at=now,
        actor=actor,
        reason=reason,
        basis=basis,
    )
    track = previous.track if previous is not None else "session"
    state = entered(
        member, skill, event_id, float(pos), day, track, skill in _natives(conn, member), params
    )
    _store(conn, state, now)
    return event_id, state


def ensure_natives(ctx: Context) -> list[tuple[str, str]]:
    """Owner: every member's native skills (``soul.md``) are in its set, flagged native.

    Called after member definitions are loaded. A native that is missing (or was forgotten
    before it became native) enters with an ``added`` event, reason ``native``, actor viva.
    Returns the (member, skill) pairs that entered.
    """
    require_owner(ctx.actor, "load native skills")
    params = _params(ctx)
    now = ctx.store.now()

    def work(conn: Connection) -> list[tuple[str, str]]:
        library = set(conn.execute(select(SK.c.name)).scalars())
        added: list[tuple[str, str]] = []
        for member, natives in conn.execute(select(M.c.name, M.c.native_skills)).all():
            wanted = set(natives or ()) & library
            conn.execute(
                update(MS).where(MS.c.member == member).values(native=MS.c.skill.in_(wanted))
            )
            for skill in sorted(wanted):
                state = cache_row(conn, member, skill)
                if state is None or state.status != "active":
                    _enter(conn, params, now, member, skill, "added", VIVA, "native")
                    added.append((member, skill))
        return added

    return ctx.store.write(work)


def _change(ctx: Context, kind: str, event_id: int, state: PairState, message: str) -> SkillChange:
    return SkillChange(
        member=state.member,
        skill=state.skill,
        kind=kind,
        event_id=event_id,
        weight=state.w_ref,
        track=state.track,
        status=state.status,
        message=message,
    )


def add_skill(ctx: Context, member: str, skill: str, from_member: str | None = None) -> SkillChange:
    """Put a team skill into ``member``'s set at weight 1.0, protected for 10 sessions.

    The owner, or the member itself, adds. ``from_member`` makes it a sync — the skill
    spreads from that member's set — which only the owner does. A skill already in the
    set, or one the member forgot (reclaim it instead), is refused.
    """
    require_self_or_owner(ctx.actor, member, "add skills")
    if from_member is not None:
        require_owner(ctx.actor, "sync a skill from one member to another")
    params = _params(ctx)
    now = ctx.store.now()

    def work(conn: Connection) -> SkillChange:
        _natives(conn, member)
        _require_skill(conn, skill)
        state = cache_row(conn, member, skill)
        if state is not None and state.status == "active":
            raise InvalidInput(f"{skill} is already in {member}'s skill set")
        if state is not None:
            raise InvalidInput(
                f"{member} forgot {skill}; `viva skill reclaim {member} {skill}` takes it back"
            )
        basis: dict[str, object] | None = None
        kind, reason = "added", "added"
        if from_member is not None:
            _natives(conn, from_member)
            source = cache_row(conn, from_member, skill)
            if source is None or source.status != "active":
                raise InvalidInput(f"{skill} is not in {from_member}'s skill set")
            kind, reason, basis = "synced", f"synced from {from_member}", {"from": from_member}
        event_id, new = _enter(
            conn, params, now, member, skill, kind, actor_name(ctx.actor.member), reason, basis
        )
        return _change(ctx, kind, event_id, new, f"{skill} entered {member}'s set ({reason})")

    return ctx.store.write(work)


def reclaim_skill(ctx: Context, member: str, skill: str) -> SkillChange:
    """Take a forgotten skill back: weight 1.0 and a fresh protection, no approval needed."""
    require_self_or_owner(ctx.actor, member, "reclaim skills")
    params = _params(ctx)
    now = ctx.store.now()

    def work(conn: Connection) -> SkillChange:
        _natives(conn, member)
        _require_skill(conn, skill)
        state = cache_row(conn, member, skill)
        if state is None:
            raise InvalidInput(
                f"{skill} was never in {member}'s set; `viva skill add {member} {skill}` adds it"
            )
        if state.status == "active":
            raise InvalidInput(f"{skill} is in {member}'s skill set already")
        event_id, new = _enter(
            conn,
            params,
            now,
            member,
            skill,
            "reclaimed",
            actor_name(ctx.actor.member),
            "reclaimed",
        )
        return _change(ctx, "reclaimed", event_id, new, f"{member} reclaimed {skill}")

    return ctx.store.write(work)


def set_track(ctx: Context, member: str, skill: str, track: str) -> SkillChange:
    """Move a skill to the session or the time track; its weight is recomputed from the log."""
    require_self_or_owner(ctx.actor, member, "change skill tracks")
    if track not in TRACKS:
        raise InvalidInput(f"track: expected session or time, got {track!r}")
    params = _params(ctx)
    now = ctx.store.now()

    def work(conn: Connection) -> SkillChange:
        state = cache_row(conn, member, skill)
        if state is None:
            raise InvalidInput(f"{skill} was never in {member}'s skill set")
        if state.track == track:
            raise InvalidInput(f"{skill} is on the {track} track already")
        axis = load_axes(conn, [member])[member]
        event_id = append_event(
            conn,
            member=member,
            skill=skill,
            kind="track_changed",
            track=track,
            session_pos=float(axis.count_at(now)),
            day=day_of(now),
            at=now,
            actor=actor_name(ctx.actor.member),
            reason=f"{state.track} → {track}",
            basis={"from": state.track},
        )
        new = rebuild_pair(conn, params, member, skill, axis, now)
        assert new is not None
        return _change(ctx, "track_changed", event_id, new, f"{skill} is on the {track} track")

    return ctx.store.write(work)


def _settled(ctx: Context, member: str, action: str) -> Settled:
    require_self_or_owner(ctx.actor, member, action)
    params = _params(ctx)
    now = ctx.store.now()

    def work(conn: Connection) -> Settled:
        _natives(conn, member)
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
    query = select(SE).where(SE.c.member == member, member_scope(ctx.actor, SE.c.member))
    if skill is not None:
        query = query.where(SE.c.skill == skill)
    query = query.order_by(SE.c.id.desc())
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
        axis = load_axes(conn, [member])[member]
        events = load_pair_events(conn, member, skill, axis)
        a_now = float(axis.now) if state.track == "session" else day_of(now)
        a_from = min((e.session_pos if state.track == "session" else e.day) for e in events)
        c = curve(events, state.track, params, min(a_from, a_now), a_now)
        due = None if state.native else c.forget_due_at
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
    return len(ctx.store.write(lambda c: rebuild_members(c, params, now, members)))


def check_cache(ctx: Context, member: str | None = None) -> list[str]:
    """Owner: where the cache differs from a rebuild of the log (empty: it is equal)."""
    require_owner(ctx.actor, "check skill weights")
    params = _params(ctx)
    now = ctx.store.now()
    members = None if member is None else [member]

    def work(conn: Connection) -> list[str]:
        rebuilt, axes = compute_states(conn, params, now, members)
        cached = read_cache(conn, members)
        problems = [
            f"{k[0]}/{k[1]}: cache {cached.get(k)} ≠ rebuild {rebuilt.get(k)}"
            for k in sorted(set(rebuilt) | set(cached))
            if k not in cached or k not in rebuilt or not same_state(cached[k], rebuilt[k])
        ]
        for name, axis in axes.items():
            if cached_count(conn, name) not in (None, axis.now):
                problems.append(f"{name}: cached session count ≠ {axis.now}")
        return problems

    return ctx.store.read(work)
