"""The import's progress: hidden until an import has something to show (toolong's way)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar

from viva_tui.widgets.format import clip


class ImportBar(Horizontal):
    """A labelled determinate progress bar; never on screen while idle."""

    DEFAULT_CSS = """
    ImportBar { height: 1; padding: 0 1; background: $panel; }
    ImportBar #import-label { width: 1fr; }
    ImportBar #import-progress { width: auto; }
    """

    def __init__(self) -> None:
        super().__init__(id="import-bar")
        self.display = False

    def compose(self) -> ComposeResult:
        yield Label("Importing", id="import-label")
        yield ProgressBar(total=1, show_eta=False, id="import-progress")

    def advance(self, done: int, total: int, label: str) -> None:
        """Show ``done`` of ``total`` files (the bar appears with the first count)."""
        bar = self.query_one(ProgressBar)
        bar.update(total=max(total, 1), progress=done)
        self.query_one(Label).update(f"Importing {done}/{total} {clip(label, 50)}")
        self.display = total > 0

    def finish(self) -> None:
        """Hide the bar again."""
        self.display = False
        self.query_one(ProgressBar).update(total=1, progress=0)
