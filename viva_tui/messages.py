"""Messages between the panes and the screen (harlequin's and frogmouth's way).

Panes are passive: they post *requests* (``…Requested``) and the screen answers by
running a thread worker that calls a service and posts a *past-tense* message back
(``TriagePageLoaded``, ``SessionsClassified``). Past-tense messages are posted to the
screen only (``bubble=False``); the screen hands their records to the pane.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from textual.message import Message

from viva_tui.screens.shapes import MemberRow, Page, Query, Transcript

if TYPE_CHECKING:
    from viva_store.records import SessionRecord
    from viva_store.services.suggest import Suggestion

# Requests (posted by panes and dialogs) ---------------------------------------------------


@dataclass
class MemberChosen(Message):
    """The owner picked the member the Timeline and Skills panes show."""

    name: str


@dataclass
class PageRequested(Message):
    """A pane wants a page of sessions (``member`` None: the triage queue)."""

    pane: str
    query: Query
    offset: int
    member: str | None = None


@dataclass
class PreviewRequested(Message):
    """A list's cursor rests on a session: show its transcript in ``pane``'s preview."""

    session_id: str
    pane: str = "triage"


@dataclass
class TranscriptRequested(Message):
    """Open a session's transcript in a dialog."""

    session_id: str


@dataclass
class AssignRequested(Message):
    """File these sessions into ``member``'s experience (None: nobody's)."""

    session_ids: tuple[str, ...]
    member: str | None


@dataclass
class PickRequested(Message):
    """Ask the owner which member these sessions belong to, then assign."""

    session_ids: tuple[str, ...]


@dataclass
class AcceptRequested(Message):
    """Accept the suggestions: ``(session id, member)`` pairs."""

    pairs: tuple[tuple[str, str], ...]


@dataclass
class UndoRequested(Message):
    """Undo the last triage action."""


# Results (posted by workers to the screen) -------------------------------------------------


@dataclass
class MembersLoaded(Message, bubble=False):
    """The roster, with counts (``rows``) or without them yet (``counted`` False)."""

    rows: list[MemberRow]
    counted: bool


@dataclass
class PageLoaded(Message, bubble=False):
    """A page of sessions for ``pane`` arrived."""

    pane: str
    page: Page
    member: str | None = None


@dataclass
class SuggestionsLoaded(Message, bubble=False):
    """Suggestions for the queued sessions, by session id."""

    suggestions: dict[str, Suggestion]


@dataclass
class PreviewLoaded(Message, bubble=False):
    """The transcript for a pane's preview."""

    transcript: Transcript
    pane: str = "triage"


@dataclass
class TranscriptLoaded(Message, bubble=False):
    """A full transcript to show in a dialog."""

    transcript: Transcript


@dataclass
class SessionsClassified(Message, bubble=False):
    """A triage action was stored: which sessions, how, and how to say it."""

    session_ids: tuple[str, ...]
    summary: str
    undoable: bool = True


@dataclass
class ImportProgressed(Message, bubble=False):
    """An import advanced; a newer copy replaces an older one still in the queue."""

    done: int
    total: int
    label: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ImportProgressed)


@dataclass
class ImportFinished(Message, bubble=False):
    """An import ended; ``counts`` are the summary's numbers."""

    counts: dict[str, Any]
    problems: int
    new_sessions: tuple[str, ...] = field(default_factory=tuple)


@dataclass
class SessionsChanged(Message, bubble=False):
    """Sessions changed in the store (a classification or an import): reload lists."""

    sessions: tuple[SessionRecord, ...] = ()


# Principles -------------------------------------------------------------------------------


@dataclass
class PrinciplesRequested(Message):
    """The principles pane wants the queue and the history."""


@dataclass
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


@dataclass
class EvidenceWanted(Message):
    """Open one of the sessions a candidate cites."""

    refs: tuple[str, ...]


@dataclass
class PrinciplesLoaded(Message, bubble=False):
    """The queue, history and active versions arrived."""

    data: Any


@dataclass
class PrincipleDecided(Message, bubble=False):
    """A decision was stored; ``summary`` says what it did."""

    summary: str


# Timeline ---------------------------------------------------------------------------------


@dataclass
class SearchRequested(Message):
    """Search ``member``'s experience for ``text`` (empty: leave the search)."""

    member: str
    text: str


@dataclass
class TimelineLoaded(Message, bubble=False):
    """The first page of a member's timeline with its skill and principle events."""

    member: str
    page: Page
    events: Any


@dataclass
class SearchFinished(Message, bubble=False):
    """Recall hits for a search in the timeline."""

    member: str
    text: str
    hits: list[Any]


# Skills -----------------------------------------------------------------------------------


@dataclass
class SkillsRequested(Message):
    """The skills pane wants ``member``'s set."""

    member: str
    include_forgotten: bool


@dataclass
class CurveRequested(Message):
    """Plot this skill's curve."""

    member: str
    skill: str


@dataclass
class SkillChangeWanted(Message):
    """Reclaim a skill (``action`` reclaim) or move it to ``track`` (``action`` track)."""

    action: str
    member: str
    skill: str
    track: str = ""


@dataclass
class SkillBodyWanted(Message):
    """Read a skill's body."""

    skill: str


@dataclass
class SkillsLoaded(Message, bubble=False):
    """A member's skill set arrived."""

    data: Any


@dataclass
class CurveLoaded(Message, bubble=False):
    """A skill's curve arrived."""

    data: Any


@dataclass
class SkillChanged(Message, bubble=False):
    """A reclaim or track change was stored."""

    member: str
    summary: str


@dataclass
class DocumentLoaded(Message, bubble=False):
    """A Markdown document to show (a skill body, the weekly report)."""

    title: str
    markdown: str
