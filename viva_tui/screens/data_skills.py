"""A member's skill set as the Skills pane needs it (the skill-set service, issue 5)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from viva_store.store import Context
from viva_tui.screens.backend import optional

SPARK_POINTS = 24


@dataclass(frozen=True, slots=True)
class SkillRow:
    """One skill of the set, as the table shows it."""

    name: str
    status: str  # active | native | protected | would_forget | forgotten
    weight: float
    track: str
    last_used: datetime | None
    uses: int
    spark: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class SkillsData:
    """The member's set; ``trial_until`` set while forgetting is on trial."""

    member: str
    rows: tuple[SkillRow, ...]
    trial_until: datetime | None
    forget_below: float


@dataclass(frozen=True, slots=True)
class CurveData:
    """One skill's weight curve (a ``viva_store.skills.curve.Curve``)."""

    member: str
    skill: str
    curve: Any


def _skillset() -> Any:
    return optional("skillset", "The skill set (weights, decay, forgetting)")


def load_skills(ctx: Context, member: str, include_forgotten: bool) -> SkillsData:
    """The member's skills with a sparkline of each weight history."""
    _skillset()
    raise NotImplementedError  # filled in against the skill-set service


def load_curve(ctx: Context, member: str, skill: str) -> CurveData:
    """The selected skill's curve."""
    _skillset()
    raise NotImplementedError


def change(ctx: Context, action: str, member: str, skill: str, track: str = "") -> str:
    """Reclaim a skill or change its track; returns a sentence saying what was stored."""
    _skillset()
    raise NotImplementedError


def skill_body(ctx: Context, name: str) -> str:
    """The skill's body as the library holds it (reading it here is not a use)."""
    from viva_store.services.library import get_skill

    skill = get_skill(ctx, name)
    return f"*{skill.description}*\n\n{skill.body}"
