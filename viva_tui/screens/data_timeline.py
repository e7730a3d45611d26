"""A member's timeline besides its sessions: skill events and principle decisions."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from viva_tui.screens.shapes import Unavailable, optional

if TYPE_CHECKING:
    from viva_store.store import Context

PRINCIPLE_ACTIONS = {
    "proposed": "principle proposed",
    "approved": "principle approved",
    "rejected": "principle rejected",
    "deferred": "principle deferred",
    "rolled_back": "principle rolled back",
    "retired": "principle retired",
}
"""Principle events worth a line (batching and merging are bookkeeping)."""


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """Something that happened to a member that is not a session."""

    at: datetime
    kind: str  # skill | principle
    text: str


@dataclass(frozen=True, slots=True)
class TimelineEvents:
    """The member's events, newest first, and what could not be read in this build."""

    member: str
    events: tuple[TimelineEvent, ...]
    missing: tuple[str, ...]


def _principle_events(ctx: Context, member: str) -> list[TimelineEvent]:
    principles = optional("principles.service", "Principle decisions")
    wording = {
        (c.principle_id, c.version): c.text
        for c in principles.principle_queue(ctx, include_decided=True)
        if c.member == member
    }
    out = []
    for ev in principles.principle_history(ctx, member):
        label = PRINCIPLE_ACTIONS.get(ev.action)
        if label is None:
            continue
        version = f" v{ev.version}" if ev.version is not None else ""
        text = ev.text or wording.get((ev.principle_id, ev.version))
        said = f": {text}" if text else ""
        why = f" — {ev.reason}" if ev.reason else ""
        out.append(TimelineEvent(ev.at, "principle", f"{label}{version}{said}{why}"))
    return out


def _skill_events(ctx: Context, member: str) -> list[TimelineEvent]:
    skillset = optional("skills.service", "Skill events")
    return [
        TimelineEvent(ev.at, "skill", describe_skill_event(ev))
        for ev in skillset.skill_history(ctx, member, limit=None)
        if ev.kind not in QUIET_SKILL_KINDS
    ]


QUIET_SKILL_KINDS = ("projected",)
REASONS = {
    "low_weight_idle": "weight under the threshold and idle",
    "capacity": "over the skill-set capacity",
    "native": "native (soul.md)",
}
"""The store's reason codes, in words."""
"""Skill events not worth a timeline line (a projection is not a use)."""


def describe_skill_event(ev: Any) -> str:
    """One line for a skill event, in the store's own terms (never "learned")."""
    kind, skill = str(ev.kind), str(ev.skill)
    reason = str(getattr(ev, "reason", "") or "")
    reason = REASONS.get(reason, reason.replace("_", " "))
    why = f" — {reason}" if reason and reason != kind else ""
    if kind == "used":
        value = f", {ev.value:+.2f}" if ev.value is not None else ""
        return f"used {skill} ({ev.outcome or 'recorded'}{value})"
    if kind in ("added", "synced", "reclaimed"):
        return f"{skill} {kind} into the set (weight 1.0){why}"
    if kind == "track_changed":
        return f"{skill} moved to the {ev.track} track"
    if kind == "would_forget":
        return f"{skill} would be forgotten (trial month: kept){why}"
    if kind == "forgotten":
        return f"{skill} forgotten (still in the team library){why}"
    if kind == "revalued":
        return f"a use of {skill} re-valued to {ev.value}{why}"
    return f"skill {kind.replace('_', ' ')}: {skill}{why}"


def load_events(ctx: Context, member: str) -> TimelineEvents:
    """Skill and principle events of ``member``; a missing service is named, not faked."""
    events: list[TimelineEvent] = []
    missing: list[str] = []
    for read in (_skill_events, _principle_events):
        try:
            events.extend(read(ctx, member))
        except Unavailable as exc:
            missing.append(str(exc))
    events.sort(key=lambda e: e.at, reverse=True)
    return TimelineEvents(member, tuple(events), tuple(missing))


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What the recall service found: session hits (newest first), matching skills and
    principles, and its notes (e.g. a truncated query, or "any" word matched)."""

    hits: tuple[Any, ...]
    items: tuple[Any, ...]
    notes: tuple[str, ...]


def search(ctx: Context, member: str, query: str, limit: int = 100) -> SearchResult:
    """Recall over ``member``'s experience, newest first (the service's Timeline order)."""
    recall = optional("recall.service", "Search (recall)")
    result = recall.recall(ctx, query, member=member, limit=limit, order="newest")
    notes = list(result.notes)
    if result.matched == "any":
        notes.append("no session has every word; sessions with any of them")
    return SearchResult(tuple(result.hits), tuple(result.items), tuple(notes))
