"""What the faces receive about knowledge items: plain, frozen records."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from viva_store.records import JsonRecord


@dataclass(frozen=True, slots=True)
class KnowledgeEventRecord(JsonRecord):
    """One event of an item's history."""

    id: int
    action: str
    actor: str
    at: datetime
    reason: str
    session: str | None
    other: str | None


@dataclass(frozen=True, slots=True)
class KnowledgeRecord(JsonRecord):
    """A knowledge item as the actor may see it.

    ``status`` is the lifecycle state; ``words`` says it as far as the evidence goes
    ("recorded", "reused N times"). ``sources`` and ``used_in`` leave out sessions the
    actor cannot see (``sources_hidden`` counts them).
    """

    id: str
    member: str
    kind: str
    summary: str
    status: str
    reason: str
    sources: tuple[str, ...]
    uses: int
    importance: float
    project: str | None
    words: str
    body: str
    evidence: str
    why: str
    confidence: float | None
    domain: str | None
    task_pattern: str | None
    occurred_at: datetime
    invalidated_at: datetime | None
    superseded_by: str | None
    flags: tuple[str, ...]
    proposed_by: str
    created_at: datetime
    used_in: tuple[str, ...]
    sources_hidden: int
    history: tuple[KnowledgeEventRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class ReviewRecord(JsonRecord):
    """An item due for the owner's review, and why it came up."""

    item: KnowledgeRecord
    why: str
    idle_days: int
