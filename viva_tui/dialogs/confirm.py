"""Yes-or-no before anything the owner decides is stored."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.widgets import Button, Static

from viva_tui.dialogs.base import Dialog


class ConfirmModal(Dialog[bool]):
    """Ask ``question``; dismisses with True only on an explicit yes."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,n", "no", "No", id="confirm.no", tooltip="Do not do it"),
        Binding("y", "yes", "Yes", id="confirm.yes", tooltip="Do it"),
    ]

    def __init__(self, question: str, detail: str = "", yes: str = "Yes") -> None:
        super().__init__(classes="dialog")
        self.question = question
        self.detail = detail
        self.yes = yes

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Content.styled(self.question, "bold"), classes="dialog-title")
            if self.detail:
                yield Static(Content(self.detail), classes="dialog-detail")
            with Horizontal(classes="dialog-buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="primary")
                yield Button("Cancel (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_yes(self) -> None:
        self.dismiss(True)

    def action_no(self) -> None:
        self.dismiss(False)
