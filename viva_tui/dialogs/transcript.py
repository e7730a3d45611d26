"""A whole transcript in a dialog (opened from Triage, Timeline and Principles)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import Static

from viva_tui import keys
from viva_tui.dialogs.base import Dialog
from viva_tui.views import Transcript
from viva_tui.widgets.transcript import TranscriptView


class TranscriptDialog(Dialog[None]):
    """Read one session; z folds tool calls, esc closes."""

    BINDINGS: ClassVar[list[BindingType]] = [*keys.TRANSCRIPT]

    def __init__(self, transcript: Transcript, at_seq: int | None = None) -> None:
        super().__init__(classes="dialog")
        self.transcript = transcript
        self.at_seq = at_seq

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box full"):
            yield TranscriptView(id="transcript-full")
            yield Static(
                Content.styled("z folds/unfolds tool calls · esc closes", "$text-muted"),
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        view = self.query_one(TranscriptView)
        view.show(self.transcript, at_seq=self.at_seq)
        view.focus()

    def action_fold(self) -> None:
        self.query_one(TranscriptView).toggle_fold()

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
