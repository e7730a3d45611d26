"""The screen the app shows when its store cannot be opened: what failed, and the way out."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Static


class StoreUnavailable(Screen[None]):
    """Replaces the app's screen: nothing can be shown or changed without the store."""

    DEFAULT_CSS = """
    StoreUnavailable { align: center middle; }
    StoreUnavailable > Vertical { width: 80%; max-width: 100; height: auto; padding: 1 2;
        border: round $error; }
    StoreUnavailable .reason { margin: 1 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("q,escape", "app.quit", "Quit", id="unavailable.quit", tooltip="Leave Viva"),
    ]

    def __init__(self, reason: str) -> None:
        super().__init__()
        self.reason = reason

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static(Content.styled("Viva cannot open its store", "bold"))
            yield Static(Content(self.reason), classes="reason", id="reason")
            yield Static(
                Content(
                    "Nothing was changed. `viva status` shows where the store is; "
                    "VIVA_HOME or VIVA_DB_URL choose another. Press q to quit."
                )
            )
