"""A read-only Markdown document: a skill's body, the weekly report."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical, VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static

from viva_tui.dialogs.base import Dialog


class DocumentDialog(Dialog[None]):
    """Show ``markdown`` under ``title`` until Escape."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close", id="document.close", tooltip="Back"),
    ]

    HINT = "esc closes"

    def __init__(self, title: str, markdown: str) -> None:
        super().__init__(classes="dialog")
        self.title_text = title
        self.markdown = markdown

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box tall"):
            yield Static(Content.styled(self.title_text, "bold"), classes="dialog-title")
            with VerticalScroll():
                yield Markdown(self.markdown)
            yield Static(Content.styled(self.HINT, "$text-muted"), classes="dialog-hint")

    def show(self, title: str, markdown: str) -> None:
        """Replace what the dialog shows."""
        self.title_text, self.markdown = title, markdown
        self.query_one(".dialog-title", Static).update(Content.styled(title, "bold"))
        self.query_one(Markdown).update(markdown)
        self.query_one(VerticalScroll).scroll_home(animate=False)

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
