"""Which skills leave a member's set: the forgetting rules as one pure function (DESIGN §3).

Forgetting is deterministic code, never a model's judgement, and it never deletes: a
forgotten skill leaves the member's set and stays in the team library. ``decide`` only says
what is due; the store logs it ("forgotten", or "would_forget" during the trial month) and
applies it. Nothing here reads a clock: the caller passes "now" on both axes.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from viva_store.skills.params import TRACKS, SkillParams, Track

ForgetReason = Literal["low_weight_idle", "over_capacity"]


@dataclass(frozen=True, slots=True)
class SkillView:
    """What forgetting needs to know about one skill in one member's set.

    ``weight_now`` is the weight decayed to now on the skill's track (``weights.weight_at``).
    ``last_positive_use_*`` locate the latest use worth more than zero (None: none since it
    entered); ``entered_*`` locate the latest add, sync or reclaim. ``status_active`` is
    False for a skill already forgotten, which is then ignored.
    """

    name: str
    native: bool
    track: Track
    weight_now: float
    last_positive_use_pos: float | None
    last_positive_use_day: float | None
    entered_pos: float
    entered_day: float
    status_active: bool


@dataclass(frozen=True, slots=True)
class ForgetDecision:
    """One skill that is due to be forgotten, and why.

    ``applied`` is False during the trial month (the store logs "would_forget"). ``idle`` is
    how long the skill has been unused on its own track: sessions, or days.
    """

    name: str
    reason: ForgetReason
    applied: bool
    weight: float
    idle: float


def idle_for(skill: SkillView, now_session_pos: float, now_day: float) -> float:
    """How long ``skill`` has gone unused, on its track.

    Counted from the last use worth more than zero, or from when the skill entered the set
    if that is later (or there is no such use): a skill that has just been reclaimed has not
    been idle longer than it has been back.
    """
    if skill.track == "session":
        anchor = skill.entered_pos
        if skill.last_positive_use_pos is not None:
            anchor = max(anchor, skill.last_positive_use_pos)
        return now_session_pos - anchor
    anchor = skill.entered_day
    if skill.last_positive_use_day is not None:
        anchor = max(anchor, skill.last_positive_use_day)
    return now_day - anchor


def is_protected(skill: SkillView, now_session_pos: float, params: SkillParams) -> bool:
    """True if the skill entered (added, synced, reclaimed) under ``protect_sessions`` ago.

    Protection is counted on the session axis whatever the skill's track.
    """
    return now_session_pos - skill.entered_pos < params.protect_sessions


def _eviction_key(skill: SkillView) -> tuple[float, float, float, str]:
    # Lowest weight first; then the one whose last positive use is oldest (never: first);
    # the name makes the order total, so the outcome never depends on input order.
    never = float("-inf")
    day = never if skill.last_positive_use_day is None else skill.last_positive_use_day
    pos = never if skill.last_positive_use_pos is None else skill.last_positive_use_pos
    return (skill.weight_now, day, pos, skill.name)


def decide(
    skills: Sequence[SkillView],
    now_session_pos: float,
    now_day: float,
    params: SkillParams,
    trial: bool,
) -> list[ForgetDecision]:
    """The forgets due now in one member's set, in a deterministic order.

    - Natives are never forgotten and do not count toward ``capacity``; inactive skills are
      ignored; a protected skill (see ``is_protected``) is never forgotten but does count.
    - Rule 1 ("low_weight_idle"): weight < ``forget_below`` and idle (``idle_for``) ≥
      ``idle_sessions`` on the session track or ≥ ``idle_days`` on the time track.
    - Rule 2 ("over_capacity"): while more than ``capacity`` non-native active skills remain
      after rule 1, the lowest-weighted unprotected one goes, ties broken by the oldest last
      positive use (none is oldest), then by name. If only protected skills are left to
      choose from, the set stays over capacity until a protection lapses.

    Rule-1 decisions come first, then rule-2 decisions, each group in eviction order.
    ``trial`` makes every decision ``applied=False``. The output depends only on the
    arguments, not on the order of ``skills``; duplicate names raise ``ValueError``.
    """
    names = [s.name for s in skills]
    if len(set(names)) != len(names):
        raise ValueError("skills: each name may appear once")
    for skill in skills:
        if skill.track not in TRACKS:
            raise ValueError(f"{skill.name}: unknown track {skill.track!r}")
        if math.isnan(skill.weight_now):
            raise ValueError(f"{skill.name}: weight_now is NaN")
    members = sorted((s for s in skills if s.status_active and not s.native), key=_eviction_key)
    threshold = params.forget_below
    decisions: list[ForgetDecision] = []
    remaining: list[SkillView] = []
    for skill in members:
        idle = idle_for(skill, now_session_pos, now_day)
        if (
            not is_protected(skill, now_session_pos, params)
            and skill.weight_now < threshold
            and idle >= params.idle_threshold(skill.track)
        ):
            decisions.append(_decision(skill, "low_weight_idle", idle, trial))
        else:
            remaining.append(skill)
    excess = len(remaining) - params.capacity
    for skill in remaining:  # already in eviction order
        if excess <= 0:
            break
        if is_protected(skill, now_session_pos, params):
            continue
        idle = idle_for(skill, now_session_pos, now_day)
        decisions.append(_decision(skill, "over_capacity", idle, trial))
        excess -= 1
    return decisions


def _decision(skill: SkillView, reason: ForgetReason, idle: float, trial: bool) -> ForgetDecision:
    return ForgetDecision(skill.name, reason, not trial, skill.weight_now, idle)
