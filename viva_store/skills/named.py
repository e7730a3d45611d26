"""``viva skill use M S --session ID`` in the DBAPI transaction: the hot path of a use.

One read gives everything the use needs: the session named exactly (Viva's id or the
harness's; at most two rows, one means unambiguous) with what puts it on an axis, its
ordinal on the member's axis (``skill_axis``), the pair's cached state, the member's
session count, and the instant of the pair's latest folded event (the credit check is
needed only when it falls inside the session's window). On PostgreSQL the same read also
takes the new event's id from its sequence, so that the event and the cache row are then
written by one statement: with BEGIN and COMMIT, four round trips a use. SQLite inserts
the event (its id is the cursor's ``lastrowid``) and updates the cache row.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import and_, bindparam, func, insert, or_, select

from viva_store.clock import as_utc
from viva_store.db.raw import NeedsCore, RawTx
from viva_store.db.schema import (
    ATTRIBUTION,
    MEMBER_SKILL,
    SESSION,
    SKILL_AXIS,
    SKILL_EVENT,
    STORE_META,
)
from viva_store.errors import InvalidInput
from viva_store.skills.axis import AXIS_KEY
from viva_store.skills.credit import (
    CREDITED,
    EVENT_FIELDS,
    SLACK,
    UPDATE_CACHE,
    Credit,
    append_event,
    cache_update,
)
from viva_store.skills.events import Prepared, day_of, db_instant, finite, to_datetime
from viva_store.skills.forget import could_forget
from viva_store.skills.params import SkillParams
from viva_store.skills.weights import WeightEvent, WeightState, fold, weight_at

HOT_COLUMNS = (
    "track",
    "status",
    "native",
    "w_ref",
    "a_ref",
    "epoch_seq",
    "last_seq",
    "entered_pos",
    "entered_day",
)
_COLUMNS = (
    SESSION.c.id,
    SESSION.c.started_at,
    SESSION.c.relation,
    ATTRIBUTION.c.status,
    ATTRIBUTION.c.member,
    *(MEMBER_SKILL.c[c] for c in HOT_COLUMNS),
    select(STORE_META.c.value).where(STORE_META.c.key == bindparam("key")).scalar_subquery(),
    select(SKILL_EVENT.c.at).where(SKILL_EVENT.c.id == MEMBER_SKILL.c.last_seq).scalar_subquery(),
    select(SKILL_AXIS.c.ordinal)
    .where(SKILL_AXIS.c.member == bindparam("member"), SKILL_AXIS.c.session_id == SESSION.c.id)
    .scalar_subquery(),
)
_FROM = SESSION.outerjoin(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id).outerjoin(
    MEMBER_SKILL,
    and_(MEMBER_SKILL.c.member == bindparam("member"), MEMBER_SKILL.c.skill == bindparam("skill")),
)
_NAMED = or_(SESSION.c.id == bindparam("ref"), SESSION.c.native_id == bindparam("ref"))
_NAMED_STATE = Prepared(select(*_COLUMNS).select_from(_FROM).where(_NAMED).limit(2))
_NAMED_STATE_NEXT_ID = Prepared(
    select(*_COLUMNS, func.nextval("skill_event_id_seq")).select_from(_FROM).where(_NAMED).limit(2)
)
# PostgreSQL: the event (its id taken by the read) and the fold into the cache row in one
# statement — the INSERT as a data-modifying CTE of the cache row's UPDATE.
_EVENT = (
    insert(SKILL_EVENT)
    .values(
        id=bindparam("id", type_=SKILL_EVENT.c.id.type),
        **{f: bindparam(f, type_=SKILL_EVENT.c[f].type) for f in EVENT_FIELDS},
    )
    .cte("event")
)
_USE = Prepared(UPDATE_CACHE.statement.add_cte(_EVENT))  # type: ignore[attr-defined]


def _state(tx: RawTx, member: str, skill: str, ref: str) -> tuple[Any, ...]:
    keys = {"ref": ref, "member": member, "skill": skill, "key": AXIS_KEY + member}
    pg = tx.dialect.name != "sqlite"
    rows = (_NAMED_STATE_NEXT_ID if pg else _NAMED_STATE).rows(tx, keys)
    if len(rows) != 1:
        raise NeedsCore("the session is not named exactly: resolved on the Core path")
    return rows[0] if pg else (*rows[0], None)


def credit_named_session(
    tx: RawTx,
    params: SkillParams,
    now: datetime,
    member: str,
    skill: str,
    outcome: str,
    ref: str,
    actor: str,
    reason: str,
) -> Credit:
    """:func:`~viva_store.skills.credit.credit` for a use in the session ``ref``
    names exactly, in the DBAPI transaction: one read, then the event and the cache row —
    the same rules, taken over by the Core path (:class:`~viva_store.db.raw.NeedsCore`,
    nothing written) for a name that is not exact, a forget that may be due, an uncached
    count or a session whose place on the axis is not stored.
    """
    value = finite(params.value_for(outcome))  # type: ignore[arg-type]
    now = as_utc(now)
    (
        sid,
        started_raw,
        relation,
        status,
        owner,
        track,
        state_status,
        native,
        w_ref,
        a_ref,
        epoch_seq,
        last_seq,
        entered_pos,
        entered_day,
        count,
        last_at,
        ordinal,
        next_id,
    ) = _state(tx, member, skill, ref)
    if status != "attributed" or owner != member or started_raw is None or relation == "subagent":
        raise NeedsCore("the session is not on the member's axis: reported on the Core path")
    if count is None or ordinal is None:
        raise NeedsCore("the member's session count or the session's ordinal is not stored")
    now_pos = int(count)
    now_day = day_of(now)
    if track is not None and could_forget(
        state_status,
        bool(native),
        track,
        float(entered_pos),
        float(entered_day),
        float(w_ref),
        float(a_ref),
        now_pos,
        now_day,
        params,
    ):
        raise NeedsCore("a forget may be due: settled on the Core path")
    if track is None or state_status != "active":
        raise InvalidInput(
            f"{skill} is not in {member}'s skill set"
            + (" (forgotten: `viva skill reclaim` takes it back)" if track is not None else "")
        )
    started = to_datetime(started_raw)
    assert started is not None
    sid = str(sid)
    state = WeightState(float(w_ref), float(a_ref), epoch_seq, last_seq)
    since = min(started, now) - SLACK
    # Every use of the pair is at or before its latest folded event: when that was logged
    # before the session's window, no use of this session can exist.
    if last_at is None or not last_at < db_instant(tx.dialect, since):
        row = CREDITED.first(
            tx, {"member": member, "skill": skill, "since": since, "sid": sid, "xid": None}
        )
        if row is not None:
            a_now = now_pos if track == "session" else now_day
            weight = weight_at(state, a_now, track, params)
            return Credit(member, skill, False, int(row[0]), value, weight, sid, None)
    pos = float(ordinal)
    day = day_of(started)
    event = dict.fromkeys(EVENT_FIELDS)
    event.update(
        member=member,
        skill=skill,
        kind="used",
        value=value,
        outcome=outcome,
        session_id=sid,
        session_pos=pos,
        day=day,
        at=now,
        actor=actor,
        reason=reason,
    )
    # PostgreSQL's read took the id; SQLite inserts the event now.
    event_id = append_event(tx, **event) if next_id is None else int(next_id)
    folded = fold(state, WeightEvent(event_id, "use", value, pos, day), track, params)
    cache = cache_update(member, skill, folded, started if value > 0 else None, now)
    if next_id is None:
        UPDATE_CACHE.run(tx, cache)
    else:
        _USE.run(tx, {**event, **cache, "id": event_id})
    a_now = now_pos if track == "session" else now_day
    return Credit(
        member, skill, True, event_id, value, weight_at(folded, a_now, track, params), sid, None
    )
