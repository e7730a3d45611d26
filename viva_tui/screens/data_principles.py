"""Principles as the pane needs them: the queue, the history, what is in force."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from viva_tui.screens.shapes import optional

if TYPE_CHECKING:
    from viva_store.store import Context

OPEN = ("pending", "deferred")
"""Candidate statuses still waiting for the owner."""


@dataclass(frozen=True, slots=True)
class PrinciplesData:
    """Every candidate (open ones first in the pane), every event, the active versions."""

    candidates: tuple[Any, ...]
    history: tuple[Any, ...]
    active: dict[str, int]
    wording: dict[tuple[str, int], str]

    @property
    def open(self) -> list[Any]:
        """Candidates waiting for the owner, by week, batch, member (the service's order)."""
        return [c for c in self.candidates if c.status in OPEN]


def load_principles(ctx: Context, members: list[str]) -> PrinciplesData:
    """Read the queue, the history and each member's active versions."""
    principles = optional("principles.service", "The principles queue")
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
    decide_mod = optional("principles.service", "Deciding principles")
    if action == "approve":
        record = decide_mod.approve(ctx, ref, text=text)
        edited = " with your wording" if text else ""
        return f"approved{edited}: {record.member}'s principle is now version {record.version}"
    if action == "reject":
        record = decide_mod.reject(ctx, ref, reason=text or "")
        return f"rejected the candidate for {record.member}"
    if action == "defer":
        record = decide_mod.defer(ctx, ref)
        return f"deferred the candidate for {record.member}; it stays in the queue"
    if action == "rollback":
        record = decide_mod.rollback(ctx, ref, version, reason=text or "")
        return f"rolled back: {record.member}'s principle is version {record.version} again"
    raise ValueError(f"unknown decision {action!r}")
