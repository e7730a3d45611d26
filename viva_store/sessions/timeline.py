"""A member's experience over time (DESIGN job 2): sessions, skill events, principle events.

One list, newest first, in the store's own words: the same lines ``viva timeline`` prints
and the app's Timeline shows between sessions. Skill events that are not a change of the
set or a use (a projection) and principle bookkeeping (batching, merging) are left out.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from viva_store.errors import InvalidInput
from viva_store.principles import service as principles
from viva_store.principles.service import PrincipleEventRecord
from viva_store.principles.state import (
    APPROVED,
    DEFERRED,
    PROPOSED,
    REJECTED,
    RETIRED,
    ROLLED_BACK,
)
from viva_store.sessions.records import KINDS, TimelineItem
from viva_store.sessions.service import SessionFilter, check_member, list_sessions
from viva_store.skills import service as skills
from viva_store.skills.service import SkillEventRecord
from viva_store.store import Context

PRINCIPLE_ACTIONS = {
    PROPOSED: "principle proposed",
    APPROVED: "principle approved",
    REJECTED: "principle rejected",
    DEFERRED: "principle deferred",
    ROLLED_BACK: "principle rolled back",
    RETIRED: "principle retired",
}
"""Principle events worth a line, and how each reads."""
QUIET_SKILL_KINDS = ("projected",)
"""Skill events not worth a line (a projection is not a use)."""
REASONS = {
    "low_weight_idle": "weight under the threshold and idle",
    "capacity": "over the skill-set capacity",
    "native": "native (soul.md)",
}
"""The store's reason codes, in words."""


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


def describe_principle_event(ev: PrincipleEventRecord) -> str | None:
    """One line for a principle event: what happened, the wording, the reason (None:
    bookkeeping not worth a line)."""
    label = PRINCIPLE_ACTIONS.get(ev.action)
    if label is None:
        return None
    version = f" v{ev.version}" if ev.version is not None else ""
    said = f": {ev.wording}" if ev.wording else ""
    why = f" — {ev.reason}" if ev.reason else ""
    return f"{label}{version}{said}{why}"


def skill_items(ctx: Context, member: str, since: datetime | None = None) -> list[TimelineItem]:
    """``member``'s skill events as timeline items, newest first."""
    return [
        TimelineItem(
            at=ev.at,
            kind="skill",
            text=describe_skill_event(ev),
            event=ev.kind,
            session_id=ev.session_id,
            skill=ev.skill,
        )
        for ev in skills.skill_history(ctx, member, limit=None)
        if ev.kind not in QUIET_SKILL_KINDS and (since is None or ev.at >= since)
    ]


def principle_items(ctx: Context, member: str, since: datetime | None = None) -> list[TimelineItem]:
    """``member``'s principle events as timeline items, newest first."""
    out = []
    for ev in reversed(principles.principle_history(ctx, member)):
        text = describe_principle_event(ev)
        if text is None or (since is not None and ev.at < since):
            continue
        out.append(
            TimelineItem(
                at=ev.at,
                kind="principle",
                text=text,
                event=ev.action,
                principle_id=ev.principle_id,
                version=ev.version,
            )
        )
    return out


def timeline(
    ctx: Context,
    member: str,
    since: datetime | None = None,
    limit: int | None = None,
    kinds: Sequence[str] = KINDS,
) -> list[TimelineItem]:
    """Sessions, skill events and principle events of ``member`` (those of ``kinds``),
    newest first. A session with no start time has no place on it and is left out."""
    unknown = sorted(set(kinds) - set(KINDS))
    if unknown:
        raise InvalidInput(f"unknown timeline kinds {unknown}; choose from {', '.join(KINDS)}")
    check_member(ctx, member, "read the timeline")
    items: list[TimelineItem] = []
    if "session" in kinds:
        flt = SessionFilter(status="attributed", member=member, since=since, limit=limit)
        items += [
            TimelineItem(
                at=s.started_at,
                kind="session",
                text=s.title or "(untitled)",
                session_id=s.id,
                harness=s.harness,
                project=s.project,
            )
            for s in list_sessions(ctx, flt)
            if s.started_at is not None
        ]
    if "skill" in kinds:
        items += skill_items(ctx, member, since)
    if "principle" in kinds:
        items += principle_items(ctx, member, since)
    items.sort(key=lambda item: item.at, reverse=True)
    return items[:limit] if limit is not None else items
