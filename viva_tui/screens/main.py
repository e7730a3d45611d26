"""The one screen: sidebar, five panes, the import bar — and the flows that feed them.

Panes post requests; a flow (a mixin beside this file) runs a named thread worker
that calls the backend and posts a past-tense message back, whose records it hands
to the pane. Failures of any worker reach :meth:`ServiceScreen.on_worker_state_changed`.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, Footer

from viva_store.harness import registry
from viva_store.records import MemberRecord
from viva_tui import keys
from viva_tui.dialogs.document import DocumentDialog
from viva_tui.dialogs.help import HelpDialog
from viva_tui.dialogs.picker import MemberPicker
from viva_tui.dialogs.transcript import TranscriptDialog
from viva_tui.messages import (
    DocumentLoaded,
    MemberChosen,
    MembersLoaded,
    PageLoaded,
    PageRequested,
    PreviewLoaded,
    TranscriptLoaded,
    TranscriptRequested,
)
from viva_tui.screens.backend import TRANSCRIPT_MESSAGES, Backend, MemberRow
from viva_tui.screens.import_flow import ImportFlow
from viva_tui.screens.principles_flow import PrinciplesFlow
from viva_tui.screens.skills_flow import SkillsFlow
from viva_tui.screens.timeline_flow import TimelineFlow
from viva_tui.screens.triage_flow import TriageFlow
from viva_tui.widgets.import_bar import ImportBar
from viva_tui.widgets.members_pane import MembersPane
from viva_tui.widgets.pane import Pane
from viva_tui.widgets.principles_pane import PrinciplesPane
from viva_tui.widgets.sidebar import PANES, Sidebar
from viva_tui.widgets.skills_pane import SkillsPane
from viva_tui.widgets.timeline_pane import TimelinePane
from viva_tui.widgets.triage_pane import TriagePane


class MainScreen(TriageFlow, TimelineFlow, SkillsFlow, PrinciplesFlow, ImportFlow):
    """Sidebar + panes switched with 1–5; every store call runs in a worker."""

    BINDINGS = keys.SCREEN

    def __init__(self, backend: Backend, member: str | None = None) -> None:
        super().__init__(backend, member)
        self.undo_stack = []

    def compose(self) -> ComposeResult:
        keymap = getattr(self.app, "keymap", {})
        pane_keys = {
            b.id.removeprefix("viva.pane."): keymap.get(b.id, b.key).split(",")[0]
            for b in keys.SCREEN
            if b.id and b.id.startswith("viva.pane.")
        }
        harnesses = registry.names()
        with Horizontal(id="frame"):
            yield Sidebar(pane_keys)
            with Vertical(id="main"):
                with ContentSwitcher(initial="members", id="panes"):
                    yield MembersPane()
                    yield TriagePane(harnesses)
                    yield TimelinePane(harnesses)
                    yield SkillsPane()
                    yield PrinciplesPane()
                yield ImportBar()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Sidebar).set_active("members")
        self.query_one(MembersPane).activate()
        self.run_service("members:list", self.backend.members, self._roster)

    # Panes -------------------------------------------------------------------------------

    def current_pane(self) -> Pane:
        return self.pane(self.query_one(ContentSwitcher).current or "members")

    def action_show_pane(self, pane_id: str) -> None:
        if pane_id not in dict(PANES):
            return
        self.query_one(ContentSwitcher).current = pane_id
        self.query_one(Sidebar).set_active(pane_id)
        self.pane(pane_id).activate()

    def on_sidebar_pane_clicked(self, event: Sidebar.PaneClicked) -> None:
        self.action_show_pane(event.pane)

    def action_help(self) -> None:
        pane = self.current_pane()
        keymap = getattr(self.app, "keymap", {})
        self.app.push_screen(
            HelpDialog(pane.TITLE, pane.HELP_TEXT, pane.BINDINGS, keys.SCREEN, keymap)  # type: ignore[arg-type]
        )

    def on_page_requested(self, message: PageRequested) -> None:
        if message.pane == "triage":
            self.load_triage_page(message.query, message.offset)
        elif message.pane == "timeline" and message.member:
            self.load_timeline_page(message.member, message.query, message.offset)

    def on_page_loaded(self, message: PageLoaded) -> None:
        if message.pane == "triage":
            self.triage_pane().show_page(message.page)
        elif message.pane == "timeline" and message.member:
            self.timeline_pane().show_page(message.member, message.page)

    def on_preview_loaded(self, message: PreviewLoaded) -> None:
        if message.pane == "triage":
            self.triage_pane().show_preview(message.transcript)
        elif message.pane == "timeline":
            self.timeline_pane().show_preview(message.transcript)

    # Members -----------------------------------------------------------------------------

    def _roster(self, members: list[MemberRecord]) -> MembersLoaded:
        self.members = members
        return MembersLoaded([MemberRow(m, None, None, None, None) for m in members], False)

    def on_members_loaded(self, message: MembersLoaded) -> None:
        self.query_one(MembersPane).show_members(message.rows, message.counted)
        if message.counted:
            return
        names = [r.member.name for r in message.rows]
        if names:
            keep = self.member if self.member in names else names[0]
            self.member = None
            self.choose_member(keep, announce=False)
        self.triage_roster()
        self.count_members()

    def count_members(self) -> None:
        """Fill the roster's counts in the background."""
        self.run_service(
            "members:counts",
            lambda: self.backend.member_rows(self.members),
            lambda rows: MembersLoaded(rows, counted=True),
        )

    def on_member_chosen(self, message: MemberChosen) -> None:
        if message.name:
            self.choose_member(message.name)
            return

        def picked(name: str | None) -> None:
            if name:
                self.choose_member(name)

        self.app.push_screen(
            MemberPicker("Whose timeline and skills?", self.members, {}, allow_nobody=False),
            picked,
        )

    def choose_member(self, name: str, *, announce: bool = True) -> None:
        """Make ``name`` the member the Timeline and Skills panes show."""
        if name == self.member:
            return
        self.member = name
        self.query_one(Sidebar).set_member(name)
        self.timeline_pane().set_member(name)
        self.skills_pane().set_member(name)
        if announce:
            remember = getattr(self.app, "remember", None)
            if remember is not None:
                remember(member=name)
            self.notify(f"Timeline and Skills now show {name}.")

    # Transcripts, documents, changes ------------------------------------------------------

    def on_transcript_requested(self, message: TranscriptRequested) -> None:
        sid = message.session_id
        self.run_service(
            "transcript:open",
            lambda: self.backend.transcript(sid, TRANSCRIPT_MESSAGES),
            TranscriptLoaded,
        )

    def on_transcript_loaded(self, message: TranscriptLoaded) -> None:
        self.app.push_screen(TranscriptDialog(message.transcript))

    def action_weekly_report(self) -> None:
        self.run_service(
            "report:weekly",
            self.backend.weekly_report,
            lambda md: DocumentLoaded("Weekly report", md),
        )

    def on_document_loaded(self, message: DocumentLoaded) -> None:
        self.app.push_screen(DocumentDialog(message.title, message.markdown))

    def import_changed(self) -> None:
        self.triage_pane().reload()
        self.sessions_changed()

    def sessions_changed(self) -> None:
        self.count_members()
        timeline = self.timeline_pane()
        if timeline.requested and timeline.member:
            timeline.request_data()

    def principles_changed(self) -> None:
        self.count_members()

    def skills_changed(self) -> None:
        self.count_members()
