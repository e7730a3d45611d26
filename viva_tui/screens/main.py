"""The one screen: sidebar, six panes, the import bar — and the flows that feed them.

Panes post requests; a flow (a mixin beside this file) answers in a named thread worker
that calls the backend and posts a past-tense message back, whose records it hands to
the pane. Failures of any worker reach :class:`ServiceScreen`'s one error handler.
Only the Members pane is built at start; the others are built (and their modules
imported) when the app is idle or when first shown, so the first frame comes quickly.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, ClassVar, cast

from textual import on, work
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.widgets import ContentSwitcher, Footer

from viva_tui import keys
from viva_tui.messages import (
    DocumentLoaded,
    HarnessesRead,
    LaunchCommandsLoaded,
    MembersLoaded,
    ReportLoaded,
)
from viva_tui.screens.archive_flow import ArchiveFlow
from viva_tui.screens.base import once_open
from viva_tui.screens.import_flow import ImportFlow
from viva_tui.screens.knowledge_flow import KnowledgeFlow
from viva_tui.screens.live_flow import LiveFlow
from viva_tui.screens.principles_flow import PrinciplesFlow
from viva_tui.screens.session_actions_flow import SessionActionsFlow
from viva_tui.screens.skills_flow import SkillsFlow
from viva_tui.screens.timeline_flow import TimelineFlow
from viva_tui.screens.triage_flow import TriageFlow
from viva_tui.views import MemberRow
from viva_tui.widgets.members_pane import MembersPane
from viva_tui.widgets.pane import Pane
from viva_tui.widgets.sidebar import PANES, Sidebar

if TYPE_CHECKING:
    from viva_store.records import MemberRecord
    from viva_tui.dialogs.report import ReportDialog
    from viva_tui.widgets.skills_pane import SkillsPane
    from viva_tui.widgets.timeline_pane import TimelinePane
    from viva_tui.widgets.triage_pane import TriagePane


class MainScreen(
    LiveFlow,
    TriageFlow,
    TimelineFlow,
    SkillsFlow,
    PrinciplesFlow,
    KnowledgeFlow,
    ImportFlow,
    ArchiveFlow,
    SessionActionsFlow,
):
    """Sidebar + panes switched with 1–6; every store call runs in a worker; what others
    write to the store meanwhile appears on its own."""

    BINDINGS: ClassVar[list[BindingType]] = [*keys.SCREEN]
    # At 80×24 the sidebar keeps only the pane keys.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (100, "-wide")]  # noqa: RUF012

    def __init__(self, member: str | None = None) -> None:
        super().__init__(member)
        self.undo_stack = []
        self.member_keys = {}
        self.harnesses: list[str] = []
        self.roster_loaded = False
        self.pane_waiting: str | None = None
        self.panes_built = False
        self.launch_commands: dict[str, str] = {}

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
        self.query_one(MembersPane).activate()
        self.load_roster()

    @once_open
    @work(thread=True, group="store:harnesses", exclusive=True, exit_on_error=False)
    def read_harnesses(self) -> None:
        """The harnesses the filters offer (the importer's modules load now, after the
        roster's counts are on screen)."""
        self.answer(HarnessesRead(self.backend.harnesses()))

    def on_harnesses_read(self, message: HarnessesRead) -> None:
        self.show_harnesses(message.harnesses)

    def show_harnesses(self, harnesses: Sequence[str]) -> None:
        """What the harness filters offer."""
        self.harnesses = list(harnesses)
        for pane_id in ("triage", "timeline"):
            if (pane := self.maybe_pane(pane_id)) is not None:
                cast("TriagePane | TimelinePane", pane).harnesses = tuple(self.harnesses)

    # Panes -------------------------------------------------------------------------------

    def current_pane(self) -> Pane:
        return self.pane(self.query_one(ContentSwitcher).current or "members")

    async def action_show_pane(self, pane_id: str) -> None:
        if pane_id not in dict(PANES):
            return
        self.query_one(Sidebar).active = pane_id
        self.pane_waiting = None
        if pane_id == "triage" and not self.roster_loaded:
            self.pane_waiting = pane_id  # its member keys come with the roster
            return
        pane = await self.build_pane(pane_id)
        pane.ensure_requested()  # the store works while the pane is laid out
        self.query_one(ContentSwitcher).current = pane_id
        pane.focus_main()

    async def build_pane(self, pane_id: str) -> Pane:
        """The pane, built (hidden) with what the screen knows, if it was not yet."""
        pane = self.maybe_pane(pane_id)
        if pane is not None:
            return pane
        pane = self.make_pane(pane_id)
        pane.display = False  # the switcher shows it when it becomes current
        await self.query_one(ContentSwitcher).mount(pane)
        return pane

    def make_pane(self, pane_id: str) -> Pane:
        """A new pane (its module imported only now)."""
        if pane_id == "triage":
            from viva_tui.widgets.triage_pane import TriagePane

            return TriagePane.for_roster(self.member_keys, self.harnesses)
        if pane_id == "timeline":
            from viva_tui.widgets.timeline_pane import TimelinePane

            return TimelinePane(self.harnesses, self.member)
        if pane_id == "skills":
            from viva_tui.widgets.skills_pane import SkillsPane

            return SkillsPane(self.member)
        if pane_id == "principles":
            from viva_tui.widgets.principles_pane import PrinciplesPane

            return PrinciplesPane()
        if pane_id == "knowledge":
            from viva_tui.widgets.knowledge_pane import KnowledgePane

            return KnowledgePane()
        return MembersPane()

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
        own = keys.ALL[pane.PANE_ID]
        self.app.push_screen(HelpDialog(pane.TITLE, pane.help_text(), own, keys.SCREEN, keymap))

    # Members -----------------------------------------------------------------------------

    @once_open
    @work(thread=True, group="members:list", exclusive=True, exit_on_error=False)
    def load_roster(self) -> None:
        """The roster first (the counts follow in :meth:`count_members`)."""
        members = self.backend.members()
        self.answer(MembersLoaded([MemberRow(m, None, None, None, None) for m in members], False))

    async def on_members_loaded(self, message: MembersLoaded) -> None:
        pane = self.query_one(MembersPane)
        rows = message.rows
        if message.only_these:
            fresh = {r.member.name: r for r in rows}
            rows = [fresh.get(r.member.name, r) for r in pane.rows]
        if not message.counted:
            self.members = [r.member for r in message.rows]
            self.count_members()  # the store counts while the roster is drawn
        rows = self.with_launch_commands(rows)
        await pane.show_members(rows, message.counted)
        if message.counted:
            if not self.harnesses:
                self.read_harnesses()
            if not self.launch_commands:  # the first counts: now the rest may load
                self.count_queue()  # the sidebar shows how many sessions wait
                self.read_launch_commands(tuple(r.member for r in rows))
                self.set_timer(0.2, self._build_next)
                self.load_principles()  # the sidebar shows how many candidates wait
                self.load_knowledge()  # and how many wait at the knowledge gate
            return
        self.member_keys = self.choose_member_keys()
        self.roster_loaded = True
        names = [m.name for m in self.members]
        if names:
            keep = self.member if self.member in names else names[0]
            self.member = None
            self.choose_member(keep, announce=False)
        if self.pane_waiting is not None:
            await self.action_show_pane(self.pane_waiting)

    @once_open
    @work(thread=True, group="members:launch", exclusive=True, exit_on_error=False)
    def read_launch_commands(self, members: tuple[MemberRecord, ...]) -> None:
        """The members' launch commands, once their counts are on screen."""
        self.answer(LaunchCommandsLoaded(self.backend.launch_commands(members)))

    async def on_launch_commands_loaded(self, message: LaunchCommandsLoaded) -> None:
        self.launch_commands = message.commands
        pane = self.query_one(MembersPane)
        await pane.show_members(self.with_launch_commands(pane.rows), counted=True)

    def with_launch_commands(self, rows: list[MemberRow]) -> list[MemberRow]:
        """``rows`` with the launch commands read so far."""
        commands = self.launch_commands
        return [replace(r, launch_command=commands.get(r.member.name, "")) for r in rows]

    def count_members(self, names: Sequence[str] | None = None) -> None:
        """Fill the roster's counts in the background (only those of ``names`` if given)."""
        if names is None:
            self.read_member_counts(tuple(self.members))
        elif names:
            self.recount_members(tuple(m for m in self.members if m.name in names))

    @once_open
    @work(thread=True, group="members:counts", exclusive=True, exit_on_error=False)
    def read_member_counts(self, members: tuple[MemberRecord, ...]) -> None:
        self.answer(MembersLoaded(self.backend.member_rows(members), counted=True))

    @once_open
    @work(thread=True, group="members:recount", exit_on_error=False)
    def recount_members(self, members: tuple[MemberRecord, ...]) -> None:
        rows = self.backend.member_rows(members)
        self.answer(MembersLoaded(rows, counted=True, only_these=True))

    @on(MembersPane.MemberChosen)
    def _member_chosen(self, message: MembersPane.MemberChosen) -> None:
        self.choose_member(message.name)

    @on(Pane.MemberPickRequested)
    def _pick_member(self) -> None:
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
        self.query_one(Sidebar).member = name
        for pane_id in ("timeline", "skills"):
            if (pane := self.maybe_pane(pane_id)) is not None:
                cast("TimelinePane | SkillsPane", pane).member = name
        if announce:
            remember = getattr(self.app, "remember", None)
            if remember is not None:
                remember(member=name)
            self.notify(f"Timeline and Skills now show {name}.")

    # The weekly report, documents, changes ------------------------------------------------

    def action_weekly_report(self) -> None:
        self.load_report(None)

    def on_report_dialog_week_requested(self, message: ReportDialog.WeekRequested) -> None:
        self.load_report(message.week)

    @once_open
    @work(thread=True, group="report:weekly", exclusive=True, exit_on_error=False)
    def load_report(self, week: str | None) -> None:
        """A week's report (None: this week), shown in the report dialog."""
        self.answer(ReportLoaded(*self.backend.weekly_report(week)))

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
        self.triage_changed()
        self.sessions_changed()

    def sessions_changed(self, members: Sequence[str] | None = None) -> None:
        self.count_members(members)
        timeline = self.maybe_pane("timeline")
        shown = cast("TimelinePane | None", timeline)
        if shown is not None and shown.requested and (members is None or shown.member in members):
            shown.request_data()

    def principles_changed(self) -> None:
        self.count_members()

    def skills_changed(self) -> None:
        self.count_members()

    def store_changed(self, areas: frozenset[str]) -> None:
        """Re-read what shows the areas others wrote to (the live flow's poll)."""
        if areas & {"sessions", "triage"}:
            self.triage_changed()
        self.sessions_changed()  # every area shows in the members' counts or the timeline
        skills = self.maybe_pane("skills")
        if "skills" in areas and skills is not None and skills.requested:
            skills.request_data()
        if "principles" in areas:
            self.load_principles()
        if "knowledge" in areas:
            self.load_knowledge()
