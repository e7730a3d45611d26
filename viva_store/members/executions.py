"""Execution records: what Viva launched, for whom, and how it ended (DESIGN I6).

``viva launch`` writes one when it starts a member's session and completes
it when the harness exits; the importer attributes the recovered session by
it. Only the owner launches, so only the owner writes these.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update

from viva_store.access import member_scope, require_owner
from viva_store.clock import as_utc
from viva_store.db.schema import EXECUTION
from viva_store.errors import NotFound
from viva_store.members.roster import get_member
from viva_store.records import ExecutionRecord
from viva_store.registry import reader
from viva_store.store import Context


def _record(row: Any) -> ExecutionRecord:
    return ExecutionRecord(
        id=row.id,
        member=row.member,
        harness=row.harness,
        cwd=row.cwd,
        task=row.task,
        native_session_id=row.native_session_id,
        started_at=as_utc(row.started_at),
        ended_at=as_utc(row.ended_at) if row.ended_at else None,
        outcome=row.outcome,
        exit_status=row.exit_status,
    )


def start_execution(
    ctx: Context,
    member: str,
    harness: str,
    cwd: str,
    task: str = "",
    native_session_id: str | None = None,
    grant_id: str | None = None,
    started_at: datetime | None = None,
) -> ExecutionRecord:
    """Owner: record that a session of ``member`` is being launched in ``harness``."""
    from viva_store.importing.harness.registry import check  # loads every reader

    require_owner(ctx.actor, "launch members")
    get_member(ctx, member)
    values = {
        "id": "x" + secrets.token_hex(6),
        "member": member,
        "harness": check(harness),
        "cwd": cwd,
        "task": task,
        "native_session_id": native_session_id,
        "grant_id": grant_id,
        "started_at": started_at or ctx.store.now(),
    }
    ctx.store.write(lambda c: c.execute(insert(EXECUTION).values(**values)))
    return get_execution(ctx, str(values["id"]))


def finish_execution(
    ctx: Context, execution_id: str, exit_status: int, ended_at: datetime | None = None
) -> ExecutionRecord:
    """Owner: the harness exited; exit status 0 is a success, anything else a failure."""
    require_owner(ctx.actor, "finish executions")
    outcome = "success" if exit_status == 0 else "failure"
    done = ctx.store.write(
        lambda c: (
            c.execute(
                update(EXECUTION)
                .where(EXECUTION.c.id == execution_id, EXECUTION.c.ended_at.is_(None))
                .values(
                    ended_at=ended_at or ctx.store.now(), outcome=outcome, exit_status=exit_status
                )
            ).rowcount
        )
    )
    if not done:
        raise NotFound(f"no running execution {execution_id!r}")
    return get_execution(ctx, execution_id)


@reader
def get_execution(ctx: Context, execution_id: str) -> ExecutionRecord:
    """One execution the actor may see."""
    row = ctx.store.read(
        lambda c: c.execute(
            select(EXECUTION).where(
                EXECUTION.c.id == execution_id, member_scope(ctx.actor, EXECUTION.c.member)
            )
        ).first()
    )
    if row is None:
        raise NotFound(f"no execution {execution_id!r}")
    return _record(row)


@reader
def list_executions(
    ctx: Context, member: str | None = None, limit: int = 20
) -> list[ExecutionRecord]:
    """Recent executions, newest first (a member sees only its own)."""
    query = select(EXECUTION).where(member_scope(ctx.actor, EXECUTION.c.member))
    if member is not None:
        query = query.where(EXECUTION.c.member == member)
    query = query.order_by(EXECUTION.c.started_at.desc()).limit(limit)
    return ctx.store.read(lambda c: [_record(r) for r in c.execute(query)])
