"""Text the owner must give: a rejection's reason, or an edited wording."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static, TextArea

from viva_tui.dialogs.base import Dialog


class TextModal(Dialog[str | None]):
    """Ask for text; ``required`` refuses an empty answer. Dismisses with None on cancel."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="text.cancel", tooltip="Leave without saving"),
        Binding("ctrl+s", "submit", "Done", id="text.submit", tooltip="Use this text"),
    ]

    def __init__(
        self, title: str, detail: str = "", initial: str = "", *, required: bool, ok: str = "Done"
    ) -> None:
        super().__init__(classes="dialog")
        self.title_text = title
        self.detail = detail
        self.initial = initial
        self.required = required
        self.ok = ok

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box wide"):
            yield Static(Content.styled(self.title_text, "bold"), classes="dialog-title")
            if self.detail:
                yield Static(Content(self.detail), classes="dialog-detail")
            area = TextArea(self.initial, id="text", soft_wrap=True)
            area.cursor_blink = False  # a steady cursor (and steady snapshots)
            yield area
            yield Static("", id="text-problem", classes="problem")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.ok} (ctrl+s)", id="ok", variant="primary")
                yield Button("Cancel (esc)", id="cancel")

    def on_mount(self) -> None:
        area = self.query_one(TextArea)
        area.focus()
        area.move_cursor(area.document.end)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "ok":
            self.action_submit()
        else:
            self.action_cancel()

    def action_submit(self) -> None:
        text = self.query_one(TextArea).text.strip()
        if self.required and not text:
            self.query_one("#text-problem", Static).update("A reason is required.")
            return
        self.dismiss(text)

    def action_cancel(self) -> None:
        self.dismiss(None)
