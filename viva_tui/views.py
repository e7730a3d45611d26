"""What the panes show, as plain frozen records: the app's view models.

The backend (``screens/backend``) builds these from the store's records, messages carry
them, and the panes draw them. Nothing here imports Textual or the store at run time, so
the panes, the messages and the first frame can all depend on this module cheaply.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from viva_store.knowledge.service import KnowledgeRecord, ReviewRecord
    from viva_store.principles.service import CandidateRecord, PrincipleEventRecord
    from viva_store.recall.service import RecallHit
    from viva_store.records import ExecutionRecord, MemberRecord, MessageRecord, SessionRecord
    from viva_store.sessions.service import RelatedSessions
    from viva_store.skills.service import SkillParams
    from viva_store.usage.service import UsageReport

PREVIEW_MESSAGES = 120
TRIAGE_PAGE = 100
"""Sessions per triage page (more load as the cursor nears the end)."""
TIMELINE_PAGE = 200
TRANSCRIPT_MESSAGES = 2000
CHART_DAYS = 30
"""How many days the Usage view's chart covers, up to the store clock's today."""
OPEN_CANDIDATES = ("pending", "deferred")
"""Candidate statuses still waiting for the owner."""


# Sessions -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Query:
    """What a list of sessions is narrowed by (the triage and timeline filters)."""

    harness: str | None = None
    project: str | None = None
    text: str | None = None


@dataclass(frozen=True, slots=True)
class Page:
    """One page of sessions: ``offset`` into the list, ``more`` when the list goes on."""

    query: Query
    offset: int
    sessions: tuple[SessionRecord, ...]
    more: bool


@dataclass(frozen=True, slots=True)
class Transcript:
    """A session and (the start of) its redacted messages."""

    session: SessionRecord
    messages: tuple[MessageRecord, ...]
    truncated: bool
    related: RelatedSessions | None = None
    """Its parent or original and its children (read for the whole-transcript dialog)."""


# Members --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemberRow:
    """A member with what the roster counts (None: not counted yet)."""

    member: MemberRecord
    sessions: int | None
    last_active: datetime | None
    active_skills: int | None
    active_principles: int | None
    executions: tuple[ExecutionRecord, ...] = ()
    launch_command: str = ""


# Timeline -------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """Something that happened to a member that is not a session."""

    at: datetime
    kind: str  # skill | principle
    text: str


@dataclass(frozen=True, slots=True)
class TimelineEvents:
    """The member's skill events and principle decisions, newest first."""

    member: str
    events: tuple[TimelineEvent, ...]


@dataclass(frozen=True, slots=True)
class SearchResult:
    """What the recall service found: session hits (newest first), matching skills and
    principles, and its notes (e.g. a truncated query, or "any" word matched)."""

    hits: tuple[RecallHit, ...]
    items: tuple[Any, ...]
    notes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ArchiveQuery:
    """The owner's search over every session: words and the filters ("" is no filter;
    ``since`` as ``--since`` takes it)."""

    text: str
    harness: str = ""
    project: str = ""
    member: str = ""
    since: str = ""


@dataclass(frozen=True, slots=True)
class UsageData:
    """What the Usage view shows: recent days for the chart, and the table's grouping."""

    days: UsageReport
    table: UsageReport


# Skills ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SkillRow:
    """One skill of the set, as the table shows it."""

    name: str
    status: str  # active | native | protected | would_forget | forgotten
    weight: float
    track: str
    last_used: datetime | None
    uses: int
    spark: tuple[float, ...]


@dataclass(frozen=True, slots=True)
class SkillsData:
    """The member's set; ``trial_until`` set while forgetting is on trial; ``params`` the
    store's own skill numbers (half-lives, protection), which help and dialogs quote."""

    member: str
    rows: tuple[SkillRow, ...]
    trial_until: datetime | None
    forget_below: float
    params: SkillParams | None = None


@dataclass(frozen=True, slots=True)
class CurveData:
    """One skill's weight curve (a ``Curve`` of the skill-set service)."""

    member: str
    skill: str
    curve: Any


# Principles -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class PrinciplesData:
    """Every candidate (open ones first in the pane), every event, the active versions."""

    candidates: tuple[CandidateRecord, ...]
    history: tuple[PrincipleEventRecord, ...]
    active: dict[str, int]
    wording: dict[tuple[str, int], str]

    @property
    def open(self) -> list[CandidateRecord]:
        """Candidates waiting for the owner, by week, batch, member (the service's order)."""
        return [c for c in self.candidates if c.status in OPEN_CANDIDATES]


# Knowledge ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KnowledgeData:
    """The gate's candidates, admitted items by kind, and the owner's review queue."""

    candidates: tuple[KnowledgeRecord, ...]
    admitted: dict[str, tuple[KnowledgeRecord, ...]]
    review: tuple[ReviewRecord, ...]
