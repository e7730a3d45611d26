"""What every pane shares: a title, help text, and an honest "unavailable" state."""

from __future__ import annotations

from typing import ClassVar

from textual.containers import Vertical
from textual.message import Message
from textual.widget import Widget
from textual.widgets import Static


class Pane(Vertical):
    """A pane of the main screen. Passive: it shows records and posts requests.

    ``HELP_TEXT`` (Markdown) is what F1 shows for it, above its keys.
    """

    PANE_ID: ClassVar[str] = ""
    TITLE: ClassVar[str] = ""
    HELP_TEXT: ClassVar[str] = ""

    def __init__(self) -> None:
        super().__init__(id=self.PANE_ID, classes="pane")
        self.requested = False

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
        """Post a request straight to the screen, which answers it (no bubbling hops)."""
        self.screen.post_message(request)

    def request_data(self) -> None:
        """Post the requests that fill the pane (override)."""

    def focus_main(self) -> None:
        """Focus the pane's main widget (override)."""
        focusable = [w for w in self.query("*") if w.focusable and w.display]
        if focusable:
            focusable[0].focus()

    def show_unavailable(self, message: str, into: Widget | None = None) -> None:
        """Say plainly that this part of the pane cannot work in this build."""
        target = into or self
        for old in target.query(".unavailable"):
            old.remove()
        target.mount(Static(message, classes="unavailable"), before=0)
