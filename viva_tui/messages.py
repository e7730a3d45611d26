"""Messages between the panes and the screen (harlequin's and frogmouth's way).

Panes are passive: they post *requests* (``…Requested``) and the screen answers by
running a thread worker that calls a service and posts a *past-tense* message back
(``TriagePageLoaded``, ``SessionsClassified``). Past-tense messages are posted to the
screen only (``bubble=False``); the screen hands their records to the pane.

Messages are compared by identity and shown by Textual's own repr, so the dataclasses
skip ``__eq__`` and ``__repr__`` (this module loads before the first frame).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

from viva_tui.screens.shapes import MemberRow, Page, Query, Transcript

if TYPE_CHECKING:
    from viva_store.records import SessionRecord
    from viva_store.triage.service import Suggestion

# Requests (posted by panes and dialogs) ---------------------------------------------------


@dataclass(eq=False, repr=False)
class MemberChosen(Message):
    """The owner picked the member the Timeline and Skills panes show."""

    name: str


@dataclass(eq=False, repr=False)
class PageRequested(Message):
    """A pane wants a page of sessions (``member`` None: the triage queue)."""

    pane: str
    query: Query
    offset: int
    member: str | None = None


@dataclass(eq=False, repr=False)
class PreviewRequested(Message):
    """A list's cursor rests on a session: show its transcript in ``pane``'s preview."""

    session_id: str
    pane: str = "triage"


@dataclass(eq=False, repr=False)
class TranscriptRequested(Message):
    """Open a session's transcript in a dialog."""

    session_id: str


@dataclass(eq=False, repr=False)
class AssignRequested(Message):
    """File these sessions into ``member``'s experience (None: nobody's)."""

    session_ids: tuple[str, ...]
    member: str | None


@dataclass(eq=False, repr=False)
class PickRequested(Message):
    """Ask the owner which member these sessions belong to, then assign."""

    session_ids: tuple[str, ...]


@dataclass(eq=False, repr=False)
class AcceptRequested(Message):
    """Accept the suggestions: ``(session id, member)`` pairs."""

    pairs: tuple[tuple[str, str], ...]


@dataclass(eq=False, repr=False)
class UndoRequested(Message):
    """Undo the last triage action."""


# Results (posted by workers to the screen) -------------------------------------------------


@dataclass(eq=False, repr=False)
class MembersLoaded(Message, bubble=False):
    """The roster, with counts (``rows``) or without them yet (``counted`` False)."""

    rows: list[MemberRow]
    counted: bool


@dataclass(eq=False, repr=False)
class PageLoaded(Message, bubble=False):
    """A page of sessions for ``pane`` arrived."""

    pane: str
    page: Page
    member: str | None = None


@dataclass(eq=False, repr=False)
class SuggestionsLoaded(Message, bubble=False):
    """Suggestions for the queued sessions, by session id."""

    suggestions: dict[str, Suggestion]


@dataclass(eq=False, repr=False)
class PreviewLoaded(Message, bubble=False):
    """The transcript for a pane's preview."""

    transcript: Transcript
    pane: str = "triage"


@dataclass(eq=False, repr=False)
class TranscriptLoaded(Message, bubble=False):
    """A full transcript to show in a dialog."""

    transcript: Transcript


@dataclass(eq=False, repr=False)
class SessionsClassified(Message, bubble=False):
    """A triage action was stored: which sessions, how, and how to say it."""

    session_ids: tuple[str, ...]
    summary: str
    undoable: bool = True


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


@dataclass(eq=False, repr=False)
class SessionsChanged(Message, bubble=False):
    """Sessions changed in the store (a classification or an import): reload lists."""

    sessions: tuple[SessionRecord, ...] = ()


# Principles -------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class PrinciplesRequested(Message):
    """The principles pane wants the queue and the history."""


@dataclass(eq=False, repr=False)
class DecisionWanted(Message):
    """The owner pressed a decision key; the screen confirms, then stores it.

    ``action``: approve | edit | reject | defer | rollback. ``ref`` is the candidate id
    (the principle id for a rollback); ``text`` what the owner reads in the question.
    """

    action: str
    ref: str
    member: str
    text: str
    version: int = 0


@dataclass(eq=False, repr=False)
class EvidenceWanted(Message):
    """Open one of the sessions a candidate cites."""

    refs: tuple[str, ...]


@dataclass(eq=False, repr=False)
class PrinciplesLoaded(Message, bubble=False):
    """The queue, history and active versions arrived."""

    data: Any


@dataclass(eq=False, repr=False)
class PrincipleDecided(Message, bubble=False):
    """A decision was stored; ``summary`` says what it did."""

    summary: str


# Timeline ---------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class SearchRequested(Message):
    """Search ``member``'s experience for ``text`` (empty: leave the search)."""

    member: str
    text: str


@dataclass(eq=False, repr=False)
class TimelineLoaded(Message, bubble=False):
    """The first page of a member's timeline with its skill and principle events."""

    member: str
    page: Page
    events: Any


@dataclass(eq=False, repr=False)
class SearchFinished(Message, bubble=False):
    """Recall hits for a search in the timeline."""

    member: str
    text: str
    result: Any


# Skills -----------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class SkillsRequested(Message):
    """The skills pane wants ``member``'s set."""

    member: str
    include_forgotten: bool


@dataclass(eq=False, repr=False)
class CurveRequested(Message):
    """Plot this skill's curve."""

    member: str
    skill: str


@dataclass(eq=False, repr=False)
class SkillChangeWanted(Message):
    """Reclaim a skill (``action`` reclaim) or move it to ``track`` (``action`` track)."""

    action: str
    member: str
    skill: str
    track: str = ""


@dataclass(eq=False, repr=False)
class SkillBodyWanted(Message):
    """Read a skill's body."""

    skill: str


@dataclass(eq=False, repr=False)
class SkillsLoaded(Message, bubble=False):
    """A member's skill set arrived."""

    data: Any


@dataclass(eq=False, repr=False)
class CurveLoaded(Message, bubble=False):
    """A skill's curve arrived."""

    data: Any


@dataclass(eq=False, repr=False)
class SkillChanged(Message, bubble=False):
    """A reclaim or track change was stored."""

    member: str
    summary: str


@dataclass(eq=False, repr=False)
class ReportRequested(Message):
    """Show the weekly report of ``week`` (None: the current week)."""

    week: str | None = None


@dataclass(eq=False, repr=False)
class ReportLoaded(Message, bubble=False):
    """A week's report as Markdown."""

    week: str
    markdown: str


@dataclass(eq=False, repr=False)
class DocumentLoaded(Message, bubble=False):
    """A Markdown document to show (a skill body, the weekly report)."""

    title: str
    markdown: str
