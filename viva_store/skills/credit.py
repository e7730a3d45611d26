"""Crediting one use (DESIGN §3), whatever its source: the one implementation.

A use is keyed by the session it belongs to, or by the execution whose session it is (a
live read is seen before the session is imported), or — for a use tied to neither — by
the UTC day; each key is credited once per (member, skill). A use counts only for a
skill in the member's set, and a forget that is due is settled first, so whether a use
counts never depends on whether someone read the set in between. The event and the
cache row are written in the caller's write transaction, the weight folded in O(1)
(:func:`viva_store.skills.weights.fold`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Row, bindparam, func, or_, select, update

from viva_store.access import Actor
from viva_store.clock import as_utc
from viva_store.db.schema import (
    CLASSIFICATION,
    EXECUTION,
    INSTANT,
    MEMBER_SKILL,
    SKILL_AXIS,
    SKILL_EVENT,
)
from viva_store.errors import InvalidInput
from viva_store.skills.axis import position_at, session_count
from viva_store.skills.events import append_event, day_of, finite
from viva_store.skills.forget import may_be_due, settle
from viva_store.skills.params import SkillParams
from viva_store.skills.state import PairState, cache_row
from viva_store.skills.weights import WeightEvent, fold

SLACK = timedelta(minutes=10)
"""Clock slack allowed between a session's start and the uses recorded for it (the
harness's timestamps and Viva's clock are the same machine's, but may be stepped)."""
DAY = timedelta(days=1)


@dataclass(frozen=True, slots=True)
class SessionRef:
    """A session on the member's axis, and its ordinal there."""

    id: str
    started_at: datetime
    ordinal: int


@dataclass(frozen=True, slots=True)
class ExecutionRef:
    """A Viva execution of the member (its session may not be imported yet)."""

    id: str
    member: str
    started_at: datetime
    outcome: str | None
    ended: bool


@dataclass(frozen=True, slots=True)
class Credit:
    """What crediting did: ``credited`` is False when the key already had its use."""

    member: str
    skill: str
    credited: bool
    event_id: int | None
    value: float
    weight: float
    session_id: str | None
    execution_id: str | None


# The statements of a use, built once: each call binds its values.
_ON_AXIS = select(SKILL_AXIS.c.started_at, SKILL_AXIS.c.ordinal).where(
    SKILL_AXIS.c.member == bindparam("member"), SKILL_AXIS.c.session_id == bindparam("sid")
)
_EXECUTION_OF_GRANT = (
    select(EXECUTION)
    .where(EXECUTION.c.grant_id == bindparam("grant"))
    .order_by(EXECUTION.c.started_at.desc())
    .limit(1)
)
_EXECUTION_BY_ID = select(EXECUTION).where(
    EXECUTION.c.id == bindparam("xid"), EXECUTION.c.member == bindparam("member")
)
_SESSION_OF_EXECUTION = (
    select(CLASSIFICATION.c.session_id)
    .where(
        CLASSIFICATION.c.execution_id == bindparam("xid"), CLASSIFICATION.c.action == "execution"
    )
    .order_by(CLASSIFICATION.c.id.desc())
    .limit(1)
)
# Ids follow the clock: the pair's uses since an instant all come after the latest event
# logged before it, so a credit check walks a few of the pair's events, however long the log.
_LOGGED_BEFORE = (
    select(SKILL_EVENT.c.id)
    .where(SKILL_EVENT.c.at < bindparam("since", type_=INSTANT))
    .order_by(SKILL_EVENT.c.at.desc())
    .limit(1)
    .scalar_subquery()
)
_PAIR_USES = (
    SKILL_EVENT.c.member == bindparam("member"),
    SKILL_EVENT.c.skill == bindparam("skill"),
    SKILL_EVENT.c.id > func.coalesce(_LOGGED_BEFORE, 0),
    SKILL_EVENT.c.kind == "used",
)
_CREDITED_IN = (
    select(SKILL_EVENT.c.id)
    .where(
        *_PAIR_USES,
        # A key left NULL matches nothing (``= NULL``): one statement for a session, an
        # execution, or both.
        or_(
            SKILL_EVENT.c.session_id == bindparam("sid"),
            SKILL_EVENT.c.execution_id == bindparam("xid"),
        ),
    )
    .limit(1)
)
_CREDITED_ON_DAY = (
    select(SKILL_EVENT.c.id)
    .where(
        *_PAIR_USES,
        SKILL_EVENT.c.at >= bindparam("start", type_=INSTANT),
        SKILL_EVENT.c.at < bindparam("end", type_=INSTANT),
        SKILL_EVENT.c.session_id.is_(None),
        SKILL_EVENT.c.execution_id.is_(None),
    )
    .limit(1)
)
_FOLD = update(MEMBER_SKILL).where(
    MEMBER_SKILL.c.member == bindparam("k_member"), MEMBER_SKILL.c.skill == bindparam("k_skill")
)


def session_ref(conn: Connection, member: str, session_id: str) -> SessionRef | None:
    """The session, if it is on ``member``'s axis."""
    row = conn.execute(_ON_AXIS, {"member": member, "sid": session_id}).first()
    return None if row is None else SessionRef(session_id, as_utc(row[0]), int(row[1]))


def execution_ref(row: Row[Any]) -> ExecutionRef:
    """An ``execution`` row as crediting needs it."""
    return ExecutionRef(
        row.id, row.member, as_utc(row.started_at), row.outcome, row.ended_at is not None
    )


def execution_of(conn: Connection, actor: Actor, execution_id: str | None) -> ExecutionRef | None:
    """The execution a member acts in: the one its grant was minted for, else the id given."""
    if actor.is_owner:
        return None
    row = None
    if actor.grant_id is not None:
        row = conn.execute(_EXECUTION_OF_GRANT, {"grant": actor.grant_id}).first()
    if row is None and execution_id:
        row = conn.execute(_EXECUTION_BY_ID, {"xid": execution_id, "member": actor.member}).first()
    return None if row is None else execution_ref(row)


def session_of_execution(conn: Connection, member: str, execution_id: str) -> SessionRef | None:
    """The session an execution's record attributed, if it is on the member's axis."""
    sid = conn.execute(_SESSION_OF_EXECUTION, {"xid": execution_id}).scalar()
    return None if sid is None else session_ref(conn, member, str(sid))


def locate(
    conn: Connection,
    member: str,
    session: SessionRef | None,
    execution: ExecutionRef | None,
    now: datetime,
) -> tuple[int, datetime]:
    """Where an event sits on the member's axis, and the instant it stands for."""
    if session is not None:
        return session.ordinal, session.started_at
    at = execution.started_at if execution is not None else as_utc(now)
    return position_at(conn, member, at), at


def already_credited(
    conn: Connection,
    member: str,
    skill: str,
    session: SessionRef | None,
    execution: ExecutionRef | None,
    now: datetime,
) -> int | None:
    """The id of the use already credited under this key, if any: in the session or the
    execution, or — tied to neither — on the UTC day. Only what was logged since the
    key's window opened (the day's start, or the earliest of now and the session's and
    the execution's start; clock slack included) is looked at."""
    keys: dict[str, Any] = {"member": member, "skill": skill}
    if session is None and execution is None:
        start = as_utc(now).replace(hour=0, minute=0, second=0, microsecond=0)
        keys.update(since=start - SLACK, start=start, end=start + DAY)
        found = conn.execute(_CREDITED_ON_DAY, keys).scalar()
    else:
        starts = [as_utc(now)]
        starts += [session.started_at] if session is not None else []
        starts += [execution.started_at] if execution is not None else []
        keys.update(
            since=min(starts) - SLACK,
            sid=session.id if session is not None else None,
            xid=execution.id if execution is not None else None,
        )
        found = conn.execute(_CREDITED_IN, keys).scalar()
    return None if found is None else int(found)


def credit(
    conn: Connection,
    params: SkillParams,
    now: datetime,
    member: str,
    skill: str,
    outcome: str,
    session: SessionRef | None,
    execution: ExecutionRef | None,
    actor: str,
    reason: str,
    basis: dict[str, Any] | None = None,
) -> Credit:
    """Credit one use of ``skill`` by ``member`` (once per key), folding it into the cache."""
    value = finite(params.value_for(outcome))  # type: ignore[arg-type]
    now_pos, now_day = session_count(conn, member), day_of(now)
    state = cache_row(conn, member, skill)
    if state is not None and may_be_due(state, now_pos, now_day, params):
        settle(conn, params, now, member)
        state = cache_row(conn, member, skill)
    if state is None or state.status != "active":
        raise InvalidInput(
            f"{skill} is not in {member}'s skill set"
            + (" (forgotten: `viva skill reclaim` takes it back)" if state is not None else "")
        )
    sid = session.id if session else None
    xid = execution.id if execution else None
    found = already_credited(conn, member, skill, session, execution, now)
    if found is not None:
        weight = state.weight(now_pos, now_day, params)
        return Credit(member, skill, False, found, value, weight, sid, xid)
    pos, tau = locate(conn, member, session, execution, now)
    event_id = append_event(
        conn,
        member=member,
        skill=skill,
        kind="used",
        value=value,
        outcome=outcome,
        session_id=sid,
        execution_id=xid,
        session_pos=float(pos),
        day=day_of(tau),
        at=now,
        actor=actor,
        reason=reason,
        basis=basis,
    )
    use = WeightEvent(event_id, "use", value, float(pos), day_of(tau))
    new = _used(state.with_weight(fold(state.weight_state, use, state.track, params)), tau, value)
    conn.execute(
        _FOLD,
        {
            "k_member": member,
            "k_skill": skill,
            "w_ref": new.w_ref,
            "a_ref": new.a_ref,
            "last_seq": new.last_seq,
            "uses": new.uses,
            "last_used_at": new.last_used_at,
            "updated_at": as_utc(now),
        },
    )
    weight = new.weight(now_pos, now_day, params)
    return Credit(member, skill, True, event_id, value, weight, sid, xid)


def _used(state: PairState, tau: datetime, value: float) -> PairState:
    """``state`` with one more use; a use worth more than nothing is its latest use if it
    stands for a later instant."""
    last = state.last_used_at
    if value > 0 and (last is None or last < tau):
        last = tau
    return replace(state, uses=state.uses + 1, last_used_at=last)
