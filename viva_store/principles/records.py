"""Frozen records of principles handed to the faces (no SQLAlchemy here)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from viva_store.records import JsonRecord


@dataclass(frozen=True, slots=True)
class PrincipleRecord(JsonRecord):
    """A member's active principle: the version in force and the wording the owner approved.

    ``text`` is the owner's wording when the approval edited it, else the proposed text.
    ``approved_at`` is when this version became active (its approval, or the rollback that
    re-activated it); ``activated_by`` says which (``approved`` | ``rolled_back``).
    ``evidence`` lists only sessions the caller may see; ``evidence_hidden`` counts the rest.
    """

    id: str
    member: str
    version: int
    version_id: str
    text: str
    rationale: str
    evidence: tuple[str, ...]
    proposed_by: str
    week: str
    approved_at: datetime
    activated_by: str
    event_id: int
    evidence_hidden: int = 0


@dataclass(frozen=True, slots=True)
class CandidateRecord(JsonRecord):
    """A proposed version (a candidate) as the queue shows it.

    ``status``: pending | deferred | approved | rejected | merged. ``evidence`` lists the
    candidate's own evidence followed by that of duplicates merged into it, as far as the
    caller may see those sessions (``evidence_hidden`` counts the others). ``active_text``
    is the member's wording in force for this principle (for a diff), ``stale`` whether the
    active version changed since the candidate was proposed (approval would be refused).
    ``proposal_event`` is the id of its ``proposed`` event: the log's order of proposals.
    """

    id: str
    member: str
    text: str
    rationale: str
    evidence: tuple[str, ...]
    proposed_by: str
    week: str
    status: str
    principle_id: str
    version: int
    replaces_version: int | None
    active_version: int | None
    active_text: str | None
    stale: bool
    batch_id: str | None
    merged: tuple[str, ...]
    proposed_at: datetime
    proposal_event: int
    evidence_hidden: int = 0


@dataclass(frozen=True, slots=True)
class PrincipleEventRecord(JsonRecord):
    """One decision event of a principle (append-only), oldest first in a history.

    ``text`` is what the event itself stored (an approval's edited wording, a rollback's
    restored wording); ``wording`` is the version's wording the event is about: the
    proposal's text, the wording approved or restored, the wording a retirement ended.
    ``basis`` cites only evidence the caller may see.
    """

    id: int
    principle_id: str
    member: str
    version: int | None
    version_id: str | None
    action: str
    actor: str
    text: str | None
    reason: str
    batch_id: str | None
    at: datetime
    basis: dict[str, Any] | None
    wording: str | None = None


@dataclass(frozen=True, slots=True)
class BatchRecord(JsonRecord):
    """The coordinator's gathering of one week's candidates.

    ``entries`` are the candidates the caller may see, duplicates already merged;
    ``counts`` are over the whole batch.
    """

    id: str
    week: str
    created_by: str
    summary: str
    candidates: tuple[str, ...]
    entries: tuple[CandidateRecord, ...]
    created_at: datetime
    new: bool

    def to_json(self) -> dict[str, Any]:
        """The batch with its entries as JSON objects."""
        data = JsonRecord.to_json(self)
        data["entries"] = [entry.to_json() for entry in self.entries]
        return data
