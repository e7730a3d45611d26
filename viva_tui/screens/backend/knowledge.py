"""Knowledge as the pane needs it (the gate, admitted items by kind, the review queue),
and the owner's decisions on it."""

from __future__ import annotations

from viva_store.knowledge import service as knowledge
from viva_store.store import Context
from viva_tui.views import KnowledgeData


def load_knowledge(ctx: Context) -> KnowledgeData:
    """Every item the actor may see, sorted into the pane's three parts."""
    items = knowledge.list_knowledge(ctx)
    candidates = tuple(i for i in items if i.status == "candidate")
    admitted = {
        kind: tuple(i for i in items if i.kind == kind and i.status == "admitted")
        for kind in knowledge.KINDS
    }
    review = tuple(knowledge.review_queue(ctx)) if ctx.actor.is_owner else ()
    return KnowledgeData(candidates, admitted, review)


def decide(ctx: Context, action: str, item_id: str, text: str = "") -> str:
    """Store one decision on an item; returns a sentence saying what was stored."""
    if action == "admit":
        knowledge.admit(ctx, item_id, text)
        return f"admitted {item_id}: {knowledge.get_item(ctx, item_id).words}"
    if action == "decline":
        knowledge.decline(ctx, item_id, text)
        return f"declined {item_id}"
    if action == "retract":
        knowledge.retract(ctx, item_id, text)
        return f"retracted {item_id}; its history is kept"
    raise ValueError(f"unknown decision {action!r}")
