"""The session or execution a skill use belongs to, as the credit path needs them."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from viva_store.access import Actor
from viva_store.clock import as_utc
from viva_store.services.skill_axis import on_axis
from viva_store.services.skill_sql import A, C, E, S


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


def session_ref(conn: Connection, member: str, session_id: str) -> SessionRef | None:
    """The session, if it is on ``member``'s axis."""
    row = conn.execute(
        select(S.c.id, S.c.started_at)
        .join_from(S, A, A.c.session_id == S.c.id)
        .where(S.c.id == session_id, A.c.member == member, *on_axis())
    ).first()
    return None if row is None else SessionRef(row.id, as_utc(row.started_at))


def execution_ref(row: Any) -> ExecutionRef:
    """An ``execution`` row as the credit path needs it."""
    return ExecutionRef(
        row.id, row.member, as_utc(row.started_at), row.outcome, row.ended_at is not None
    )


def execution_of(conn: Connection, actor: Actor, execution_id: str | None) -> ExecutionRef | None:
    """The execution a member acts in: the one its grant was minted for, else the id given."""
    if actor.is_owner:
        return None
    row = None
    if actor.grant_id is not None:
        row = conn.execute(
            select(E).where(E.c.grant_id == actor.grant_id).order_by(E.c.started_at.desc())
        ).first()
    if row is None and execution_id:
        row = conn.execute(
            select(E).where(E.c.id == execution_id, E.c.member == actor.member)
        ).first()
    return None if row is None else execution_ref(row)


def session_of_execution(conn: Connection, member: str, execution_id: str) -> SessionRef | None:
    """The session an execution's record attributed, if it is on the member's axis."""
    sid = conn.execute(
        select(C.c.session_id)
        .where(C.c.execution_id == execution_id, C.c.action == "execution")
        .order_by(C.c.id.desc())
    ).scalar()
    return None if sid is None else session_ref(conn, member, sid)
