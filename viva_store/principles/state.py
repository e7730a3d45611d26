"""What is in force, derived from the append-only decision log (DESIGN §4, I3, I8).

Pure functions: no database, no clock. A principle's active version and each
candidate's status are folded from its ``principle_event`` rows in log order,
so they can always be rebuilt and never depend on a mutable column.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any

from viva_store.errors import InvalidInput

# The decision vocabulary. The string "approved" is written here and nowhere else in the
# store; exactly one function inserts an event with it (a test holds both, DESIGN I7).
PROPOSED = "proposed"
BATCHED = "batched"
MERGED = "merged"
APPROVED = "approved"
REJECTED = "rejected"
DEFERRED = "deferred"
ROLLED_BACK = "rolled_back"
RETIRED = "retired"
OPEN = ("pending", DEFERRED)
"""Candidate statuses still waiting for the owner."""

_WEEK_RE = re.compile(r"^(\d{4})-W(\d{2})$")


@dataclass(frozen=True, slots=True)
class Event:
    """A ``principle_event`` row joined with the version number it names."""

    id: int
    principle_id: str
    version_id: str | None
    version: int | None
    action: str
    actor: str
    text: str | None
    reason: str
    batch_id: str | None
    at: datetime
    basis: dict[str, Any] | None


@dataclass(slots=True)
class State:
    """One principle folded from its events.

    ``active`` is the version in force (``None``: never approved, or retired) and
    ``active_event`` the event that put it in force. ``approvals`` holds, per version, the
    last approval of that version (its wording is what a rollback restores).
    """

    active: int | None = None
    active_event: Event | None = None
    approvals: dict[int, Event] = field(default_factory=dict)
    status: dict[str, str] = field(default_factory=dict)
    batch: dict[str, str] = field(default_factory=dict)
    merged_into: dict[str, str] = field(default_factory=dict)


def fold(events: Iterable[Event]) -> State:
    """Fold one principle's events (any order; sorted by id here) into its :class:`State`."""
    state = State()
    for ev in sorted(events, key=lambda e: e.id):
        vid = ev.version_id
        if ev.action == PROPOSED and vid is not None:
            state.status[vid] = "pending"
        elif ev.action == BATCHED and vid is not None and ev.batch_id is not None:
            state.batch[vid] = ev.batch_id
        elif ev.action == MERGED and vid is not None:
            state.status[vid] = MERGED
            if ev.batch_id is not None:
                state.batch[vid] = ev.batch_id
            into = (ev.basis or {}).get("into")
            if isinstance(into, str):
                state.merged_into[vid] = into
        elif ev.action == DEFERRED and vid is not None:
            state.status[vid] = DEFERRED
        elif ev.action == REJECTED and vid is not None:
            state.status[vid] = REJECTED
        elif ev.action == APPROVED and vid is not None and ev.version is not None:
            state.status[vid] = APPROVED
            state.approvals[ev.version] = ev
            state.active, state.active_event = ev.version, ev
        elif ev.action == ROLLED_BACK and ev.version is not None:
            state.active, state.active_event = ev.version, ev
        elif ev.action == RETIRED:
            state.active, state.active_event = None, None
    return state


def approved_wording(state: State, version: int, proposed_text: str) -> str:
    """The wording the owner approved for ``version`` (an edit wins over the proposal)."""
    approval = state.approvals.get(version)
    if approval is not None and approval.text:
        return approval.text
    return proposed_text


def normalize_text(text: str) -> str:
    """A principle's text for duplicate detection: case, spacing and end punctuation ignored."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(folded.split()).rstrip(" .!;:")


def iso_week(at: datetime) -> str:
    """The ISO week of an instant (UTC), e.g. ``2026-W48``."""
    year, week, _ = at.astimezone(UTC).isocalendar()
    return f"{year}-W{week:02d}"


def parse_week(text: str) -> str:
    """Validate ``YYYY-Www`` (week 53 only in years that have one)."""
    match = _WEEK_RE.match(text.strip())
    if match:
        try:
            date.fromisocalendar(int(match.group(1)), int(match.group(2)), 1)
        except ValueError:
            pass
        else:
            return text.strip()
    raise InvalidInput(f"--week {text!r}: use an ISO week such as 2026-W48")


def week_bounds(week: str) -> tuple[datetime, datetime]:
    """The instants (UTC) where ``week`` starts (Monday 00:00) and the next week starts."""
    week = parse_week(week)
    year, number = int(week[:4]), int(week[6:])
    start = datetime.combine(date.fromisocalendar(year, number, 1), datetime.min.time(), UTC)
    return start, start + timedelta(days=7)
