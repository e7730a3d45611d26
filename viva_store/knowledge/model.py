"""Knowledge items as plain values: kinds, the lifecycle folded from events, who sees what.

Pure code, no I/O. An item is immutable once proposed; everything that happens to it
(admitted, declined, used, retracted, superseded) is an event, and its status is folded
from those events here. :func:`for_task` is the one rule of what a task may see.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, TypeVar

PERSONAL = "personal_memory"
SELF_MODEL = "self_model_candidate"
PROJECT = "project_knowledge"
TEAM = "team_knowledge"
SKILL = "skill"
KINDS = (PERSONAL, SELF_MODEL, PROJECT, TEAM, SKILL)
MEMBER_KINDS = frozenset({PERSONAL, SELF_MODEL})  # seen only in their member's tasks
SHARED_KINDS = frozenset({TEAM, SKILL})  # seen in every task

REASONS = ("recurred", "surprised", "emphasised", "costly")

CANDIDATE = "candidate"
ADMITTED = "admitted"
DECLINED = "declined"
RETRACTED = "retracted"
SUPERSEDED = "superseded"
STATUSES = (CANDIDATE, ADMITTED, DECLINED, RETRACTED, SUPERSEDED)

PROPOSED = "proposed"
USED = "used"
ACTIONS = (PROPOSED, ADMITTED, DECLINED, USED, RETRACTED, SUPERSEDED)
_STATUS_OF = {
    PROPOSED: CANDIDATE,
    ADMITTED: ADMITTED,
    DECLINED: DECLINED,
    RETRACTED: RETRACTED,
    SUPERSEDED: SUPERSEDED,
}


@dataclass(frozen=True, slots=True)
class Source:
    """A session an item was drawn from, or one message of it (``seq``)."""

    session: str
    seq: int | None = None

    def ref(self) -> str:
        return self.session if self.seq is None else f"{self.session}:{self.seq}"


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened to an item (append-only)."""

    id: int
    action: str
    actor: str
    at: datetime
    reason: str = ""
    session: str | None = None
    other: str | None = None  # superseded: the item that replaces it


@dataclass(frozen=True, slots=True)
class Item:
    """An item as proposed plus its events, oldest first."""

    id: str
    member: str
    kind: str
    project: str | None
    domain: str | None
    task_pattern: str | None
    summary: str
    body: str
    reason: str
    evidence: str
    sources: tuple[Source, ...]
    importance: float
    why: str
    confidence: float | None
    occurred_at: datetime
    flags: tuple[str, ...]
    proposed_by: str
    created_at: datetime
    events: tuple[Event, ...] = ()

    @property
    def status(self) -> str:
        """The lifecycle state the events have reached (``candidate`` before any decision)."""
        status = CANDIDATE
        for event in self.events:
            status = _STATUS_OF.get(event.action, status)
        return status

    @property
    def uses(self) -> tuple[Event, ...]:
        """Recorded uses, one per session (the first one counts)."""
        seen: set[str | None] = set()
        out = []
        for event in self.events:
            if event.action == USED and event.session not in seen:
                seen.add(event.session)
                out.append(event)
        return tuple(out)

    def last(self, action: str) -> Event | None:
        found = [e for e in self.events if e.action == action]
        return found[-1] if found else None


if TYPE_CHECKING:
    from typing import Protocol

    class Scoped(Protocol):
        """What :func:`for_task` decides on: an :class:`Item`, or a :class:`Glance` of one."""

        @property
        def member(self) -> str: ...
        @property
        def kind(self) -> str: ...
        @property
        def project(self) -> str | None: ...
        @property
        def domain(self) -> str | None: ...
        @property
        def task_pattern(self) -> str | None: ...
        @property
        def status(self) -> str: ...


S = TypeVar("S", bound="Scoped")


@dataclass(frozen=True, slots=True)
class Glance:
    """An item's scope, status and summary only: enough to decide and rank, cheap to read."""

    id: str
    member: str
    kind: str
    project: str | None
    domain: str | None
    task_pattern: str | None
    status: str
    summary: str
    importance: float


def status_after(action: str | None) -> str:
    """The status the last lifecycle event (not a use) leaves an item in."""
    return CANDIDATE if action is None else _STATUS_OF.get(action, CANDIDATE)


@dataclass(frozen=True, slots=True)
class Task:
    """What a task is about: the member doing it, its text, its project and domain."""

    member: str
    text: str = ""
    project: str | None = None
    domain: str | None = None


@dataclass(frozen=True, slots=True)
class Engagement:
    """The part of a member's engagement state that narrows what a task sees."""

    domain: str | None = None
    project: str | None = None


def words(item: Item) -> str:
    """The status in words that follow the evidence: never more than the uses recorded."""
    if item.kind == SELF_MODEL and item.status == CANDIDATE:
        return "recorded hypothesis"
    if item.status != ADMITTED:
        return item.status
    n = len(item.uses)
    if n == 0:
        return "recorded"
    return f"reused {n} time" + ("" if n == 1 else "s")


def pattern_matches(pattern: str | None, text: str) -> bool:
    """A task pattern: a glob on the task text (case-insensitive); plain words match inside."""
    if not pattern:
        return True
    pattern, text = pattern.lower().strip(), text.lower()
    if any(ch in pattern for ch in "*?["):
        return fnmatch.fnmatchcase(text, pattern)
    return pattern in text


def in_scope(item: Scoped, task: Task) -> bool:
    """The kind's boundary: whose or which project's tasks may see ``item`` at all."""
    if item.kind in MEMBER_KINDS:
        return item.member == task.member
    if item.kind == PROJECT:
        return item.project is not None and item.project == task.project
    return item.kind in SHARED_KINDS


def live(item: Scoped) -> bool:
    """Admitted items reach tasks; a self-model hypothesis is visible while it is recorded."""
    if item.kind == SELF_MODEL:
        return item.status == CANDIDATE
    return item.status == ADMITTED


def for_task(items: Iterable[S], task: Task, state: Engagement | None = None) -> list[S]:
    """What ``task`` may see of ``items``: the one visibility rule for knowledge.

    The kind decides the boundary (the member's own tasks; the project's tasks; every
    task); an item's activation condition (domain, task pattern) narrows it; the
    member's engagement state narrows it further and can never add an item.
    """
    out = []
    for item in items:
        if not (live(item) and in_scope(item, task)):
            continue
        if item.project and item.project != task.project:  # a project activates any kind
            continue
        if item.domain and task.domain and item.domain != task.domain:
            continue
        if not pattern_matches(item.task_pattern, task.text):
            continue
        if state is not None:
            if item.domain and state.domain and item.domain != state.domain:
                continue
            if item.project and state.project and state.project != item.project:
                continue
        out.append(item)
    return out


_DYNAMIC = (
    (
        "issue or PR status",
        r"\b(?:issue|pr|pull request|merge request|mr|ticket)s?\b[^.\n]{0,40}?\b(?:is|was|are|"
        r"were|has been|have been|got|now|still)\s+(?:now\s+|still\s+)?(?:open|opened|closed|"
        r"merged|reopened|approved|pending|resolved|in review)\b",
    ),
    ("issue or PR status", r"#\d+\s+(?:is|was|has been|got)\s+(?:open|closed|merged|approved)\b"),
    (
        "task state",
        r"\b(?:task|ticket|execution|job)s?\b[^.\n]{0,40}?\b(?:is|was|are|now|still)\s+"
        r"(?:now\s+|still\s+)?(?:done|in progress|blocked|finished|running|pending|todo|stopped)\b",
    ),
    (
        "grant",
        r"\bgrants?\b[^.\n]{0,40}?\b(?:is|was|are|has been)\s+(?:active|expired|revoked|valid)\b"
        r"|\bgrants?\b[^.\n]{0,30}?\bexpires?\b",
    ),
)


def dynamic_flags(*texts: str) -> tuple[str, ...]:
    """Which live statuses the text states (dynamic facts are looked up, never remembered)."""
    found: list[str] = []
    joined = "\n".join(texts)
    for name, pattern in _DYNAMIC:
        if name not in found and re.search(pattern, joined, re.IGNORECASE):
            found.append(name)
    return tuple(found)


def parse_source(ref: str) -> tuple[str, int | None]:
    """``SESSION`` or ``SESSION:SEQ``; the message number must be a whole number."""
    session, sep, seq = ref.strip().rpartition(":") if ":" in ref else (ref.strip(), "", "")
    if not sep:
        return ref.strip(), None
    if not seq.isdigit():
        raise ValueError(f"source {ref!r}: after ':' give a message number")
    return session, int(seq)


def distinct_sessions(sources: Sequence[Source]) -> int:
    return len({s.session for s in sources})
