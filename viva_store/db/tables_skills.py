"""Table models of skill sets and skill events (DESIGN §3). Re-exported by ``tables``."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime
from sqlmodel import Field, SQLModel


def _ts(nullable: bool = False) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=nullable))


class StoreMeta(SQLModel, table=True):
    """Facts about the store itself (e.g. ``created_at``, which starts the trial month)."""

    __tablename__ = "store_meta"
    key: str = Field(primary_key=True)
    value: str


class SkillEvent(SQLModel, table=True):
    """The append-only log every skill weight is derived from.

    ``kind``: added, synced, reclaimed (the skill enters the set), read, used,
    revalued (an owner correction of ``target_id``), track_changed,
    forgotten, would_forget, projected. ``session_pos`` and ``day`` are the
    axis coordinates when recorded; a rebuild recomputes the session axis from
    the member's current attributed sessions.
    """

    __tablename__ = "skill_event"
    id: int | None = Field(default=None, primary_key=True)
    member: str = Field(foreign_key="member.name")
    skill: str = Field(foreign_key="skill.name")
    kind: str
    value: float | None = None
    outcome: str | None = None
    session_id: str | None = None
    execution_id: str | None = None
    target_id: int | None = None
    track: str | None = None
    session_pos: float = 0.0
    day: float = 0.0
    at: datetime = _ts()
    actor: str
    reason: str = ""
    basis: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class MemberSkill(SQLModel, table=True):
    """A member's set membership and weight state: a cache equal to a rebuild of the log.

    No foreign keys of its own (migration 0011): its pairs are the log's, whose rows
    reference ``member`` and ``skill``."""

    __tablename__ = "member_skill"
    member: str = Field(primary_key=True)
    skill: str = Field(primary_key=True)
    track: str = "session"
    status: str = "active"  # active | forgotten
    native: bool = False
    w_ref: float = 0.0
    a_ref: float = 0.0
    epoch_seq: int | None = None
    last_seq: int | None = None
    uses: int = 0
    entered_pos: float = 0.0
    entered_day: float = 0.0
    last_used_at: datetime | None = _ts(nullable=True)
    updated_at: datetime = _ts()


class SkillAxis(SQLModel, table=True):
    """Each member's session axis, kept as rows: the sessions on it and their 1-based
    ordinals (derived from ``attribution`` and ``session``; refreshed whenever a member's
    attributed sessions change, see :mod:`viva_store.skills.axis_table`)."""

    __tablename__ = "skill_axis"
    member: str = Field(primary_key=True)
    session_id: str = Field(primary_key=True)
    started_at: datetime = _ts()
    ordinal: int


SKILL_APPEND_ONLY: tuple[str, ...] = ("skill_event",)
