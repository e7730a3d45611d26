"""Table models of recall and the engagement state (DESIGN §5, §6). Re-exported by ``tables``.

The full-text indexes themselves (FTS5 virtual tables on SQLite, GIN
expression indexes on PostgreSQL) are engine-specific and live in
:mod:`viva_store.recall.fts`; they are not table models.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, DateTime
from sqlmodel import Field, SQLModel


def _ts(nullable: bool = False) -> Any:
    return Field(sa_column=Column(DateTime(timezone=True), nullable=nullable))


class RecallSession(SQLModel, table=True):
    """Per-session recall facts, derived and rebuildable: importance and the indexed title.

    ``key`` is the row id of the session in the title index (SQLite); ``title``
    is the copy that index was built from (FTS5 needs the old value to remove it).
    """

    __tablename__ = "recall_session"
    key: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(foreign_key="session.id", unique=True)
    title: str | None = None
    message_count: int = 0
    tool_errors: int = 0
    cited: bool = False
    marked: float | None = None
    importance: float = 0.0
    reason: str = ""


class RecallMark(SQLModel, table=True):
    """The owner marking a session's importance (``None``: back to derived). Append-only."""

    __tablename__ = "recall_mark"
    id: int | None = Field(default=None, primary_key=True)
    session_id: str = Field(foreign_key="session.id", index=True)
    importance: float | None = None
    actor: str
    at: datetime = _ts()
    note: str = ""


class RecallState(SQLModel, table=True):
    """How far the derived recall data has been brought (e.g. the last message indexed)."""

    __tablename__ = "recall_state"
    name: str = Field(primary_key=True)
    value: int = Field(sa_column=Column(BigInteger, nullable=False))


class EngagementEvent(SQLModel, table=True):
    """One change of one field of a member's engagement state. Append-only.

    ``field``: domain | project | counterpart | activity. ``value`` ``None`` is
    "unknown". ``source``: explicit (set by the member or the owner),
    correction (explicit, replacing an automatic value; ``corrects`` names the
    event), rule (an entry rule), judge (the judge, with ``confidence``),
    clear (back to automatic).
    """

    __tablename__ = "engagement_event"
    id: int | None = Field(default=None, primary_key=True)
    member: str = Field(foreign_key="member.name", index=True)
    field: str
    value: str | None = None
    source: str
    confidence: float | None = None
    corrects: int | None = None
    actor: str
    at: datetime = _ts()
    basis: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    note: str = ""


RECALL_APPEND_ONLY: tuple[str, ...] = ("recall_mark", "engagement_event")
