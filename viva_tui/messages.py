"""What the screen's workers report back: past-tense messages (harlequin's way).

Panes post their requests as messages nested in their own class
(``TriagePane.AssignRequested``); the screen answers each in a named thread worker that
calls the backend and posts one of these to the screen only (``bubble=False``), e.g.
``TriagePageLoaded`` or ``SessionsClassified``. The screen hands their records to the pane.

Messages are compared by identity and shown by Textual's own repr, so the dataclasses
skip ``__eq__`` and ``__repr__`` (this module loads before the first frame).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:
    from viva_store.export.service import ExportedFile
    from viva_store.sessions.service import ResumeCommand
    from viva_store.store import ChangeStamp
    from viva_store.triage.service import Expected, Suggestion
    from viva_tui.views import (
        CurveData,
        KnowledgeData,
        MemberRow,
        Page,
        PrinciplesData,
        SearchResult,
        SkillsData,
        TimelineEvents,
        Transcript,
        UsageData,
    )


@dataclass(eq=False, repr=False)
class MembersLoaded(Message, bubble=False):
    """The roster, with counts (``rows``) or without them yet (``counted`` False)."""

    rows: list[MemberRow]
    counted: bool
    only_these: bool = False
    """The rows are some members' new counts; the others keep theirs."""


@dataclass(eq=False, repr=False)
class LaunchCommandsLoaded(Message, bubble=False):
    """Each member's ``viva launch`` command, by name."""

    commands: dict[str, str]


@dataclass
class HarnessesRead(Message, bubble=False):
    """The harnesses Viva reads, for the filters."""

    harnesses: list[str]


@dataclass(eq=False, repr=False)
class TranscriptLoaded(Message, bubble=False):
    """A full transcript to show in a dialog, at message ``at_seq`` (None: its start)."""

    transcript: Transcript
    at_seq: int | None = None


@dataclass(eq=False, repr=False)
class SessionExported(Message, bubble=False):
    """A session was written to a file."""

    exported: ExportedFile


@dataclass(eq=False, repr=False)
class ResumeCommandLoaded(Message, bubble=False):
    """The command that reopens a session: to run after a confirmation, or to copy."""

    command: ResumeCommand
    copy: bool


@dataclass(eq=False, repr=False)
class TranscriptTextLoaded(Message, bubble=False):
    """A whole transcript as Markdown, for the pager."""

    text: str


@dataclass(eq=False, repr=False)
class DocumentLoaded(Message, bubble=False):
    """A Markdown document to show (a skill's body)."""

    title: str
    markdown: str


@dataclass(eq=False, repr=False)
class ReportLoaded(Message, bubble=False):
    """A week's report as Markdown."""

    week: str
    markdown: str


# Triage -----------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class TriagePageLoaded(Message, bubble=False):
    """A page of the triage queue arrived."""

    page: Page


@dataclass(eq=False, repr=False)
class TriagePreviewLoaded(Message, bubble=False):
    """The transcript for the triage preview."""

    transcript: Transcript


@dataclass(eq=False, repr=False)
class SuggestionsLoaded(Message, bubble=False):
    """Suggestions for the queued sessions, by session id."""

    suggestions: dict[str, Suggestion]


@dataclass(eq=False, repr=False)
class SessionsClassified(Message, bubble=False):
    """A triage action was stored: which sessions, how, and how to say it.

    ``left`` is each session's attribution after it (what an undo expects to find);
    ``members`` are those whose counts it changed; ``stamp`` the store after it.
    """

    session_ids: tuple[str, ...]
    summary: str
    left: dict[str, Expected]
    members: tuple[str, ...]
    stamp: ChangeStamp
    undoable: bool = True


@dataclass(eq=False, repr=False)
class TriageRefused(Message, bubble=False):
    """A triage action was refused: a session changed since the pane showed it."""

    reason: str


@dataclass(eq=False, repr=False)
class QueueCounted(Message, bubble=False):
    """How many sessions wait in the triage queue."""

    size: int


@dataclass(eq=False, repr=False)
class StoreStamped(Message, bubble=False):
    """Where the store stands now (``baseline``: the first reading, nothing to re-read)."""

    stamp: ChangeStamp
    baseline: bool = False


@dataclass(eq=False, repr=False)
class ImportProgressed(Message, bubble=False):
    """An import advanced; a newer copy replaces an older one still in the queue."""

    done: int
    total: int
    label: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ImportProgressed)


@dataclass(eq=False, repr=False)
class ImportFinished(Message, bubble=False):
    """An import ended; ``counts`` are the summary's numbers."""

    counts: dict[str, Any]
    problems: int
    new_sessions: tuple[str, ...] = field(default_factory=tuple)
    stamp: ChangeStamp | None = None
    """The store when the import ended (what it wrote is not re-read by the live poll)."""


# Timeline ---------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class TimelineLoaded(Message, bubble=False):
    """The first page of a member's timeline with its skill and principle events."""

    member: str
    page: Page
    events: TimelineEvents


@dataclass(eq=False, repr=False)
class TimelinePageLoaded(Message, bubble=False):
    """A further page of a member's timeline arrived."""

    member: str
    page: Page


@dataclass(eq=False, repr=False)
class TimelinePreviewLoaded(Message, bubble=False):
    """The transcript for the timeline preview."""

    transcript: Transcript


@dataclass(eq=False, repr=False)
class SearchFinished(Message, bubble=False):
    """Recall hits for a search in the timeline."""

    member: str
    text: str
    result: SearchResult


@dataclass(eq=False, repr=False)
class ArchiveSearchFinished(Message, bubble=False):
    """Recall hits over every session, for the search dialog."""

    text: str
    result: SearchResult


@dataclass(eq=False, repr=False)
class UsageLoaded(Message, bubble=False):
    """What the Usage view shows."""

    data: UsageData


# Skills -----------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class SkillsLoaded(Message, bubble=False):
    """A member's skill set arrived."""

    data: SkillsData


@dataclass(eq=False, repr=False)
class CurveLoaded(Message, bubble=False):
    """A skill's curve arrived."""

    data: CurveData


@dataclass(eq=False, repr=False)
class SkillChanged(Message, bubble=False):
    """A reclaim or track change was stored."""

    member: str
    summary: str


# Principles -------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class PrinciplesLoaded(Message, bubble=False):
    """The queue, history and active versions arrived."""

    data: PrinciplesData


@dataclass(eq=False, repr=False)
class KnowledgeLoaded(Message, bubble=False):
    """The gate's candidates, admitted items by kind and the review queue arrived."""

    data: KnowledgeData


@dataclass(eq=False, repr=False)
class KnowledgeDecided(Message, bubble=False):
    """A decision on a knowledge item was stored; ``summary`` says what it did."""

    summary: str


@dataclass(eq=False, repr=False)
class PrincipleDecided(Message, bubble=False):
    """A decision was stored; ``summary`` says what it did."""

    summary: str
