"""Plain, frozen records of skill sets handed to the faces (no SQLAlchemy here)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from viva_store.records import JsonRecord
from viva_store.skills.curve import Curve

STATUSES = ("active", "native", "protected", "forgotten", "would_forget")


@dataclass(frozen=True, slots=True)
class MemberSkillRecord(JsonRecord):
    """One skill of a member's set as ``viva skill list`` shows it.

    ``weight`` is decayed to now on the skill's ``track``; ``status`` is one of
    :data:`STATUSES` (``would_forget``: due to be forgotten, kept during the trial month);
    ``last_used`` is the latest use worth more than zero since the skill (re-)entered the
    set, ``uses`` the credited uses since then.
    """

    name: str
    weight: float
    track: str
    status: str
    last_used: datetime | None
    uses: int
    native: bool
    in_set: bool
    entered_pos: float
    protected_until_pos: float | None
    forget_reason: str | None


@dataclass(frozen=True, slots=True)
class SkillEventRecord(JsonRecord):
    """One event of the skill log (see :mod:`viva_store.skills.events` for kinds)."""

    id: int
    member: str
    skill: str
    kind: str
    value: float | None
    outcome: str | None
    session_id: str | None
    execution_id: str | None
    target_id: int | None
    track: str | None
    session_pos: float
    day: float
    at: datetime
    actor: str
    reason: str
    basis: dict[str, Any] | None


@dataclass(frozen=True, slots=True)
class SkillChange(JsonRecord):
    """What an add, sync, reclaim or track change stored."""

    member: str
    skill: str
    kind: str
    event_id: int
    weight: float
    track: str
    status: str
    message: str


@dataclass(frozen=True, slots=True)
class SkillCurve(JsonRecord):
    """A skill's weight history on its track and its projected decay (``viva skill curve``).

    Positions ``a`` are session ordinals (session track) or days since the epoch (time
    track); ``a_now`` is now on that axis. ``points`` and ``projection`` are ``[a, weight]``
    pairs, ``marks`` are ``[a, kind, value]`` (enter, use, revalue). ``crosses_at``: where
    the weight falls below ``forget_below``; ``forget_due_at``: the earliest position the
    low-weight rule could forget it (None: never, e.g. a native skill). On the time track
    ``now``, ``crosses_on`` and ``forget_due_on`` are those positions as instants (None on
    the session track, whose future sessions have no date yet).
    """

    member: str
    skill: str
    track: str
    status: str
    a_now: float
    weight_now: float
    forget_below: float
    crosses_at: float | None
    forget_due_at: float | None
    protected_until_pos: float | None
    points: tuple[tuple[float, float], ...]
    marks: tuple[tuple[float, str, float], ...]
    projection: tuple[tuple[float, float], ...]
    now: datetime | None = None
    crosses_on: datetime | None = None
    forget_due_on: datetime | None = None

    def as_curve(self) -> Curve:
        """The pure :class:`~viva_store.skills.curve.Curve` (what the TUI plot draws)."""
        return Curve(
            track=self.track,  # type: ignore[arg-type]
            points=list(self.points),
            marks=list(self.marks),
            projection=list(self.projection),
            weight_now=self.weight_now,
            crosses_at=self.crosses_at,
            forget_due_at=self.forget_due_at,
            protected_until_pos=self.protected_until_pos,
        )


@dataclass(frozen=True, slots=True)
class ProjectedSkill(JsonRecord):
    """One ranked skill of a projection: picked or left out, and why."""

    name: str
    rank: int
    relevance: float
    weight: float
    picked: bool
    reason: str
    description: str


@dataclass(frozen=True, slots=True)
class Projection(JsonRecord):
    """What a new session of ``member`` would get for ``task`` (``viva project``).

    ``skills``: the picks, at most ``limit``, relevance first then weight; ``not_picked``:
    the next ones and why they were left out; ``principles``: the member's active
    principles; ``candidates``: how many skills of its set were ranked; ``knowledge``: the
    related knowledge of the task brief (for ``project``, when the task has one).
    """

    member: str
    task: str
    limit: int
    candidates: int
    skills: tuple[ProjectedSkill, ...]
    not_picked: tuple[ProjectedSkill, ...]
    principles: tuple[dict[str, Any], ...]
    knowledge: tuple[dict[str, Any], ...] = ()
    """The task brief's knowledge section: the related items the task may see."""
    project: str | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready, the nested skills included."""
        out = JsonRecord.to_json(self)
        out["skills"] = [s.to_json() for s in self.skills]
        out["not_picked"] = [s.to_json() for s in self.not_picked]
        return out


@dataclass(frozen=True, slots=True)
class SkillMatch(JsonRecord):
    """A team skill found by :func:`~viva_store.skills.search.search_skills`.

    ``relevance`` is the projection's BM25 score for the query (always above 0 here);
    ``set_status`` is the member's own standing with the skill: ``active`` or
    ``forgotten`` in its set, ``None`` when it never carried it (a read of such a skill
    is recorded but credits no use).
    """

    name: str
    description: str
    tags: tuple[str, ...]
    derived_from: str | None
    relevance: float
    set_status: str | None
