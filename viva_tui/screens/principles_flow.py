"""The principles pane's requests: load, and every decision behind a confirmation."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import work

from viva_tui.messages import PrincipleDecided, PrinciplesLoaded
from viva_tui.screens.base import ServiceScreen, once_open
from viva_tui.widgets.sidebar import Sidebar

if TYPE_CHECKING:
    from viva_tui.widgets.principles_pane import PrinciplesPane

QUESTIONS = {
    "approve": ("Approve this principle for {member}?", "Approve"),
    "edit": ("Approve your wording for {member}?", "Approve"),
    "reject": ("Reject this candidate for {member}?", "Reject"),
    "defer": ("Defer this candidate for {member}? It stays in the queue.", "Defer"),
    "rollback": ("Make version {version} of {member}'s principle active again?", "Roll back"),
}


class PrinciplesFlow(ServiceScreen):
    """Feeds :class:`PrinciplesPane`; no decision is stored without a confirmation. (The
    pane's requests are handled by name: its module is imported when it is first built.)"""

    def principles_pane(self) -> PrinciplesPane:
        return cast("PrinciplesPane", self.pane("principles"))

    def on_principles_pane_load_requested(self, message: PrinciplesPane.LoadRequested) -> None:
        self.load_principles()

    def load_principles(self) -> None:
        """The queue, the history and what is in force (the sidebar counts the queue)."""
        self.read_principles(tuple(m.name for m in self.members))

    @once_open
    @work(thread=True, group="principles:load", exclusive=True, exit_on_error=False)
    def read_principles(self, members: tuple[str, ...]) -> None:
        self.answer(PrinciplesLoaded(self.backend.principles(members)))

    def on_principles_loaded(self, message: PrinciplesLoaded) -> None:
        if self.maybe_pane("principles") is not None:
            self.principles_pane().show_data(message.data)
        waiting = len(message.data.open)
        self.query_one(Sidebar).set_badge("principles", str(waiting) if waiting else "")

    def on_principles_pane_decision_requested(
        self, message: PrinciplesPane.DecisionRequested
    ) -> None:
        from viva_tui.dialogs.reason import TextModal

        if message.action == "edit":
            self.app.push_screen(
                TextModal(
                    f"Edit the wording for {message.member}, then approve",
                    "Your wording is recorded as yours; the proposal stays in the history.",
                    message.text,
                    required=True,
                    ok="Continue",
                ),
                lambda text: self._confirm(message, text) if text else None,
            )
        elif message.action == "reject":
            self.app.push_screen(
                TextModal(
                    f"Why reject this candidate for {message.member}?",
                    message.text,
                    required=True,
                    ok="Continue",
                ),
                lambda reason: self._confirm(message, reason) if reason else None,
            )
        else:
            self._confirm(message, None)

    def _confirm(self, message: PrinciplesPane.DecisionRequested, text: str | None) -> None:
        from viva_tui.dialogs.confirm import ConfirmModal

        question, yes = QUESTIONS[message.action]
        detail = text if message.action in ("edit", "reject") else message.text
        if message.action == "reject":
            detail = f"Reason: {text}\n\n{message.text}"
        action = "approve" if message.action == "edit" else message.action

        def answered(yes_: bool | None) -> None:
            if yes_:
                self.store_decision(action, message.ref, text, message.version)

        self.app.push_screen(
            ConfirmModal(
                question.format(member=message.member, version=message.version), detail or "", yes
            ),
            answered,
        )

    @once_open
    @work(thread=True, group="principles:decide", exclusive=False, exit_on_error=False)
    def store_decision(self, action: str, ref: str, text: str | None, version: int) -> None:
        self.answer(PrincipleDecided(self.backend.decide(action, ref, text, version)))

    def on_principle_decided(self, message: PrincipleDecided) -> None:
        self.notify(message.summary, title="Principles")
        self.load_principles()
        self.principles_changed()

    def principles_changed(self) -> None:
        """A decision changed what is in force (override in the main screen)."""

    def on_principles_pane_evidence_requested(
        self, message: PrinciplesPane.EvidenceRequested
    ) -> None:
        self.open_cited(message.refs)
