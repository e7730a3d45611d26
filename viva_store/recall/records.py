"""Frozen records recall hands to the faces (no SQLAlchemy here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from viva_store.clock import as_utc
from viva_store.records import JsonRecord


@dataclass(frozen=True, slots=True)
class RecallHit(JsonRecord):
    """One recalled session (its best-matching message or title) with provenance.

    ``kind``: ``message`` (``seq`` names the message) or ``title``.
    ``factors``: ``relevance``, ``recency``, ``importance`` (each 0..1);
    ``score`` is their weighted mean, times the engagement-state boost when
    the hit is in the state's project and the state is preferred. Newest-first
    hits are ordered by time: their ``relevance`` and ``score`` are ``None``.
    """

    session_id: str
    harness: str
    at: datetime | None
    score: float | None
    snippet: str
    kind: str
    seq: int | None
    title: str | None
    member: str | None
    status: str
    project: str | None
    factors: dict[str, float | None]
    importance_reason: str
    highlights: tuple[tuple[int, int], ...] = ()
    in_state_project: bool | None = None


@dataclass(frozen=True, slots=True)
class RecallItem(JsonRecord):
    """A skill, a principle version or a knowledge item that matches, marked with its status.

    ``kind``: ``skill`` (``id`` is its name; ``marked``: active | forgotten) or
    ``principle`` (``id`` is the version; ``marked``: active | superseded |
    retired | pending | deferred | rejected | merged) or ``knowledge`` (``id`` is the
    item's; ``marked``: its status in words — recorded, reused N times, retracted …).
    ``session_id`` and ``harness`` are always ``None``: the keys are there so a list of
    hits reads uniformly.
    """

    kind: str
    id: str
    member: str
    marked: str
    at: datetime | None
    score: float
    snippet: str
    highlights: tuple[tuple[int, int], ...]
    factors: dict[str, float]
    session_id: None = None
    harness: None = None


@dataclass(frozen=True, slots=True)
class RecallResult(JsonRecord):
    """What a recall call found, and how it read the query.

    ``matched``: ``all`` (every token) or ``any`` (no session had every token,
    so sessions with any of them were ranked). ``state``: the engagement
    state's project that narrowed the search (``None`` when none did).
    """

    hits: tuple[RecallHit, ...]
    query: str
    tokens: tuple[str, ...]
    truncated: bool
    matched: str
    order: str
    member: str | None
    state_mode: str
    state_project: str | None = None
    notes: tuple[str, ...] = field(default_factory=tuple)
    items: tuple[RecallItem, ...] = ()  # skills and principles, best first

    def to_json(self) -> dict[str, Any]:
        out = JsonRecord.to_json(self)
        out["hits"] = [hit.to_json() for hit in self.hits]
        out["items"] = [item.to_json() for item in self.items]
        return out


@dataclass(frozen=True, slots=True)
class RecallFilter:
    """What narrows a search besides the member: a harness, a project (its name or cwd),
    and hits at or after an instant (a message's time; a title's, its session's end)."""

    harness: str | None = None
    project: str | None = None
    since: datetime | None = None

    def params(self, dialect: str) -> dict[str, Any]:
        """The statements' values of these filters (see :class:`Plan`)."""
        out: dict[str, Any] = {"f_harness": self.harness, "f_project": self.project}
        if self.since is not None:
            out["f_since"] = as_utc(self.since)
            out["f_since_us"] = round(as_utc(self.since).timestamp() * 1_000_000)
        return out


NO_FILTER = RecallFilter()
