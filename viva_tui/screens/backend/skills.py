"""A member's skill set as the Skills pane needs it, and the owner's changes to it."""

from __future__ import annotations

from viva_store.skills import service as skills
from viva_store.store import Context
from viva_tui.views import CurveData, SkillRow, SkillsData

SPARK_POINTS = 24


def load_skills(ctx: Context, member: str, include_forgotten: bool) -> SkillsData:
    """The member's skills with a sparkline of each weight history (its curve's points)."""
    records = skills.list_skills(ctx, member, include_forgotten=include_forgotten)
    rows: list[SkillRow] = []
    forget_below = 0.1
    for r in records:
        curve = skills.skill_curve(ctx, member, r.name)
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
    params = skills.skill_parameters(ctx)
    return SkillsData(member, tuple(rows), skills.trial_until(ctx), forget_below, params)


def parameters(ctx: Context) -> skills.SkillParams:
    """The store's skill numbers (config.toml ``[skills]``, else the defaults)."""
    return skills.skill_parameters(ctx)


def load_curve(ctx: Context, member: str, skill: str) -> CurveData:
    """The selected skill's curve."""
    record = skills.skill_curve(ctx, member, skill)
    return CurveData(member, skill, record.as_curve())


def change(ctx: Context, action: str, member: str, skill: str, track: str = "") -> str:
    """Reclaim a skill or change its track; returns the store's sentence for what it did."""
    if action == "reclaim":
        return skills.reclaim_skill(ctx, member, skill).message
    if action == "track":
        return skills.set_track(ctx, member, skill, track).message
    raise ValueError(f"unknown skill change {action!r}")


def skill_body(ctx: Context, name: str) -> str:
    """The skill's body as the library holds it (reading it here is not a use)."""
    skill = skills.get_skill(ctx, name)
    return f"*{skill.description}*\n\n{skill.body}"
