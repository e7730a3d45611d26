"""The knowledge pane's requests: load, and every decision behind a reason and a confirmation."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import work

from viva_tui.messages import KnowledgeDecided, KnowledgeLoaded
from viva_tui.screens.base import ServiceScreen, once_open
from viva_tui.widgets.sidebar import Sidebar

if TYPE_CHECKING:
    from viva_tui.widgets.knowledge_pane import KnowledgePane

QUESTIONS = {
    "admit": ("Admit this item? It reaches the tasks its kind allows.", "Admit"),
    "decline": ("Decline this candidate?", "Decline"),
    "retract": ("Retract this item? Its history is kept.", "Retract"),
}


class KnowledgeFlow(ServiceScreen):
    """Feeds :class:`KnowledgePane`; no decision is stored without a confirmation."""

    def knowledge_pane(self) -> KnowledgePane:
        return cast("KnowledgePane", self.pane("knowledge"))

    def on_knowledge_pane_load_requested(self, message: KnowledgePane.LoadRequested) -> None:
        self.load_knowledge()

    def load_knowledge(self) -> None:
        self.read_knowledge()

    @once_open
    @work(thread=True, group="knowledge:load", exclusive=True, exit_on_error=False)
    def read_knowledge(self) -> None:
        self.answer(KnowledgeLoaded(self.backend.knowledge()))

    def on_knowledge_loaded(self, message: KnowledgeLoaded) -> None:
        if self.maybe_pane("knowledge") is not None:
            self.knowledge_pane().show_data(message.data)
        waiting = len(message.data.candidates)
        self.query_one(Sidebar).set_badge("knowledge", str(waiting) if waiting else "")

    def on_knowledge_pane_decision_requested(
        self, message: KnowledgePane.DecisionRequested
    ) -> None:
        from viva_tui.dialogs.reason import TextModal

        needs_reason = message.action != "admit" or message.flagged
        if not needs_reason:
            self._confirm_knowledge(message, "")
            return
        why = (
            "Why admit it although it states a live status?"
            if message.action == "admit"
            else (f"Why {message.action} it?")
        )
        self.app.push_screen(
            TextModal(why, message.summary, required=True, ok="Continue"),
            lambda text: self._confirm_knowledge(message, text) if text else None,
        )

    def _confirm_knowledge(self, message: KnowledgePane.DecisionRequested, text: str) -> None:
        from viva_tui.dialogs.confirm import ConfirmModal

        question, yes = QUESTIONS[message.action]
        detail = f"Reason: {text}\n\n{message.summary}" if text else message.summary

        def answered(yes_: bool | None) -> None:
            if yes_:
                self.store_knowledge_decision(message.action, message.item_id, text)

        self.app.push_screen(ConfirmModal(question, detail, yes), answered)

    @once_open
    @work(thread=True, group="knowledge:decide", exclusive=False, exit_on_error=False)
    def store_knowledge_decision(self, action: str, item_id: str, text: str) -> None:
        self.answer(KnowledgeDecided(self.backend.decide_knowledge(action, item_id, text)))

    def on_knowledge_decided(self, message: KnowledgeDecided) -> None:
        self.notify(message.summary, title="Knowledge")
        self.load_knowledge()

    def on_knowledge_pane_evidence_requested(
        self, message: KnowledgePane.EvidenceRequested
    ) -> None:
        self.open_cited(message.refs)
