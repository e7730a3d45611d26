"""Finishing launched sessions a killed run left unattributed (DESIGN I6).

Every import run, ``viva launch --repair`` and ``viva init`` end here: a session stored
but never matched to the execution record of its launch (an older Viva matched after
the run, and a run killed in between left it so) is matched now, and the skill uses
its transcript shows are credited, in one transaction.

An unclaimed record is matched against the stored sessions once: every session stored
after that is matched by the batch that stores it. The records checked so far are kept
in ``store_meta`` (a few ids: launches whose session never came), so that a run with
nothing to finish asks two short questions and writes nothing.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, insert, select, update

from viva_store.access import require_owner
from viva_store.db.schema import STORE_META
from viva_store.store import Context
from viva_store.triage.attribution import awaiting_launch, match_executions, unclaimed_executions

CHECKED_KEY = "launches_checked"
"""``store_meta`` key: the unclaimed execution ids matched against the store already."""


def match_window(ctx: Context) -> timedelta:
    """How far a session's start may be from its execution's (``[triage]``)."""
    seconds = float(ctx.store.config.section("triage").get("match_window_seconds", 120))
    return timedelta(seconds=seconds)


def finish_launched(ctx: Context) -> int:
    """Owner: match the stored sessions that unclaimed execution records not checked
    yet may attribute, and credit their uses; returns how many records were checked."""
    require_owner(ctx.actor, "attribute launched sessions")
    if not ctx.store.read(_unchecked):
        return 0
    from viva_store.skills.uses import after_attribution  # only when there is one to match

    window = match_window(ctx)

    def work(conn: Connection) -> int:
        fresh = _unchecked(conn)  # again, in the write: another run may have done it
        ids = awaiting_launch(conn, fresh, window)
        changed = match_executions(conn, ids, window, ctx.store.now())
        after_attribution(conn, ctx, changed, set(ids))
        _remember(conn, sorted(e.id for e in unclaimed_executions(conn)))
        return len(fresh)

    return ctx.store.write(work)


def _checked(conn: Connection) -> set[str]:
    value = conn.execute(select(STORE_META.c.value).where(STORE_META.c.key == CHECKED_KEY)).scalar()
    return set(json.loads(value)) if value else set()


def _unchecked(conn: Connection) -> list[Any]:
    """The unclaimed execution records no run has matched against the store yet."""
    waiting = unclaimed_executions(conn)
    if not waiting:
        return []
    done = _checked(conn)
    return [e for e in waiting if e.id not in done]


def _remember(conn: Connection, ids: list[str]) -> None:
    value = json.dumps(ids)
    known = conn.execute(select(STORE_META.c.key).where(STORE_META.c.key == CHECKED_KEY)).first()
    if known is None:
        conn.execute(insert(STORE_META).values(key=CHECKED_KEY, value=value))
    else:
        conn.execute(update(STORE_META).where(STORE_META.c.key == CHECKED_KEY).values(value=value))
