"""Pick one of a few labelled choices (e.g. which cited session to open)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from viva_tui.dialogs.base import Dialog


class ChoiceModal(Dialog[str | None]):
    """Dismisses with the chosen id, or None on Escape."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="choice.cancel", tooltip="Choose nothing"),
    ]

    def __init__(self, title: str, choices: Sequence[tuple[str, str]]) -> None:
        super().__init__(classes="dialog")
        self.title_text = title
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box"):
            yield Static(Content.styled(self.title_text, "bold"), classes="dialog-title")
            yield OptionList(*[Option(Content(label), id=key) for key, label in self.choices])
            yield Static(
                Content.styled("enter opens · esc cancels", "$text-muted"), classes="dialog-hint"
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
