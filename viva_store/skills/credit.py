"""Crediting one use: the hot path shared by every source of uses (DESIGN §3).

One credited use per (member, skill, session): the key is the session, or the
execution whose session it is (a live read is seen before the session is imported), or
— for a use tied to neither — the UTC day. A use is recorded only for a skill in the
member's set. The new event and the cache row are written in the caller's transaction;
the weight is folded in O(1) (``weights.fold``), so a use costs a handful of indexed
statements whatever the size of the log.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import bindparam, case, func, insert, or_, select, update

from viva_store.clock import as_utc
from viva_store.db.raw import NeedsCore, RawTx
from viva_store.db.schema import MEMBER_SKILL, SKILL_AXIS, SKILL_EVENT, STORE_META
from viva_store.errors import InvalidInput
from viva_store.skills.axis import (
    AXIS_KEY,
    axis_now,
    position_at,
    position_of_session,
)
from viva_store.skills.events import Prepared, Tx, day_of, finite
from viva_store.skills.forget import may_be_due, settle
from viva_store.skills.params import SkillParams
from viva_store.skills.refs import ExecutionRef, SessionRef
from viva_store.skills.state import COLUMNS, PairState
from viva_store.skills.weights import WeightEvent, WeightState, fold, weight_at


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


_CACHE_ROW = Prepared(
    select(*(MEMBER_SKILL.c[c] for c in COLUMNS)).where(
        MEMBER_SKILL.c.member == bindparam("member"), MEMBER_SKILL.c.skill == bindparam("skill")
    )
)
# The events logged before an instant all have ids up to the latest of them: ids follow
# the clock. Finding that id walks the `at` index once; the credit check then walks only
# the pair's events logged since, on (member, skill, id) — a few, however long the log.
_BEFORE = (
    select(SKILL_EVENT.c.id)
    .where(SKILL_EVENT.c.at < bindparam("since"))
    .order_by(SKILL_EVENT.c.at.desc())
    .limit(1)
)
_ID_BEFORE = Prepared(_BEFORE)
_CREDITED_Q = (
    select(SKILL_EVENT.c.id)
    .where(
        SKILL_EVENT.c.member == bindparam("member"),
        SKILL_EVENT.c.skill == bindparam("skill"),
        SKILL_EVENT.c.id > func.coalesce(_BEFORE.scalar_subquery(), 0),
        SKILL_EVENT.c.kind == "used",
        or_(
            SKILL_EVENT.c.session_id == bindparam("sid"),
            SKILL_EVENT.c.execution_id == bindparam("xid"),
        ),
    )
    .limit(1)
)
CREDITED = Prepared(_CREDITED_Q)
# The cached state and "now" on the member's axis, in one read with what the use needs.
_STATE_COLUMNS = (
    *(MEMBER_SKILL.c[c] for c in COLUMNS),
    select(STORE_META.c.value).where(STORE_META.c.key == bindparam("key")).scalar_subquery(),
)
_PAIR = (MEMBER_SKILL.c.member == bindparam("member"), MEMBER_SKILL.c.skill == bindparam("skill"))
_STATE = Prepared(select(*_STATE_COLUMNS).where(*_PAIR))
# For a key with a window (a session, an execution): the use already credited. Every use
# of the pair is at or before the latest event folded into its cache (a use is folded as
# it is logged), so when that was logged before the window there is none and the check
# is not even run.
_CHECK = case(
    (
        select(SKILL_EVENT.c.at)
        .where(SKILL_EVENT.c.id == MEMBER_SKILL.c.last_seq)
        .scalar_subquery()
        < bindparam("since", type_=SKILL_EVENT.c.at.type),
        None,
    ),
    else_=_CREDITED_Q.scalar_subquery(),
)
_STATE_CHECKED = Prepared(select(*_STATE_COLUMNS, _CHECK).where(*_PAIR))
# ... and, for a use in a session, the session's ordinal on the axis (``skill_axis``).
_ORDINAL = select(SKILL_AXIS.c.ordinal).where(
    SKILL_AXIS.c.member == bindparam("member"), SKILL_AXIS.c.session_id == bindparam("sid")
)
_STATE_IN_SESSION = Prepared(
    select(*_STATE_COLUMNS, _CHECK, _ORDINAL.scalar_subquery()).where(*_PAIR)
)
_CREDITED_DAY = Prepared(
    select(SKILL_EVENT.c.id)
    .where(
        SKILL_EVENT.c.member == bindparam("member"),
        SKILL_EVENT.c.skill == bindparam("skill"),
        SKILL_EVENT.c.id > bindparam("after"),
        SKILL_EVENT.c.kind == "used",
        SKILL_EVENT.c.at >= bindparam("start"),
        SKILL_EVENT.c.at < bindparam("end"),
        SKILL_EVENT.c.session_id.is_(None),
        SKILL_EVENT.c.execution_id.is_(None),
    )
    .limit(1)
)
EVENT_FIELDS = (
    "member",
    "skill",
    "kind",
    "value",
    "outcome",
    "session_id",
    "execution_id",
    "target_id",
    "track",
    "session_pos",
    "day",
    "at",
    "actor",
    "reason",
    "basis",
)
_INSERT_Q = insert(SKILL_EVENT).values(
    {f: bindparam(f, type_=SKILL_EVENT.c[f].type) for f in EVENT_FIELDS}
)
_INSERT = Prepared(_INSERT_Q)  # SQLite: the new id is the cursor's lastrowid
_INSERT_RETURNING = Prepared(_INSERT_Q.returning(SKILL_EVENT.c.id))
# The use folded into the cache row: the new weight, one more use, and `last_used_at`
# moved to the use's instant `used_at` if that is later (NULL: a use worth nothing, which
# leaves it as it is) — decided in SQL, so the hot path never parses the old value.
_USED_AT = bindparam("used_at", type_=MEMBER_SKILL.c.last_used_at.type)
UPDATE_CACHE = Prepared(
    update(MEMBER_SKILL)
    .where(
        MEMBER_SKILL.c.member == bindparam("k_member"), MEMBER_SKILL.c.skill == bindparam("k_skill")
    )
    .values(
        w_ref=bindparam("w_ref"),
        a_ref=bindparam("a_ref"),
        last_seq=bindparam("last_seq"),
        uses=MEMBER_SKILL.c.uses + 1,
        last_used_at=case(
            (
                or_(MEMBER_SKILL.c.last_used_at.is_(None), MEMBER_SKILL.c.last_used_at < _USED_AT),
                _USED_AT,
            ),
            else_=MEMBER_SKILL.c.last_used_at,
        ),
        updated_at=bindparam("updated_at", type_=MEMBER_SKILL.c.updated_at.type),
    )
)
SLACK = timedelta(minutes=10)
"""Clock slack allowed between a session's start and the uses recorded for it (the
harness's timestamps and Viva's clock are the same machine's, but may be stepped)."""
DAY = timedelta(days=1)


def cache_update(
    member: str, skill: str, folded: WeightState, used_at: datetime | None, now: datetime
) -> dict[str, Any]:
    """The parameters of :data:`UPDATE_CACHE` for a use folded into ``folded``
    (``used_at``: the use's instant, None for a use worth nothing)."""
    return {
        "k_member": member,
        "k_skill": skill,
        "w_ref": finite(folded.w_ref),
        "a_ref": finite(folded.a_ref),
        "last_seq": folded.last_seq,
        "used_at": used_at,
        "updated_at": as_utc(now),
    }


def logged_before(conn: Tx, at: datetime) -> int:
    """The id of the latest event logged before ``at`` (0: none), a lower bound for the
    ids of everything logged since (ids follow the clock; a clock set back by more than
    :data:`SLACK` could hide an earlier use from the check)."""
    row = _ID_BEFORE.first(conn, {"since": as_utc(at) - SLACK})
    return 0 if row is None else int(row[0])


def cache_row(conn: Tx, member: str, skill: str) -> PairState | None:
    """The cached state of one pair (None: never in the set)."""
    row = _CACHE_ROW.first(conn, {"member": member, "skill": skill})
    return None if row is None else PairState.from_row(row)


def append_event(conn: Tx, **values: Any) -> int:
    """Append one skill event (every field of :data:`EVENT_FIELDS`); returns its id."""
    fields = dict.fromkeys(EVENT_FIELDS)
    fields.update(values)
    at = fields["at"]
    assert isinstance(at, datetime), "an event needs its instant"
    fields["at"] = as_utc(at)
    fields["reason"] = fields["reason"] or ""
    if conn.dialect.name == "sqlite":
        return _INSERT.insert_id(conn, fields)
    row = _INSERT_RETURNING.first(conn, fields)
    assert row is not None
    return int(row[0])


def locate(
    conn: Tx,
    member: str,
    now_pos: int,
    session: SessionRef | None,
    execution: ExecutionRef | None,
    now: datetime,
) -> tuple[int, datetime]:
    """Where an event sits on the member's axis, and the instant it stands for."""
    if session is not None:
        return (
            position_of_session(conn, member, now_pos, session.id, session.started_at),
            session.started_at,
        )
    if execution is not None:
        return position_at(conn, member, now_pos, execution.started_at), execution.started_at
    return position_at(conn, member, now_pos, now), now


def window(session: SessionRef | None, execution: ExecutionRef | None, now: datetime) -> datetime:
    """The earliest instant a use under this key can have been logged (clock slack
    included): the key's UTC day, or the earliest of now and the session's and the
    execution's start."""
    if session is None and execution is None:
        return _day_start(now) - SLACK
    starts = [as_utc(now)]
    if session is not None:
        starts.append(session.started_at)
    if execution is not None:
        starts.append(execution.started_at)
    return min(starts) - SLACK


def _day_start(now: datetime) -> datetime:
    return as_utc(now).replace(hour=0, minute=0, second=0, microsecond=0)


def already_credited(
    conn: Tx,
    member: str,
    skill: str,
    session: SessionRef | None,
    execution: ExecutionRef | None,
    now: datetime,
) -> int | None:
    """The id of the use already credited under this key, if any."""
    if session is None and execution is None:
        start = _day_start(now)
        row = _CREDITED_DAY.first(
            conn,
            {
                "member": member,
                "skill": skill,
                "after": logged_before(conn, start),
                "start": start,
                "end": start + DAY,
            },
        )
        return None if row is None else int(row[0])
    row = CREDITED.first(
        conn,
        {
            "member": member,
            "skill": skill,
            "since": window(session, execution, now),
            "sid": session.id if session else None,
            "xid": execution.id if execution else None,
        },
    )
    return None if row is None else int(row[0])


def credit(
    conn: Tx,
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
    """Credit one use of ``skill`` by ``member`` (once per key), folding it into the cache.

    In a :class:`~viva_store.db.raw.RawTx` the rare cases that need Core (a forget may be
    due, the member's session count not cached) raise
    :class:`~viva_store.db.raw.NeedsCore` before anything is written.
    """
    value = finite(params.value_for(outcome))  # type: ignore[arg-type]
    keys: dict[str, Any] = {"member": member, "skill": skill, "key": AXIS_KEY + member}
    found: int | None = None
    ordinal: int | None = None
    if session is None and execution is None:
        row = _STATE.first(conn, keys)
    else:
        keys["since"] = window(session, execution, now)
        keys["sid"] = session.id if session else None
        keys["xid"] = execution.id if execution else None
        if session is None:
            row = _STATE_CHECKED.first(conn, keys)
        else:
            row = _STATE_IN_SESSION.first(conn, keys)
            if row is not None:
                ordinal, row = (None if row[-1] is None else int(row[-1])), row[:-1]
        if row is not None:
            found, row = (None if row[-1] is None else int(row[-1])), row[:-1]
    state = None if row is None else PairState.from_row(row[:-1])
    now_pos = int(row[-1]) if row is not None and row[-1] is not None else axis_now(conn, member)
    if state is not None and may_be_due(state, now_pos, day_of(now), params):
        # It may be due to be forgotten: that is settled before the use is taken, so
        # whether a use counts never depends on whether someone read the set in between.
        if isinstance(conn, RawTx):
            raise NeedsCore("a forget may be due: settled on the Core path")
        settle(conn, params, now, member)
        state = cache_row(conn, member, skill)
    if state is None or state.status != "active":
        raise InvalidInput(
            f"{skill} is not in {member}'s skill set"
            + (" (forgotten: `viva skill reclaim` takes it back)" if state is not None else "")
        )
    sid = session.id if session else None
    xid = execution.id if execution else None
    if session is None and execution is None:
        found = already_credited(conn, member, skill, None, None, now)
    if found is not None:
        weight = state.weight(now_pos, day_of(now), params)
        return Credit(member, skill, False, found, value, weight, sid, xid)
    if session is not None:
        tau = session.started_at
        pos = (
            ordinal
            if ordinal is not None
            else position_of_session(conn, member, now_pos, session.id, session.started_at)
        )
    else:
        pos, tau = locate(conn, member, now_pos, None, execution, now)
    day = day_of(tau)
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
        day=day,
        at=now,
        actor=actor,
        reason=reason,
        basis=basis,
    )
    folded = fold(
        state.weight_state,
        WeightEvent(event_id, "use", value, float(pos), day),
        state.track,
        params,
    )
    UPDATE_CACHE.run(conn, cache_update(member, skill, folded, tau if value > 0 else None, now))
    a_now = now_pos if state.track == "session" else day_of(now)
    return Credit(
        member,
        skill,
        True,
        event_id,
        value,
        weight_at(folded, a_now, state.track, params),
        sid,
        xid,
    )
