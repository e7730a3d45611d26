"""The weekly report as plain, frozen records (no SQLAlchemy here)."""

from __future__ import annotations

from dataclasses import dataclass, fields
from datetime import datetime
from typing import Any

from viva_store.records import JsonRecord


@dataclass(frozen=True, slots=True)
class MemberWeek(JsonRecord):
    """One member's week. Lists hold plain dicts (JSON-ready apart from instants)."""

    member: str
    principles_proposed: tuple[dict[str, Any], ...]
    principle_decisions: tuple[dict[str, Any], ...]
    skills_added: tuple[dict[str, Any], ...]
    skill_uses: tuple[dict[str, Any], ...]
    skills_forgotten: tuple[str, ...]
    skills_would_forget: tuple[str, ...]
    skills_reclaimed: tuple[str, ...]
    track_changes: tuple[dict[str, Any], ...]
    sessions_recovered: int
    sessions_triaged: int
    knowledge: tuple[dict[str, Any], ...] = ()
    """The week's gate decisions and uses of the member's knowledge items, in log order."""

    @property
    def quiet(self) -> bool:
        """Nothing happened for this member this week."""
        return not any(getattr(self, f.name) for f in fields(self) if f.name != "member")


@dataclass(frozen=True, slots=True)
class WeeklyReport(JsonRecord):
    """The week's report. ``team`` is the owner's totals (``None`` for a member)."""

    week: str
    start: datetime
    end: datetime
    generated_at: datetime
    members: tuple[MemberWeek, ...]
    team: dict[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        """One JSON document: the week, each member's section, the team's totals."""
        data = JsonRecord.to_json(self)
        data["members"] = [m.to_json() for m in self.members]
        return data
