"""The owner's triage queue: file sessions into a member's experience (DESIGN job 1).

Classifying is owner only and append-only: each decision is a new
``classification`` event; undo is a new event too. The bulk path writes all
events with one ``executemany`` in one transaction and rebuilds the derived
attribution set-wise, so 10,000 sessions take seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, insert

from viva_store.access import require_owner
from viva_store.db.schema import CLASSIFICATION
from viva_store.errors import InvalidInput
from viva_store.members.roster import member_names
from viva_store.sessions.service import resolve_many
from viva_store.skills.uses import after_attribution
from viva_store.store import Context
from viva_store.triage import attribution


@dataclass(frozen=True, slots=True)
class Classified:
    """What a classify / unclassify call did."""

    session_ids: tuple[str, ...]
    action: str
    member: str | None


def _apply(
    ctx: Context, refs: Sequence[str], action: str, member: str | None, note: str
) -> Classified:
    if not refs:
        raise InvalidInput("give at least one session id")
    now = ctx.store.now()

    def work(conn: Connection) -> Classified:
        ids = list(dict.fromkeys(resolve_many(conn, ctx, refs)))
        events = [
            {
                "session_id": sid,
                "action": action,
                "member": member,
                "execution_id": None,
                "actor": "owner",
                "at": now,
                "note": note,
            }
            for sid in ids
        ]
        conn.execute(insert(CLASSIFICATION), events)
        changed = attribution.rebuild(conn, ids)
        # Their session axis moved: their skill weights are rebuilt in this transaction.
        after_attribution(conn, ctx, changed)
        return Classified(tuple(ids), action, member)

    return ctx.store.write(work)


def classify(ctx: Context, refs: Sequence[str], member: str, note: str = "") -> Classified:
    """Owner: file these sessions into ``member``'s experience."""
    require_owner(ctx.actor, "classify sessions")
    if member not in member_names(ctx):
        raise InvalidInput(f"no member named {member!r} (see `viva members`)")
    return _apply(ctx, refs, "member", member, note)


def classify_nobody(ctx: Context, refs: Sequence[str], note: str = "") -> Classified:
    """Owner: these sessions were recovered but belong to no member."""
    require_owner(ctx.actor, "classify sessions")
    return _apply(ctx, refs, "nobody", None, note)


def unclassify(ctx: Context, refs: Sequence[str], note: str = "") -> Classified:
    """Owner: put these sessions back in the triage queue (a new event; nothing is deleted)."""
    require_owner(ctx.actor, "unclassify sessions")
    return _apply(ctx, refs, "unclassify", None, note)
