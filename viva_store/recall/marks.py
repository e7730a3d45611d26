"""The owner's judgement of a session's importance for recall (an append-only event)."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import Connection, insert, select, update

from viva_store.access import require_owner
from viva_store.db.schema import RECALL_MARK, RECALL_SESSION
from viva_store.errors import InvalidInput
from viva_store.recall import index as recall_index
from viva_store.sessions.service import resolve_ids
from viva_store.store import Context


@dataclass(frozen=True, slots=True)
class Marked:
    """A session's importance after the owner marked it."""

    session_id: str
    importance: float
    reason: str


def mark_importance(ctx: Context, ref: str, value: float | None, note: str = "") -> Marked:
    """Owner: set a session's importance (0..1), or ``None`` to go back to the derived value.

    Recorded as an append-only ``recall_mark`` event.
    """
    from viva_store.redact import RULESET_VERSION, redact_typed  # the rules load when used

    require_owner(ctx.actor, "mark a session's importance")
    if value is not None and not 0.0 <= value <= 1.0:
        raise InvalidInput("importance must be between 0 and 1")
    recall_index.refresh_if_pending(ctx)
    now = ctx.store.now()

    def work(conn: Connection) -> Marked:
        sid = resolve_ids(conn, ctx, ref)
        conn.execute(
            insert(RECALL_MARK).values(
                session_id=sid,
                importance=value,
                actor="owner",
                at=now,
                note=redact_typed(note),
                ruleset=RULESET_VERSION,
            )
        )
        conn.execute(
            update(RECALL_SESSION).where(RECALL_SESSION.c.session_id == sid).values(marked=value)
        )
        recall_index.reweigh(conn, [sid])
        row = conn.execute(
            select(RECALL_SESSION.c.importance, RECALL_SESSION.c.reason).where(
                RECALL_SESSION.c.session_id == sid
            )
        ).one()
        return Marked(sid, float(row.importance), row.reason)

    return ctx.store.write(work)
