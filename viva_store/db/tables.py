"""The table models: every table Viva has, in one place.

Table models are SQLModel classes; the faces never see them (they get the
frozen records of :mod:`viva_store.records`). The schema itself is created
and changed only by the migrations in ``viva_store/migrations``; these
classes must match what the migrations build (a test compares them).

``APPEND_ONLY`` lists the tables whose rows are never updated or deleted
(DESIGN I3); their guards live in the database (:mod:`viva_store.db.dialect`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime
from sqlmodel import Field, SQLModel


def _ts(nullable: bool = False) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=nullable))


class Member(SQLModel, table=True):
    """A member's identity, loaded from ``members/<name>/member.yaml`` and ``soul.md``."""

    __tablename__ = "member"
    name: str = Field(primary_key=True)
    display_name: str
    role: str
    engine: str
    harnesses: list[str] = Field(sa_column=Column(JSON, nullable=False))
    tools: list[str] = Field(sa_column=Column(JSON, nullable=False))
    coordinator: bool = False
    soul: str = ""
    native_skills: list[str] = Field(sa_column=Column(JSON, nullable=False))
    source_path: str = ""
    loaded_at: datetime = _ts()


class Skill(SQLModel, table=True):
    """A team skill: one ``SKILL.md`` folder of the library."""

    __tablename__ = "skill"
    name: str = Field(primary_key=True)
    description: str
    body: str
    tags: list[str] = Field(sa_column=Column(JSON, nullable=False))
    source_path: str = ""
    derived_from: str | None = Field(default=None, foreign_key="skill.name")
    digest: str
    added_at: datetime = _ts()


class Grant(SQLModel, table=True):
    """A grant lets one member act through Viva; only the token's hash is kept."""

    __tablename__ = "member_grant"
    id: str = Field(primary_key=True)
    member: str = Field(foreign_key="member.name", index=True)
    token_hash: str = Field(unique=True)
    created_at: datetime = _ts()
    expires_at: datetime | None = _ts(nullable=True)
    note: str = ""


class GrantRevocation(SQLModel, table=True):
    """Revoking a grant is an event; the grant row itself is never changed."""

    __tablename__ = "grant_revocation"
    id: int | None = Field(default=None, primary_key=True)
    grant_id: str = Field(foreign_key="member_grant.id", index=True)
    revoked_at: datetime = _ts()
    reason: str = ""


APPEND_ONLY: tuple[str, ...] = ("grant_revocation",)
