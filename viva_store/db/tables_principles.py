"""Table models of principles (DESIGN §4). Re-exported by ``tables``.

A *principle* is a member-level norm with versions. Each proposed version is
a candidate (``principle_version``, immutable); every decision about it is a
``principle_event`` (append-only). What is active is derived from the events.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime
from sqlmodel import Field, SQLModel


def _ts(nullable: bool = False) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=nullable))


class Principle(SQLModel, table=True):
    """A norm of one member; its wording lives in its versions."""

    __tablename__ = "principle"
    id: str = Field(primary_key=True)
    member: str = Field(foreign_key="member.name", index=True)
    created_at: datetime = _ts()


class PrincipleVersion(SQLModel, table=True):
    """A proposed wording (a candidate). Never changed once written."""

    __tablename__ = "principle_version"
    id: str = Field(primary_key=True)
    principle_id: str = Field(foreign_key="principle.id", index=True)
    version: int
    text: str
    rationale: str
    evidence: list[str] = Field(sa_column=Column(JSON, nullable=False))
    proposed_by: str  # a member name, or "owner"
    week: str  # ISO week, e.g. 2026-W48
    replaces_version: int | None = None  # the active version when proposed
    created_at: datetime = _ts()


class PrincipleEvent(SQLModel, table=True):
    """A decision: proposed, batched, approved, rejected, deferred, rolled_back, retired."""

    __tablename__ = "principle_event"
    id: int | None = Field(default=None, primary_key=True)
    principle_id: str = Field(foreign_key="principle.id", index=True)
    version_id: str | None = Field(default=None, foreign_key="principle_version.id")
    action: str
    actor: str
    text: str | None = None  # approved wording when the owner edited it
    reason: str = ""
    batch_id: str | None = None
    at: datetime = _ts()
    basis: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))


class PrincipleBatch(SQLModel, table=True):
    """The coordinator's weekly gathering of candidates, with a short summary."""

    __tablename__ = "principle_batch"
    id: str = Field(primary_key=True)
    week: str = Field(index=True)
    created_by: str
    summary: str
    candidates: list[str] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = _ts()


PRINCIPLE_APPEND_ONLY: tuple[str, ...] = ("principle_version", "principle_event", "principle_batch")
