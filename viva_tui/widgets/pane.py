"""What every pane shares: a title, help text, and the requests any pane may post."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar, TypeVar

from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget

W = TypeVar("W", bound=Widget)


def titled(widget: W, title: str) -> W:
    """``widget`` in a titled border that lights up while it has the focus (``.panel``)."""
    widget.border_title = title
    widget.add_class("panel")
    return widget


class Pane(Vertical):
    """A pane of the main screen. Passive: it shows records and asks the screen for what
    it needs with the requests nested in its class.

    ``HELP_TEXT`` (Markdown) is what F1 shows for it, above its keys.
    """

    PANE_ID: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""
    HELP_TEXT: ClassVar[str] = ""

    @dataclass(eq=False, repr=False)
    class TranscriptRequested(Message):
        """Open a session's whole transcript in a dialog."""

        session_id: str

    @dataclass(eq=False, repr=False)
    class ExportRequested(Message):
        """Write a session to a file (the path is shown)."""

        session_id: str

    class MemberPickRequested(Message):
        """Ask the owner whose timeline and skills to show."""

    def __init__(self) -> None:
        super().__init__(id=self.PANE_ID, classes="pane")
        self.requested = False

    def help_text(self) -> str:
        """What F1 shows for this pane (a pane whose help quotes its data overrides it)."""
        return self.HELP_TEXT

    def activate(self) -> None:
        """Called when the pane is shown; the first time it asks for its data."""
        self.ensure_requested()
        self.focus_main()

    def ensure_requested(self) -> None:
        """Ask for the pane's data unless it already did (posted before the pane is drawn)."""
        if not self.requested:
            self.requested = True
            self.request_data()

    def ask(self, request: Message) -> None:
        """Post a request straight to the screen, which answers it.

        Not bubbled: each hop through the containers waits its turn in the event loop, so a
        page request reached the screen only once the pane had been drawn (90–500 ms after
        the key, against 25–60 ms), and the store no longer worked while it was laid out.
        """
        self.screen.post_message(request)

    def request_data(self) -> None:
        """Post the requests that fill the pane (override)."""

    def focus_main(self) -> None:
        """Focus the pane's main widget (override)."""
        focusable = [w for w in self.query("*") if w.focusable and w.display]
        if focusable:
            focusable[0].focus()
