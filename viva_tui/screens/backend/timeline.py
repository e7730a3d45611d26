"""A member's timeline besides its sessions (skill events, principle decisions), and search."""

from __future__ import annotations

from viva_store.principles import service as principles
from viva_store.recall import service as recall
from viva_store.skills import service as skills
from viva_store.skills.service import SkillEventRecord
from viva_store.store import Context
from viva_tui.views import SearchResult, TimelineEvent, TimelineEvents

PRINCIPLE_ACTIONS = {
    "proposed": "principle proposed",
    "approved": "principle approved",
    "rejected": "principle rejected",
    "deferred": "principle deferred",
    "rolled_back": "principle rolled back",
    "retired": "principle retired",
}
"""Principle events worth a line (batching and merging are bookkeeping)."""
QUIET_SKILL_KINDS = ("projected",)
"""Skill events not worth a timeline line (a projection is not a use)."""
REASONS = {
    "low_weight_idle": "weight under the threshold and idle",
    "capacity": "over the skill-set capacity",
    "native": "native (soul.md)",
}
"""The store's reason codes, in words."""


def _principle_events(ctx: Context, member: str) -> list[TimelineEvent]:
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
        known = wording.get((ev.principle_id, ev.version)) if ev.version is not None else None
        text = ev.text or known
        said = f": {text}" if text else ""
        why = f" — {ev.reason}" if ev.reason else ""
        out.append(TimelineEvent(ev.at, "principle", f"{label}{version}{said}{why}"))
    return out


def _skill_events(ctx: Context, member: str) -> list[TimelineEvent]:
    return [
        TimelineEvent(ev.at, "skill", describe_skill_event(ev))
        for ev in skills.skill_history(ctx, member, limit=None)
        if ev.kind not in QUIET_SKILL_KINDS
    ]


def describe_skill_event(ev: SkillEventRecord) -> str:
    """One line for a skill event, in the store's own terms (never "learned")."""
    kind, skill = ev.kind, ev.skill
    reason = REASONS.get(ev.reason or "", (ev.reason or "").replace("_", " "))
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
    """Skill and principle events of ``member``, newest first."""
    events = _skill_events(ctx, member) + _principle_events(ctx, member)
    events.sort(key=lambda e: e.at, reverse=True)
    return TimelineEvents(member, tuple(events))


def search(ctx: Context, member: str, query: str, limit: int = 100) -> SearchResult:
    """Recall over ``member``'s experience, newest first (the service's Timeline order)."""
    result = recall.recall(ctx, query, member=member, limit=limit, order="newest")
    notes = list(result.notes)
    if result.matched == "any":
        notes.append("no session has every word; sessions with any of them")
    return SearchResult(tuple(result.hits), tuple(result.items), tuple(notes))
