"""The session or execution a skill use belongs to, as the credit path needs them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, or_, select

from viva_store.access import Actor
from viva_store.clock import as_utc
from viva_store.db.schema import ATTRIBUTION, CLASSIFICATION, EXECUTION, SESSION
from viva_store.skills.axis import on_axis
from viva_store.skills.events import Prepared, Tx, to_datetime


@dataclass(frozen=True, slots=True)
class SessionRef:
    """A session on the member's axis."""

    id: str
    started_at: datetime


@dataclass(frozen=True, slots=True)
class ExecutionRef:
    """A Viva execution of the member (its session may not be imported yet)."""

    id: str
    member: str
    started_at: datetime
    outcome: str | None
    ended: bool


_SESSION_ON_AXIS = Prepared(
    select(SESSION.c.id, SESSION.c.started_at)
    .join_from(SESSION, ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id)
    .where(
        SESSION.c.id == bindparam("sid"), ATTRIBUTION.c.member == bindparam("member"), *on_axis()
    )
)
# A session named by Viva's id or the harness's, with what puts it on an axis (at most two
# rows: one means the name is unambiguous whoever asks).
_SESSION_NAMED = Prepared(
    select(
        SESSION.c.id,
        SESSION.c.started_at,
        SESSION.c.relation,
        ATTRIBUTION.c.status,
        ATTRIBUTION.c.member,
    )
    .join_from(SESSION, ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id, isouter=True)
    .where(or_(SESSION.c.id == bindparam("ref"), SESSION.c.native_id == bindparam("ref")))
    .limit(2)
)
_EXECUTION_COLUMNS = (
    EXECUTION.c.id,
    EXECUTION.c.member,
    EXECUTION.c.started_at,
    EXECUTION.c.outcome,
    EXECUTION.c.ended_at,
)
_EXECUTION_OF_GRANT = Prepared(
    select(*_EXECUTION_COLUMNS)
    .where(EXECUTION.c.grant_id == bindparam("grant"))
    .order_by(EXECUTION.c.started_at.desc())
    .limit(1)
)
_EXECUTION_BY_ID = Prepared(
    select(*_EXECUTION_COLUMNS).where(
        EXECUTION.c.id == bindparam("xid"), EXECUTION.c.member == bindparam("member")
    )
)
_SESSION_OF_EXECUTION = Prepared(
    select(CLASSIFICATION.c.session_id)
    .where(
        CLASSIFICATION.c.execution_id == bindparam("xid"), CLASSIFICATION.c.action == "execution"
    )
    .order_by(CLASSIFICATION.c.id.desc())
    .limit(1)
)


def session_ref(conn: Tx, member: str, session_id: str) -> SessionRef | None:
    """The session, if it is on ``member``'s axis."""
    row = _SESSION_ON_AXIS.first(conn, {"sid": session_id, "member": member})
    return None if row is None else SessionRef(str(row[0]), _instant(row[1]))


def named_session(conn: Tx, member: str, ref: str) -> SessionRef | None:
    """The session on ``member``'s axis that ``ref`` names exactly (Viva's id or the
    harness's), when exactly one session has that name; None otherwise — a prefix, an
    ambiguous name or a session off the axis, which :func:`resolve_ids` and
    :func:`session_ref` sort out with the right error."""
    rows = _SESSION_NAMED.rows(conn, {"ref": ref})
    if len(rows) != 1:
        return None
    sid, started, relation, status, owner = rows[0]
    if status != "attributed" or owner != member or started is None or relation == "subagent":
        return None
    return SessionRef(str(sid), _instant(started))


def _instant(value: Any) -> datetime:
    at = to_datetime(value)
    assert at is not None
    return at


def execution_ref(row: Any) -> ExecutionRef:
    """An ``execution`` row as the credit path needs it."""
    return ExecutionRef(
        row.id, row.member, as_utc(row.started_at), row.outcome, row.ended_at is not None
    )


def _execution(row: tuple[Any, ...] | None) -> ExecutionRef | None:
    if row is None:
        return None
    xid, member, started, outcome, ended = row
    return ExecutionRef(str(xid), str(member), _instant(started), outcome, ended is not None)


def execution_of(conn: Tx, actor: Actor, execution_id: str | None) -> ExecutionRef | None:
    """The execution a member acts in: the one its grant was minted for, else the id given."""
    if actor.is_owner:
        return None
    found = None
    if actor.grant_id is not None:
        found = _execution(_EXECUTION_OF_GRANT.first(conn, {"grant": actor.grant_id}))
    if found is None and execution_id:
        found = _execution(
            _EXECUTION_BY_ID.first(conn, {"xid": execution_id, "member": actor.member})
        )
    return found


def session_of_execution(conn: Tx, member: str, execution_id: str) -> SessionRef | None:
    """The session an execution's record attributed, if it is on the member's axis."""
    row = _SESSION_OF_EXECUTION.first(conn, {"xid": execution_id})
    return None if row is None else session_ref(conn, member, str(row[0]))
