"""The one screen: sidebar, five panes, the import bar — and the flows that feed them.

Panes post requests; a flow (a mixin beside this file) runs a named thread worker
that calls the backend and posts a past-tense message back, whose records it hands
to the pane. Failures of any worker reach :meth:`ServiceScreen.on_worker_state_changed`.
Only the Members pane is built at start; the others are built (and their modules
imported) the first time they are shown, so the first frame comes quickly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar, cast

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, Footer

from viva_tui import keys
from viva_tui.messages import (
    DocumentLoaded,
    MemberChosen,
    MembersLoaded,
    PageLoaded,
    PageRequested,
    PreviewLoaded,
    ReportLoaded,
    ReportRequested,
    TranscriptLoaded,
    TranscriptRequested,
)
from viva_tui.screens.import_flow import ImportFlow
from viva_tui.screens.principles_flow import PrinciplesFlow
from viva_tui.screens.shapes import TRANSCRIPT_MESSAGES, MemberRow
from viva_tui.screens.skills_flow import SkillsFlow
from viva_tui.screens.timeline_flow import TimelineFlow
from viva_tui.screens.triage_flow import TriageFlow
from viva_tui.widgets.members_pane import MembersPane
from viva_tui.widgets.pane import Pane
from viva_tui.widgets.sidebar import PANES, Sidebar

if TYPE_CHECKING:
    from viva_store.records import MemberRecord
    from viva_tui.screens.backend import Backend


def make_pane(pane_id: str) -> Pane:
    """Build a pane (importing its module only now)."""
    if pane_id == "triage":
        from viva_tui.widgets.triage_pane import TriagePane

        return TriagePane()
    if pane_id == "timeline":
        from viva_tui.widgets.timeline_pane import TimelinePane

        return TimelinePane()
    if pane_id == "skills":
        from viva_tui.widgets.skills_pane import SkillsPane

        return SkillsPane()
    if pane_id == "principles":
        from viva_tui.widgets.principles_pane import PrinciplesPane

        return PrinciplesPane()
    return MembersPane()


class MainScreen(TriageFlow, TimelineFlow, SkillsFlow, PrinciplesFlow, ImportFlow):
    """Sidebar + panes switched with 1–5; every store call runs in a worker."""

    BINDINGS: ClassVar[list[BindingType]] = [*keys.SCREEN]

    def __init__(self, member: str | None = None) -> None:
        super().__init__(member)
        self.undo_stack = []
        self.member_keys = {}
        self.harnesses: list[str] = []
        self.panes_built = False

    def compose(self) -> ComposeResult:
        keymap = getattr(self.app, "keymap", {})
        pane_keys = {
            b.id.removeprefix("viva.pane."): keymap.get(b.id, b.key).split(",")[0]
            for b in keys.SCREEN
            if b.id and b.id.startswith("viva.pane.")
        }
        with Horizontal(id="frame"):
            yield Sidebar(pane_keys)
            with Vertical(id="main"), ContentSwitcher(initial="members", id="panes"):
                yield MembersPane()
        yield Footer()

    def on_mount(self) -> None:
        self.query_one(Sidebar).set_active("members")
        self.query_one(MembersPane).activate()
        self.run_service("members:list", lambda b: b.members(), self._roster)

    def store_opened(self, backend: Backend, harnesses: list[str] | None = None) -> None:
        """The app opened the store: fill the harness filters, run what waited."""
        self.harnesses = list(harnesses or [])
        for pane_id in ("triage", "timeline"):
            if (pane := self.maybe_pane(pane_id)) is not None:
                pane.set_harnesses(self.harnesses)  # type: ignore[attr-defined]
        super().store_opened(backend)

    # Panes -------------------------------------------------------------------------------

    def current_pane(self) -> Pane:
        return self.pane(self.query_one(ContentSwitcher).current or "members")

    async def action_show_pane(self, pane_id: str) -> None:
        if pane_id not in dict(PANES):
            return
        self.query_one(Sidebar).set_active(pane_id)
        pane = await self.build_pane(pane_id)
        pane.ensure_requested()  # the store works while the pane is laid out
        self.query_one(ContentSwitcher).current = pane_id
        pane.focus_main()

    async def build_pane(self, pane_id: str) -> Pane:
        """The pane, built (hidden) and given what the screen knows if it was not yet."""
        pane = self.maybe_pane(pane_id)
        if pane is not None:
            return pane
        pane = make_pane(pane_id)
        pane.display = False  # the switcher shows it when it becomes current
        await self.query_one(ContentSwitcher).mount(pane)
        if hasattr(pane, "set_harnesses") and self.harnesses:
            pane.set_harnesses(self.harnesses)
        if hasattr(pane, "set_members") and self.members:
            pane.set_members(self.members, self.member_keys)
        if hasattr(pane, "set_member") and self.member:
            pane.set_member(self.member)
        return pane

    async def _build_next(self) -> None:
        """After the first screen is filled, build the other panes one by one while idle,
        so switching to them later is quick."""
        for pane_id, _ in PANES:
            if self.maybe_pane(pane_id) is None:
                await self.build_pane(pane_id)
                self.set_timer(0.05, self._build_next)
                return
        self.panes_built = True

    def action_help(self) -> None:
        from viva_tui.dialogs.help import HelpDialog

        pane = self.current_pane()
        keymap = getattr(self.app, "keymap", {})
        own = [b for b in pane.BINDINGS if isinstance(b, Binding)]
        self.app.push_screen(HelpDialog(pane.TITLE, pane.HELP_TEXT, own, keys.SCREEN, keymap))

    def on_page_requested(self, message: PageRequested) -> None:
        if message.pane == "triage":
            self.load_triage_page(message.query, message.offset)
        elif message.pane == "timeline" and message.member:
            self.load_timeline_page(message.member, message.query, message.offset)

    def on_page_loaded(self, message: PageLoaded) -> None:
        if message.pane == "triage":
            self.triage_pane().show_page(message.page)
            self.triage_page_shown(message.page.offset)
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

    async def on_members_loaded(self, message: MembersLoaded) -> None:
        await self.query_one(MembersPane).show_members(message.rows, message.counted)
        if message.counted:
            return
        names = [r.member.name for r in message.rows]
        if names:
            keep = self.member if self.member in names else names[0]
            self.member = None
            self.choose_member(keep, announce=False)
        self.triage_roster()
        self.count_members()
        self.set_timer(0.2, self._build_next)
        self.load_principles()  # the sidebar shows how many candidates wait

    def count_members(self) -> None:
        """Fill the roster's counts in the background."""
        self.run_service(
            "members:counts",
            lambda b: b.member_rows(self.members),
            lambda rows: MembersLoaded(rows, counted=True),
        )

    def on_member_chosen(self, message: MemberChosen) -> None:
        if message.name:
            self.choose_member(message.name)
            return

        from viva_tui.dialogs.picker import MemberPicker

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
        for pane_id in ("timeline", "skills"):
            if (pane := self.maybe_pane(pane_id)) is not None:
                pane.set_member(name)  # type: ignore[attr-defined]
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
            lambda b: b.transcript(sid, TRANSCRIPT_MESSAGES),
            TranscriptLoaded,
        )

    def on_transcript_loaded(self, message: TranscriptLoaded) -> None:
        from viva_tui.dialogs.transcript import TranscriptDialog

        self.app.push_screen(TranscriptDialog(message.transcript))

    def action_weekly_report(self) -> None:
        self.post_message(ReportRequested())

    def on_report_requested(self, message: ReportRequested) -> None:
        week = message.week
        self.run_service(
            "report:weekly",
            lambda b: b.weekly_report(week),
            lambda got: ReportLoaded(*got),
        )

    def on_report_loaded(self, message: ReportLoaded) -> None:
        from viva_tui.dialogs.report import ReportDialog

        top = self.app.screen
        if isinstance(top, ReportDialog):
            top.show_week(message.week, message.markdown)
        else:
            self.app.push_screen(ReportDialog(message.week, message.markdown))

    def on_document_loaded(self, message: DocumentLoaded) -> None:
        from viva_tui.dialogs.document import DocumentDialog

        self.app.push_screen(DocumentDialog(message.title, message.markdown))

    def import_changed(self) -> None:
        if (pane := self.maybe_pane("triage")) is not None:
            cast("TriagePane", pane).reload()
        self.sessions_changed()

    def sessions_changed(self) -> None:
        self.count_members()
        timeline = self.maybe_pane("timeline")
        if timeline is not None and timeline.requested:
            timeline.request_data()

    def principles_changed(self) -> None:
        self.count_members()

    def skills_changed(self) -> None:
        self.count_members()


if TYPE_CHECKING:
    from viva_tui.widgets.triage_pane import TriagePane
