"""Membership of a member's skill set: natives, add, sync, reclaim, track (DESIGN §3).

Each change is an event of the skill log (``added`` — reason ``native`` for a native —,
``synced``, ``reclaimed``, ``track_changed``) and updates the pair's cache row in the
same transaction. Entering the set gives weight 1.0 and a fresh protection.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Connection, select, update

from viva_store.access import require_owner, require_self_or_owner
from viva_store.db.schema import MEMBER, MEMBER_SKILL, SKILL
from viva_store.errors import InvalidInput, NotFound
from viva_store.skills.axis import position_at
from viva_store.skills.events import VIVA, actor_name, append_event, day_of, skill_params
from viva_store.skills.pair import rebuild_pair
from viva_store.skills.params import TRACKS, SkillParams
from viva_store.skills.records import SkillChange
from viva_store.skills.state import PairState, cache_row, entered, store_state
from viva_store.store import Context


def _params(ctx: Context) -> SkillParams:
    return skill_params(ctx.store.config.section("skills"))


def natives_of(conn: Connection, member: str) -> set[str]:
    """``member``'s native skills; :class:`NotFound` if there is no such member."""
    row = conn.execute(select(MEMBER.c.native_skills).where(MEMBER.c.name == member)).first()
    if row is None:
        raise NotFound(f"no member named {member!r} (see `viva members`)")
    return set(row.native_skills or ())


def _require_skill(conn: Connection, skill: str) -> None:
    if conn.execute(select(SKILL.c.name).where(SKILL.c.name == skill)).first() is None:
        raise NotFound(f"no skill named {skill!r} in the team library (see `viva skill library`)")


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
    pos = position_at(conn, member, now)
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
        member, skill, event_id, float(pos), day, track, skill in natives_of(conn, member), params
    )
    store_state(conn, state, now)
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
        library = set(conn.execute(select(SKILL.c.name)).scalars())
        added: list[tuple[str, str]] = []
        for member, natives in conn.execute(select(MEMBER.c.name, MEMBER.c.native_skills)).all():
            wanted = set(natives or ()) & library
            conn.execute(
                update(MEMBER_SKILL)
                .where(MEMBER_SKILL.c.member == member)
                .values(native=MEMBER_SKILL.c.skill.in_(wanted))
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
        natives_of(conn, member)
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
            natives_of(conn, from_member)
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
        natives_of(conn, member)
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
        event_id = append_event(
            conn,
            member=member,
            skill=skill,
            kind="track_changed",
            track=track,
            session_pos=float(position_at(conn, member, now)),
            day=day_of(now),
            at=now,
            actor=actor_name(ctx.actor.member),
            reason=f"{state.track} → {track}",
            basis={"from": state.track},
        )
        new = rebuild_pair(conn, params, member, skill, now)
        assert new is not None
        return _change(ctx, "track_changed", event_id, new, f"{skill} is on the {track} track")

    return ctx.store.write(work)
