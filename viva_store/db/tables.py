"""The table models: every table Viva has, in one place.

Table models are SQLModel classes; the faces never see them (they get the
frozen records of :mod:`viva_store.records`). The schema itself is created
and changed only by the migrations in ``viva_store/migrations``; these
classes must match what the migrations build (a test compares them).

``APPEND_ONLY`` lists the tables whose rows are never updated or deleted
(DESIGN I3); their guards live in the database (:mod:`viva_store.db.guards`).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime
from sqlmodel import Field, SQLModel


def _ts(nullable: bool = False) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=nullable))


def _big(nullable: bool = False) -> Any:
    """A 64-bit integer column (byte offsets, nanosecond mtimes, inode numbers, token totals)."""
    return Field(default=None if nullable else 0, sa_column=Column(BigInteger, nullable=nullable))


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


class SourceFile(SQLModel, table=True):
    """A harness file (or database) Viva reads, and how far it has read it."""

    __tablename__ = "source_file"
    id: int | None = Field(default=None, primary_key=True)
    harness: str
    path: str
    kind: str
    size: int = _big()
    mtime_ns: int = _big()
    inode: int = _big()
    byte_offset: int = _big()
    lines: int = 0
    last_line_length: int = 0
    last_line_digest: str = ""
    reader_state: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    file_mtime: datetime = _ts()
    first_seen_at: datetime = _ts()
    imported_at: datetime = _ts()


class Session(SQLModel, table=True):
    """A recovered session; its metadata is derived from its messages and source files."""

    __tablename__ = "session"
    id: str = Field(primary_key=True)
    harness: str
    native_id: str
    parent_native_id: str | None = None
    relation: str | None = None
    project: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    models: list[str] = Field(sa_column=Column(JSON, nullable=False))
    started_at: datetime | None = _ts(nullable=True)
    ended_at: datetime | None = _ts(nullable=True)
    title: str | None = None
    title_rank: int = 0
    entrypoint: str | None = None
    originator: str | None = None
    message_count: int = 0
    input_tokens: int = _big()
    output_tokens: int = _big()
    cache_read_tokens: int = _big()
    cache_write_tokens: int = _big()
    reasoning_tokens: int = _big()
    source_path: str = ""
    imported_at: datetime = _ts()
    updated_at: datetime = _ts()


class Message(SQLModel, table=True):
    """One redacted transcript item. Raw events are append-only (DESIGN I3)."""

    __tablename__ = "message"
    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(foreign_key="session.id")
    seq: int
    key: str
    role: str
    at: datetime | None = _ts(nullable=True)
    text: str = ""
    tool: str | None = None
    tool_input: str | None = None
    tool_result: str | None = None
    sidechain: bool = False
    synthetic: bool = False
    model: str | None = None
    kind: str = ""
    raw: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    ruleset: str = ""


class Usage(SQLModel, table=True):
    """Token usage of one model response, counted once per (harness, usage key)."""

    __tablename__ = "usage"
    id: int | None = Field(default=None, primary_key=True)
    harness: str
    usage_key: str
    session_id: str = Field(foreign_key="session.id", index=True)
    input_tokens: int = _big()
    output_tokens: int = _big()
    cache_read_tokens: int = _big()
    cache_write_tokens: int = _big()
    reasoning_tokens: int = _big()
    model: str | None = None


class Quarantine(SQLModel, table=True):
    """A line that could not be used, kept (redacted) with where and why."""

    __tablename__ = "quarantine"
    id: int | None = Field(default=None, primary_key=True)
    run_id: str
    harness: str
    path: str
    line: int | None = None
    byte_offset: int | None = _big(nullable=True)
    length: int = _big()
    reason: str
    raw: str = ""
    ruleset: str = ""
    at: datetime = _ts()


class Redaction(SQLModel, table=True):
    """The ledger of redactions: which record, which rule, where — never the value."""

    __tablename__ = "redaction"
    id: int | None = Field(default=None, primary_key=True)
    run_id: str
    session_id: str | None = None
    message_key: str | None = None
    quarantine_id: int | None = None
    field: str
    rule: str
    position: int
    ruleset: str


class ImportRun(SQLModel, table=True):
    """One run of the importer: when, what, counts, problems."""

    __tablename__ = "import_run"
    id: str = Field(primary_key=True)
    started_at: datetime = _ts()
    finished_at: datetime = _ts()
    harnesses: list[str] = Field(sa_column=Column(JSON, nullable=False))
    counts: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    problems: list[dict[str, Any]] = Field(sa_column=Column(JSON, nullable=False))


class Execution(SQLModel, table=True):
    """A session Viva launched: the record that attributes it without the owner (I6)."""

    __tablename__ = "execution"
    id: str = Field(primary_key=True)
    member: str = Field(foreign_key="member.name", index=True)
    harness: str
    cwd: str
    task: str = ""
    native_session_id: str | None = Field(default=None, index=True)
    grant_id: str | None = None
    started_at: datetime = _ts()
    ended_at: datetime | None = _ts(nullable=True)
    outcome: str | None = None  # success | failure
    exit_status: int | None = None


class Classification(SQLModel, table=True):
    """An attribution event: classify, nobody, unclassify, or by execution record."""

    __tablename__ = "classification"
    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(foreign_key="session.id", index=True)
    action: str  # member | nobody | unclassify | execution
    member: str | None = Field(default=None, foreign_key="member.name")
    execution_id: str | None = Field(default=None, foreign_key="execution.id")
    actor: str
    at: datetime = _ts()
    note: str = ""


class Attribution(SQLModel, table=True):
    """Current attribution per session, derived from ``classification`` (rebuildable)."""

    __tablename__ = "attribution"
    session_id: str = Field(primary_key=True, foreign_key="session.id")
    status: str  # unattributed | attributed | nobody
    member: str | None = Field(default=None, index=True)
    source: str  # owner | execution | parent | none
    classification_id: int | None = None
    note: str = ""


from viva_store.db.tables_principles import (  # noqa: E402 - one catalogue of all tables
    PRINCIPLE_APPEND_ONLY,
    Principle,
    PrincipleBatch,
    PrincipleEvent,
    PrincipleVersion,
)
from viva_store.db.tables_skills import (  # noqa: E402
    SKILL_APPEND_ONLY,
    MemberSkill,
    SkillAxis,
    SkillEvent,
    StoreMeta,
)

APPEND_ONLY: tuple[str, ...] = (
    "grant_revocation",
    "message",
    "quarantine",
    "redaction",
    "import_run",
    "classification",
    *SKILL_APPEND_ONLY,
    *PRINCIPLE_APPEND_ONLY,
    "recall_mark",
    "engagement_event",
)

__all__ = [
    "APPEND_ONLY",
    "Attribution",
    "Classification",
    "Execution",
    "Grant",
    "GrantRevocation",
    "ImportRun",
    "Member",
    "MemberSkill",
    "Message",
    "Principle",
    "PrincipleBatch",
    "PrincipleEvent",
    "PrincipleVersion",
    "Quarantine",
    "Redaction",
    "Session",
    "Skill",
    "SkillAxis",
    "SkillEvent",
    "SourceFile",
    "StoreMeta",
    "Usage",
]

from viva_store.db.tables_recall import (  # noqa: E402, F401 - recall and engagement state
    EngagementEvent,
    RecallMark,
    RecallSession,
    RecallState,
)
