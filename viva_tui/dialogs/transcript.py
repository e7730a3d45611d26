"""A whole transcript in a dialog (opened from Triage, Timeline and Principles).

Besides reading it: find (ctrl+f, n / N), follow its parent, sub-agents and copies
(l, Enter), export it (e), resume it in its harness (r, after a yes) or copy that command
(c), copy its id (y) or a message (m), and read it in ``$PAGER`` (p) or a message in
``$EDITOR`` (o). What needs the store is asked of the main screen under the dialog.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from viva_tui import keys
from viva_tui.dialogs.base import Dialog
from viva_tui.views import Transcript
from viva_tui.widgets.transcript import TranscriptView, render_message

HINT = (
    "ctrl+f find · n/N next/previous · l linked · e export · r resume · c copy resume · "
    "y copy id · m copy message · p pager · o editor · z tool calls · esc closes"
)


def link_rows(t: Transcript) -> list[tuple[str, str]]:
    """``(session id, label)`` for each session linked to ``t``'s."""
    related = t.related
    if related is None:
        return []
    label = {"copy_of": "copy of", "continues": "continues", "continuation": "continues"}
    rows: list[tuple[str, str]] = []
    if related.parent is not None:
        rows.append((related.parent.id, f"sub-agent of {related.parent.id}"))
    if related.original is not None:
        word = label.get(t.session.relation or "", "original")
        rows.append((related.original.id, f"{word} {related.original.id}"))
    rows += [(s.id, f"sub-agent {s.id}") for s in related.subagents]
    rows += [(s.id, f"{s.relation or 'child'} {s.id}") for s in related.children]
    linked = {
        s.id: s
        for s in (related.parent, related.original, *related.subagents, *related.children)
        if s is not None
    }
    return [(sid, f"{text} · {linked[sid].title or '(untitled)'}") for sid, text in rows]


def run_in_terminal(argv: list[str], cwd: str | None = None, stdin: str | None = None) -> int:
    """Run ``argv`` on the terminal the app handed over; its exit status."""
    done = subprocess.run(argv, cwd=cwd, input=stdin, text=stdin is not None, check=False)
    return done.returncode


class TranscriptDialog(Dialog[None]):
    """Read one session and act on it; esc closes."""

    BINDINGS: ClassVar[list[BindingType]] = [*keys.TRANSCRIPT]

    @dataclass(eq=False, repr=False)
    class Requested(Message):
        """Something the store must do for the session: ``export``, ``resume``,
        ``copy_resume``, ``pager`` or ``open`` (another session: a link followed)."""

        action: str
        session_id: str

    def __init__(self, transcript: Transcript, at_seq: int | None = None) -> None:
        super().__init__(classes="dialog")
        self.transcript = transcript
        self.at_seq = at_seq

    def compose(self) -> ComposeResult:
        links = link_rows(self.transcript)
        with Vertical(classes="dialog-box full"):
            if links:
                yield OptionList(*(Option(text, id=sid) for sid, text in links), id="links")
            yield TranscriptView(id="transcript-full")
            find = Input(placeholder="find in this transcript (Enter: next)", id="find")
            find.display = False
            yield find
            yield Static(Content.styled(HINT, "$text-muted"), classes="dialog-hint")

    def on_mount(self) -> None:
        view = self.query_one(TranscriptView)
        view.show(self.transcript, at_seq=self.at_seq)
        view.focus()

    @property
    def view(self) -> TranscriptView:
        return self.query_one(TranscriptView)

    def _ask(self, action: str, session_id: str | None = None) -> None:
        # The main screen under the dialogs loads it (dialogs do not call the store).
        target = session_id or self.transcript.session.id
        self.app.screen_stack[0].post_message(self.Requested(action, target))

    def action_fold(self) -> None:
        self.view.toggle_fold()

    # Find ------------------------------------------------------------------------------

    def action_find(self) -> None:
        find = self.query_one("#find", Input)
        find.display = True
        find.focus()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._find(event.value, 1)

    def action_find_next(self, step: int) -> None:
        needle = self.query_one("#find", Input).value
        if needle:
            self._find(needle, step)
        else:
            self.action_find()

    def _find(self, needle: str, step: int) -> None:
        found = self.view.find(needle, step)
        if found is None and needle.strip():
            self.notify(f"{needle.strip()!r} is not in this transcript", severity="warning")
        elif found is not None:
            self.notify(f"message {found + 1} of {len(self.transcript.messages)}", timeout=2)

    # Links -----------------------------------------------------------------------------

    def action_links(self) -> None:
        found = self.query("#links")
        if found:
            found.first(OptionList).focus()
        else:
            self.notify("no parent, sub-agent or copy of this session was recovered")

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self._ask("open", event.option.id)

    # Acting on the session ---------------------------------------------------------------

    def action_export(self) -> None:
        self._ask("export")

    def action_resume(self) -> None:
        self._ask("resume")

    def action_copy_resume(self) -> None:
        self._ask("copy_resume")

    def action_pager(self) -> None:
        self._ask("pager")

    def action_copy_id(self) -> None:
        self.app.copy_to_clipboard(self.transcript.session.id)
        self.notify(f"copied {self.transcript.session.id}")

    def _message_text(self) -> str | None:
        msg = self.view.current_message()
        return None if msg is None else render_message(msg, folded=False).plain

    def action_copy_message(self) -> None:
        text = self._message_text()
        if text is None:
            self.notify("no message to copy", severity="warning")
            return
        self.app.copy_to_clipboard(text)
        self.notify(f"copied the message ({len(text):,} characters)")

    def action_editor(self) -> None:
        text = self._message_text()
        if text is None:
            self.notify("no message to open", severity="warning")
            return
        editor = shlex.split(os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi")
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / f"{self.transcript.session.id}-message.txt"
            path.write_text(text, "utf-8")
            hand_over(self, [*editor, str(path)])

    async def action_dismiss(self, result: None = None) -> None:
        find = self.query_one("#find", Input)
        if find.has_focus:
            find.display = False
            self.view.focus()
            return
        self.dismiss(result)


def hand_over(dialog: Dialog[None], argv: list[str], cwd: str | None = None,
              stdin: str | None = None) -> int | None:  # fmt: skip
    """Give the terminal to ``argv`` (the app suspended meanwhile); its exit status, or
    None when it could not run (said in a notification)."""
    from textual.app import SuspendNotSupported

    try:
        with dialog.app.suspend():
            return run_in_terminal(argv, cwd, stdin)
    except SuspendNotSupported:
        dialog.notify("this terminal cannot be handed over", severity="error")
    except OSError as exc:
        dialog.notify(f"cannot run {argv[0]}: {exc.strerror or exc}", severity="error")
    return None
