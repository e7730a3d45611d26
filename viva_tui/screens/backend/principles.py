"""Principles as the pane needs them (queue, history, what is in force), and decisions."""

from __future__ import annotations

from viva_store.principles import service as principles
from viva_store.store import Context
from viva_tui.views import PrinciplesData


def load_principles(ctx: Context, members: list[str]) -> PrinciplesData:
    """Read the queue, the history and each member's active versions."""
    candidates = tuple(principles.principle_queue(ctx, include_decided=True))
    history = tuple(principles.principle_history(ctx))
    active: dict[str, int] = {}
    wording: dict[tuple[str, int], str] = {}
    for c in candidates:
        wording[(c.principle_id, c.version)] = c.text
    for member in members:
        for p in principles.active_principles(ctx, member):
            active[p.id] = p.version
            wording[(p.id, p.version)] = p.text
    return PrinciplesData(candidates, history, active, wording)


def decide(ctx: Context, action: str, ref: str, text: str | None = None, version: int = 0) -> str:
    """Store one owner decision; returns a sentence saying what was stored."""
    if action == "approve":
        approved = principles.approve(ctx, ref, text=text)
        edited = " with your wording" if text else ""
        return f"approved{edited}: {approved.member}'s principle is now version {approved.version}"
    if action == "reject":
        rejected = principles.reject(ctx, ref, reason=text or "")
        return f"rejected the candidate for {rejected.member}"
    if action == "defer":
        deferred = principles.defer(ctx, ref)
        return f"deferred the candidate for {deferred.member}; it stays in the queue"
    if action == "rollback":
        restored = principles.rollback(ctx, ref, version, reason=text or "")
        return f"rolled back: {restored.member}'s principle is version {restored.version} again"
    raise ValueError(f"unknown decision {action!r}")
