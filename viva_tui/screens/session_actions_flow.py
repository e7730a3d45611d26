"""The transcript dialog's requests that need the store: export, resume, the pager, and
opening a linked session."""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING

from textual import on, work

from viva_tui.messages import ResumeCommandLoaded, SessionExported, TranscriptTextLoaded
from viva_tui.screens.base import ServiceScreen, once_open
from viva_tui.widgets.pane import Pane

if TYPE_CHECKING:
    from viva_tui.dialogs.base import Dialog
    from viva_tui.dialogs.transcript import TranscriptDialog


class SessionActionsFlow(ServiceScreen):
    """Answers :class:`TranscriptDialog.Requested` (handled by name: the dialog's module
    is imported only when a transcript is first opened)."""

    @on(Pane.ExportRequested)
    def _export_requested(self, message: Pane.ExportRequested) -> None:
        self.export_session(message.session_id)

    def on_transcript_dialog_requested(self, message: TranscriptDialog.Requested) -> None:
        if message.action == "open":
            self.open_transcript(message.session_id)
        elif message.action == "export":
            self.export_session(message.session_id)
        elif message.action in ("resume", "copy_resume"):
            self.load_resume(message.session_id, message.action == "copy_resume")
        elif message.action == "pager":
            self.load_transcript_text(message.session_id)

    @once_open
    @work(thread=True, group="transcript:export", exit_on_error=False)
    def export_session(self, session_id: str) -> None:
        self.answer(SessionExported(self.backend.session_actions().export(session_id)))

    def on_session_exported(self, message: SessionExported) -> None:
        self.app.notify(f"exported to {message.exported.path}", title="Export", timeout=8)

    @once_open
    @work(thread=True, group="transcript:resume", exclusive=True, exit_on_error=False)
    def load_resume(self, session_id: str, copy: bool) -> None:
        self.answer(ResumeCommandLoaded(self.backend.session_actions().resume(session_id), copy))

    def on_resume_command_loaded(self, message: ResumeCommandLoaded) -> None:
        from viva_tui.dialogs.confirm import ConfirmModal

        command = message.command
        if message.copy:
            self.app.copy_to_clipboard(command.shell)
            self.app.notify(f"copied: {command.shell}")
            return
        if not command.cwd_exists:
            self.app.notify(f"{command.cwd} is gone: cannot resume there", severity="error")
            return

        def answered(yes: bool | None) -> None:
            if yes:
                self._run_resume(command.argv, command.cwd)

        question = f"Resume this session in {command.harness}?"
        self.app.push_screen(ConfirmModal(question, command.shell, yes="Resume"), answered)

    def _run_resume(self, argv: tuple[str, ...], cwd: str) -> None:
        from viva_tui.dialogs.transcript import hand_over

        status = hand_over(self._top_dialog(), list(argv), cwd=cwd)
        if status is not None:
            self.app.notify(f"{argv[0]} exited with status {status}", timeout=6)

    @once_open
    @work(thread=True, group="transcript:pager", exit_on_error=False)
    def load_transcript_text(self, session_id: str) -> None:
        self.answer(TranscriptTextLoaded(self.backend.session_actions().text(session_id)))

    def on_transcript_text_loaded(self, message: TranscriptTextLoaded) -> None:
        from viva_tui.dialogs.transcript import hand_over

        pager = shlex.split(os.environ.get("PAGER") or "less -R")
        hand_over(self._top_dialog(), pager, stdin=message.text)

    def _top_dialog(self) -> Dialog[None]:
        from viva_tui.dialogs.base import Dialog

        top = self.app.screen
        return top if isinstance(top, Dialog) else Dialog()
