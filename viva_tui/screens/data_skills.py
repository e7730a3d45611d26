"""A member's skill set as the Skills pane needs it (the skill-set service, issue 5)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from viva_tui.screens.shapes import optional

if TYPE_CHECKING:
    from viva_store.store import Context

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
    return optional("skills.service", "The skill set (weights, decay, forgetting)")


def load_skills(ctx: Context, member: str, include_forgotten: bool) -> SkillsData:
    """The member's skills with a sparkline of each weight history (its curve's points)."""
    skillset = _skillset()
    records = skillset.list_skills(ctx, member, include_forgotten=include_forgotten)
    rows: list[SkillRow] = []
    forget_below = 0.1
    for r in records:
        curve = skillset.skill_curve(ctx, member, r.name)
        forget_below = curve.forget_below
        points = [w for _, w in curve.points]
        rows.append(
            SkillRow(
                r.name,
                r.status,
                r.weight,
                r.track,
                r.last_used,
                r.uses,
                tuple(points[-SPARK_POINTS:]),
            )
        )
    return SkillsData(member, tuple(rows), skillset.trial_until(ctx), forget_below)


def load_curve(ctx: Context, member: str, skill: str) -> CurveData:
    """The selected skill's curve."""
    record = _skillset().skill_curve(ctx, member, skill)
    return CurveData(member, skill, record.as_curve())


def change(ctx: Context, action: str, member: str, skill: str, track: str = "") -> str:
    """Reclaim a skill or change its track; returns the store's sentence for what it did."""
    skillset = _skillset()
    if action == "reclaim":
        return str(skillset.reclaim_skill(ctx, member, skill).message)
    if action == "track":
        return str(skillset.set_track(ctx, member, skill, track).message)
    raise ValueError(f"unknown skill change {action!r}")


def skill_body(ctx: Context, name: str) -> str:
    """The skill's body as the library holds it (reading it here is not a use)."""
    from viva_store.skills.service import get_skill

    skill = get_skill(ctx, name)
    return f"*{skill.description}*\n\n{skill.body}"
