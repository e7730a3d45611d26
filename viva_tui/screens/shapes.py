"""The light shapes the panes, messages and flows share (no store imports here).

Keeping these apart from :mod:`viva_tui.screens.backend` lets the app paint its first
screen before SQLAlchemy and the services are imported: the backend is loaded in a
worker after the first frame (harlequin connects to its database the same way).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from datetime import datetime
from types import ModuleType
from typing import TYPE_CHECKING, Any

from viva_store.errors import VivaError

if TYPE_CHECKING:
    from viva_store.records import ExecutionRecord, MemberRecord, MessageRecord, SessionRecord
    from viva_store.sessions.service import SessionFilter

PREVIEW_MESSAGES = 120
TRIAGE_PAGE = 100
"""Sessions per triage page (more load as the cursor nears the end)."""
TIMELINE_PAGE = 200
TRANSCRIPT_MESSAGES = 2000


class Unavailable(VivaError):
    """A service this pane needs is not in this build yet."""


def optional(module: str, what: str) -> ModuleType:
    """Import ``viva_store.<module>`` or raise :class:`Unavailable` naming ``what``."""
    try:
        return importlib.import_module(f"viva_store.{module}")
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("viva_store"):
            raise Unavailable(f"{what}: not in this build yet") from exc
        raise


@dataclass(frozen=True, slots=True)
class Query:
    """What a list of sessions is narrowed by (the triage and timeline filters)."""

    harness: str | None = None
    project: str | None = None
    text: str | None = None

    def session_filter(self, **kw: Any) -> SessionFilter:
        from viva_store.sessions.service import SessionFilter

        return SessionFilter(
            harness=self.harness or None,
            project=self.project or None,
            text=self.text or None,
            **kw,
        )


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


@dataclass(frozen=True, slots=True)
class MemberRow:
    """A member with what the roster counts (None: not countable in this build)."""

    member: MemberRecord
    sessions: int | None
    last_active: datetime | None
    active_skills: int | None
    active_principles: int | None
    executions: tuple[ExecutionRecord, ...] = ()
    launch_command: str = ""
