"""After the gate: recording a use, retracting, superseding. Nothing is ever deleted.

A use is the only evidence of reuse: one per (item, session), in a session of the
member whose task saw the item. Retracting needs a reason and keeps the history;
superseding names the item that replaces it.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from viva_store.access import OWNER
from viva_store.db.schema import ATTRIBUTION
from viva_store.errors import AccessDenied, InvalidInput, NotFound
from viva_store.knowledge.gate import actor_name, clean, record_event, target
from viva_store.knowledge.load import load, lock
from viva_store.knowledge.model import (
    ADMITTED,
    CANDIDATE,
    MEMBER_KINDS,
    RETRACTED,
    SELF_MODEL,
    SUPERSEDED,
    USED,
    Item,
    live,
)
from viva_store.sessions.service import resolve_ids
from viva_store.store import Context


def _require_keeper(ctx: Context, item: Item, action: str) -> None:
    """The owner, or the member for its own personal items."""
    if not ctx.actor.is_owner and item.kind not in MEMBER_KINDS:
        raise AccessDenied(f"only the owner can {action} {item.kind}")


def _usable(conn: Connection, ctx: Context, item_id: str) -> Item:
    """An item the actor's tasks could have been shown (its own, shared, or a project's)."""
    lock(conn, item_id.strip())
    found = load(conn, ctx.as_actor(OWNER), ids=[item_id.strip()])
    if not found or (
        not ctx.actor.is_owner
        and found[0].kind in MEMBER_KINDS
        and found[0].member != ctx.actor.member
    ):
        raise NotFound(f"no knowledge item {item_id!r} (see `viva knowledge list`)")
    return found[0]


def use(ctx: Context, item_id: str, session: str) -> bool:
    """Record that ``session`` really used the item; ``False`` when already recorded there."""

    def work(conn: Connection) -> bool:
        item = _usable(conn, ctx, item_id)
        try:
            sid = resolve_ids(conn, ctx, session)
        except NotFound:
            raise NotFound(f"no session {session!r} that {ctx.actor.describe()} can see") from None
        if item.status != ADMITTED:
            raise InvalidInput(f"{item.id} is {item.status}: only an admitted item can be used")
        if item.kind in MEMBER_KINDS:
            owner = conn.execute(
                select(ATTRIBUTION.c.member).where(
                    ATTRIBUTION.c.session_id == sid, ATTRIBUTION.c.status == "attributed"
                )
            ).scalar()
            if owner != item.member:
                raise InvalidInput(f"{item.id} is {item.member}'s; session {sid} is not theirs")
        if any(u.session == sid for u in item.uses):
            return False
        record_event(conn, item.id, USED, actor_name(ctx), ctx.store.now(), session=sid)
        return True

    return ctx.store.write(work)


def retract(ctx: Context, item_id: str, reason: str) -> None:
    """Take an item out of use, with a reason; its history stays."""
    reason = clean(reason, "the reason", 2000)

    def work(conn: Connection) -> None:
        item = target(conn, ctx, item_id)
        if item.status not in (ADMITTED, CANDIDATE) or (
            item.status == CANDIDATE and item.kind != SELF_MODEL
        ):
            raise InvalidInput(
                f"{item.id} is {item.status}: retract admitted items (decline a candidate instead)"
            )
        _require_keeper(ctx, item, "retract")
        record_event(conn, item.id, RETRACTED, actor_name(ctx), ctx.store.now(), reason=reason)

    ctx.store.write(work)


def supersede(ctx: Context, item_id: str, by: str, reason: str = "") -> None:
    """Mark an item replaced by another live item of the same kind and member."""
    reason = clean(reason, "the reason", 2000, required=False)

    def work(conn: Connection) -> None:
        old = target(conn, ctx, item_id)
        new = target(conn, ctx, by)
        if old.id == new.id:
            raise InvalidInput("an item cannot supersede itself")
        if not live(old):
            raise InvalidInput(f"{old.id} is {old.status}: only a live item can be superseded")
        if not live(new):
            raise InvalidInput(f"{new.id} is {new.status}: admit it before it supersedes another")
        if (old.kind, old.member) != (new.kind, new.member):
            raise InvalidInput(f"{new.id} is not the same kind and member as {old.id}")
        _require_keeper(ctx, old, "supersede")
        record_event(
            conn, old.id, SUPERSEDED, actor_name(ctx), ctx.store.now(), reason=reason, other=new.id
        )

    ctx.store.write(work)
