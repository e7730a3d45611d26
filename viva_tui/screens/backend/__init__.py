"""The app's data layer: plain calls to the store's services, no Textual (frogmouth's way).

The screen calls these from thread workers; each returns frozen records or the view
models of :mod:`viva_tui.views`. This package is imported only after the first frame,
in the worker that opens the store (the services bring SQLAlchemy with them).
"""

from __future__ import annotations

from collections.abc import Generator, Mapping, Sequence
from typing import TYPE_CHECKING, TypeAlias

from viva_store.members.service import list_executions, list_members, member_names
from viva_store.principles.service import active_principles
from viva_store.records import MemberRecord
from viva_store.sessions.service import (
    MemberActivity,
    SessionFilter,
    get_session,
    list_sessions,
    member_activity,
    related_sessions,
    session_messages,
)
from viva_store.skills.service import SkillParams, list_skills
from viva_store.store import ChangeStamp, Context
from viva_tui.views import (
    PREVIEW_MESSAGES,
    ArchiveQuery,
    CurveData,
    KnowledgeData,
    MemberRow,
    Page,
    PrinciplesData,
    Query,
    SearchResult,
    SkillsData,
    TimelineEvents,
    Transcript,
    UsageData,
)

QUEUED: Expected = ("unattributed", None)
"""The state of every session the triage pane lists (what an action there expects)."""
if TYPE_CHECKING:
    from viva_store.importing import service as importing
    from viva_store.triage.service import Classified, Expected, Suggestion
    from viva_tui.screens.backend.session_actions import SessionActions

ImportEvent: TypeAlias = (
    "importing.ImportStarted | importing.FilesUnchanged | importing.FileImported"
)


class Backend:
    """Every service call the app makes, as the actor of ``ctx`` (the owner)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def change_stamp(self) -> ChangeStamp:
        """Where each area of the store stands (the app polls it to stay live)."""
        return self.ctx.store.change_stamp()

    # Members ---------------------------------------------------------------------------

    def members(self) -> list[MemberRecord]:
        """The roster, coordinator first."""
        return list_members(self.ctx)

    def member_names(self) -> list[str]:
        """Every member's name."""
        return member_names(self.ctx)

    def member_rows(self, members: Sequence[MemberRecord]) -> list[MemberRow]:
        """Each member with its counts, recent launches and launch command."""
        rows: list[MemberRow] = []
        activity = member_activity(self.ctx)
        for m in members:
            active = activity.get(m.name, MemberActivity(0, None))
            in_set = list_skills(self.ctx, m.name)
            rows.append(
                MemberRow(
                    member=m,
                    sessions=active.sessions,
                    last_active=active.last_started,
                    active_skills=sum(1 for s in in_set if s.status != "forgotten"),
                    active_principles=len(active_principles(self.ctx, m.name)),
                    executions=tuple(list_executions(self.ctx, m.name, limit=5)),
                )
            )
        return rows

    def launch_commands(self, members: Sequence[MemberRecord]) -> dict[str, str]:
        """Each member's ``viva launch`` command (its first harness), by name (the launcher's
        modules load now, after the roster's counts are on screen)."""
        from viva_store.launch.service import command_line

        return {m.name: command_line(m.name, m.harnesses[0]) for m in members if m.harnesses}

    # Sessions --------------------------------------------------------------------------

    def page(
        self, query: Query, offset: int, limit: int, *, status: str, member: str | None
    ) -> Page:
        """A page of sessions (one extra row is read to know whether more follow)."""
        flt = SessionFilter(
            harness=query.harness or None,
            project=query.project or None,
            text=query.text or None,
            status=status,
            member=member,
            limit=limit + 1,
            offset=offset,
        )
        rows = list_sessions(self.ctx, flt)
        return Page(query, offset, tuple(rows[:limit]), len(rows) > limit)

    def transcript(
        self, session_id: str, limit: int = PREVIEW_MESSAGES, links: bool = False
    ) -> Transcript:
        """A session and its first ``limit`` messages (``links``: and its related sessions)."""
        session = get_session(self.ctx, session_id)
        messages = session_messages(self.ctx, session.id, limit=limit + 1)
        related = related_sessions(self.ctx, session.id) if links else None
        return Transcript(session, tuple(messages[:limit]), len(messages) > limit, related)

    def session_actions(self) -> SessionActions:
        """Export and resume (loaded on first use)."""
        from viva_tui.screens.backend.session_actions import SessionActions

        return SessionActions(self.ctx)

    # Triage ----------------------------------------------------------------------------

    def queue_size(self) -> int:
        """How many sessions wait in the triage queue."""
        from viva_store.triage import service as triage

        return triage.queue_size(self.ctx)

    def suggestions(self) -> dict[str, Suggestion]:
        """The suggestion for every queued session, by session id."""
        from viva_store.triage import service as triage

        return {s.session_id: s for s in triage.suggest(self.ctx)}

    def assign(self, ids: Sequence[str], member: str | None) -> Classified:
        """File queued sessions into ``member``'s experience (None: nobody's); refused
        when any of them left the queue meanwhile."""
        from viva_store.triage import service as triage

        if member is None:
            return triage.classify_nobody(self.ctx, ids, note="triage pane", expect=QUEUED)
        return triage.classify(self.ctx, ids, member, note="triage pane", expect=QUEUED)

    def accept(self, pairs: Sequence[tuple[str, str]]) -> list[Classified]:
        """Accept suggestions: ``(session id, suggested member)`` pairs, one call per member
        (each refused when one of its sessions left the queue meanwhile)."""
        from viva_store.triage import service as triage

        by_member: dict[str, list[str]] = {}
        for sid, member in pairs:
            by_member.setdefault(member, []).append(sid)
        return [
            triage.classify(self.ctx, ids, member, note="accepted suggestion", expect=QUEUED)
            for member, ids in sorted(by_member.items())
        ]

    def undo(self, left: Mapping[str, Expected]) -> Classified:
        """Put sessions back in the triage queue (a new event; nothing is deleted), if each
        is still as the undone action ``left`` it (by session id)."""
        from viva_store.triage import service as triage

        return triage.unclassify(self.ctx, list(left), note="undo in the triage pane", expect=left)

    def harnesses(self) -> list[str]:
        """The harnesses Viva reads (for the filters; the importer's modules load now)."""
        from viva_store.importing import service as importing

        return importing.harness_names()

    def run_import(self) -> Generator[ImportEvent, None, importing.ImportSummary]:
        """The importer's progress events; its return value is the summary."""
        from viva_store.importing import service as importing

        return importing.run_import(self.ctx)

    # Timeline, skills, principles --------------------------------------------------------

    def timeline_events(self, member: str) -> TimelineEvents:
        """The member's skill events and principle decisions, newest first."""
        from viva_tui.screens.backend import timeline as timeline_data

        return timeline_data.load_events(self.ctx, member)

    def search(self, member: str, text: str) -> SearchResult:
        """Recall hits in the member's experience."""
        from viva_tui.screens.backend import timeline as timeline_data

        return timeline_data.search(self.ctx, member, text)

    def skills(self, member: str, include_forgotten: bool) -> SkillsData:
        """The member's skill set with trends."""
        from viva_tui.screens.backend import skills as skill_data

        return skill_data.load_skills(self.ctx, member, include_forgotten)

    def curve(self, member: str, skill: str) -> CurveData:
        """One skill's weight curve."""
        from viva_tui.screens.backend import skills as skill_data

        return skill_data.load_curve(self.ctx, member, skill)

    def change_skill(self, action: str, member: str, skill: str, track: str = "") -> str:
        """Reclaim a skill or change its track."""
        from viva_tui.screens.backend import skills as skill_data

        return skill_data.change(self.ctx, action, member, skill, track)

    def skill_parameters(self) -> SkillParams:
        """The store's skill numbers, as dialogs quote them (read from its config)."""
        from viva_tui.screens.backend import skills as skill_data

        return skill_data.parameters(self.ctx)

    def skill_body(self, name: str) -> str:
        """A skill's body (reading it here is not a use)."""
        from viva_tui.screens.backend import skills as skill_data

        return skill_data.skill_body(self.ctx, name)

    def principles(self, members: Sequence[str]) -> PrinciplesData:
        """The queue, the history and what is in force."""
        from viva_tui.screens.backend import principles as principle_data

        return principle_data.load_principles(self.ctx, list(members) or self.member_names())

    def decide(self, action: str, ref: str, text: str | None, version: int) -> str:
        """Store one owner decision about a principle."""
        from viva_tui.screens.backend import principles as principle_data

        return principle_data.decide(self.ctx, action, ref, text, version)

    # Every session: search and usage ------------------------------------------------------

    def search_everything(self, query: ArchiveQuery) -> SearchResult:
        """Recall over every session, unattributed ones too, narrowed by the query's filters."""
        from viva_tui.screens.backend import archive

        return archive.search_everything(self.ctx, query)

    def usage(self, by: str) -> UsageData:
        """Recent days' usage for the chart and every session's usage grouped ``by``."""
        from viva_tui.screens.backend import archive

        return archive.usage_data(self.ctx, by)

    # Knowledge -------------------------------------------------------------------------

    def knowledge(self) -> KnowledgeData:
        """The gate's candidates, admitted items by kind, the review queue."""
        from viva_tui.screens.backend import knowledge as knowledge_data

        return knowledge_data.load_knowledge(self.ctx)

    def decide_knowledge(self, action: str, item_id: str, text: str) -> str:
        """Store one decision on a knowledge item (admit, decline, retract)."""
        from viva_tui.screens.backend import knowledge as knowledge_data

        return knowledge_data.decide(self.ctx, action, item_id, text)

    # Report ----------------------------------------------------------------------------

    def weekly_report(self, week: str | None = None) -> tuple[str, str]:
        """``(week, Markdown)`` of a week's report (None: the store clock's week)."""
        from viva_store.reports import service as reports

        found = reports.weekly_report(self.ctx, week)
        return str(found.week), reports.report_markdown(found)
