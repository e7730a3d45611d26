"""``knowledge_state``: each item's current status and scope, kept beside the two logs.

It is derived data: every event written updates it in the same transaction, and
:func:`rebuild` recomputes it from ``knowledge_item`` and ``knowledge_event`` alone (a
test holds the two equal). What a task brief decides visibility on is read from here,
one narrow row per item.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, delete, insert, update

from viva_store.access import OWNER
from viva_store.db.schema import KNOWLEDGE_STATE
from viva_store.knowledge.model import CANDIDATE, USED, Item, status_after
from viva_store.store import Context

S = KNOWLEDGE_STATE.c


def row_of(item: Item) -> dict[str, Any]:
    """The state row an item's events fold to."""
    return {
        "item_id": item.id,
        "member": item.member,
        "kind": item.kind,
        "project": item.project,
        "domain": item.domain,
        "task_pattern": item.task_pattern,
        "summary": item.summary,
        "importance": item.importance,
        "status": item.status,
        "uses": len(item.uses),
    }


def added(conn: Connection, values: dict[str, Any]) -> None:
    """A new item's row (a candidate, no uses), from the values it was inserted with."""
    keys = ("member", "kind", "project", "domain", "task_pattern", "summary", "importance")
    row = {k: values[k] for k in keys}
    conn.execute(
        insert(KNOWLEDGE_STATE).values(item_id=values["id"], status=CANDIDATE, uses=0, **row)
    )


def happened(conn: Connection, item_id: str, action: str) -> None:
    """Fold one new event into the item's row."""
    if action == USED:
        change: dict[str, Any] = {"uses": S.uses + 1}
    else:
        change = {"status": status_after(action)}
    conn.execute(update(KNOWLEDGE_STATE).where(S.item_id == item_id).values(**change))


def rebuild(conn: Connection, ctx: Context) -> int:
    """Recompute every row from the logs; returns how many items there are."""
    from viva_store.knowledge.load import load

    items = load(conn, ctx.as_actor(OWNER))
    conn.execute(delete(KNOWLEDGE_STATE))
    if items:
        conn.execute(insert(KNOWLEDGE_STATE), [row_of(i) for i in items])
    return len(items)
