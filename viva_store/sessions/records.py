"""Frozen records of a member's timeline handed to the faces (no SQLAlchemy here)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from viva_store.records import JsonRecord

KINDS = ("session", "skill", "principle")


@dataclass(frozen=True, slots=True)
class TimelineItem(JsonRecord):
    """One thing in a member's experience: a session, a skill event or a principle event.

    ``text`` is one line in the store's own words (a session's title; what a skill or
    principle event did, with its wording and reason). ``event`` is the skill event's kind
    or the principle event's action (None for a session); ``session_id`` the session the
    item belongs to, when it has one.
    """

    at: datetime
    kind: str
    text: str
    event: str | None = None
    session_id: str | None = None
    harness: str | None = None
    project: str | None = None
    skill: str | None = None
    principle_id: str | None = None
    version: int | None = None
