"""The app's data layer: plain calls to the store's services, no Textual (frogmouth's way).

The screen calls these from thread workers; each returns frozen records or the view
models of :mod:`viva_tui.views`. This package is imported only after the first frame,
in the worker that opens the store (the services bring SQLAlchemy with them).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import TypeAlias

from viva_store.importing import service as importing
from viva_store.launch.service import command_line
from viva_store.members.service import list_executions, list_members, member_names
from viva_store.principles.service import active_principles
from viva_store.records import MemberRecord
from viva_store.reports import service as reports
from viva_store.sessions.service import (
    MemberActivity,
    SessionFilter,
    get_session,
    list_sessions,
    member_activity,
    session_messages,
)
from viva_store.skills.service import SkillParams, list_skills
from viva_store.store import Context
from viva_store.triage.service import (
    Classified,
    Suggestion,
    classify,
    classify_nobody,
    suggest,
    unclassify,
)
from viva_tui.screens.backend import principles as principle_data
from viva_tui.screens.backend import skills as skill_data
from viva_tui.screens.backend import timeline as timeline_data
from viva_tui.views import (
    PREVIEW_MESSAGES,
    CurveData,
    MemberRow,
    Page,
    PrinciplesData,
    Query,
    SearchResult,
    SkillsData,
    TimelineEvents,
    Transcript,
)

ImportEvent: TypeAlias = importing.ImportStarted | importing.FilesUnchanged | importing.FileImported


class Backend:
    """Every service call the app makes, as the actor of ``ctx`` (the owner)."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

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
                    launch_command=command_line(m.name, m.harnesses[0]) if m.harnesses else "",
                )
            )
        return rows

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

    def transcript(self, session_id: str, limit: int = PREVIEW_MESSAGES) -> Transcript:
        """A session and its first ``limit`` messages."""
        session = get_session(self.ctx, session_id)
        messages = session_messages(self.ctx, session.id, limit=limit + 1)
        return Transcript(session, tuple(messages[:limit]), len(messages) > limit)

    # Triage ----------------------------------------------------------------------------

    def suggestions(self) -> dict[str, Suggestion]:
        """The suggestion for every queued session, by session id."""
        return {s.session_id: s for s in suggest(self.ctx)}

    def assign(self, ids: Sequence[str], member: str | None) -> Classified:
        """File sessions into ``member``'s experience (None: nobody's)."""
        if member is None:
            return classify_nobody(self.ctx, ids, note="triage pane")
        return classify(self.ctx, ids, member, note="triage pane")

    def accept(self, pairs: Sequence[tuple[str, str]]) -> list[Classified]:
        """Accept suggestions: ``(session id, suggested member)`` pairs, one call per member."""
        by_member: dict[str, list[str]] = {}
        for sid, member in pairs:
            by_member.setdefault(member, []).append(sid)
        return [
            classify(self.ctx, ids, member, note="accepted suggestion")
            for member, ids in sorted(by_member.items())
        ]

    def undo(self, ids: Sequence[str]) -> Classified:
        """Put sessions back in the triage queue (a new event; nothing is deleted)."""
        return unclassify(self.ctx, ids, note="undo in the triage pane")

    def harnesses(self) -> list[str]:
        """The harnesses Viva reads (for the filters)."""
        return importing.harness_names()

    def run_import(self) -> Generator[ImportEvent, None, importing.ImportSummary]:
        """The importer's progress events; its return value is the summary."""
        return importing.run_import(self.ctx)

    # Timeline, skills, principles --------------------------------------------------------

    def timeline_events(self, member: str) -> TimelineEvents:
        """The member's skill events and principle decisions, newest first."""
        return timeline_data.load_events(self.ctx, member)

    def search(self, member: str, text: str) -> SearchResult:
        """Recall hits in the member's experience."""
        return timeline_data.search(self.ctx, member, text)

    def skills(self, member: str, include_forgotten: bool) -> SkillsData:
        """The member's skill set with trends."""
        return skill_data.load_skills(self.ctx, member, include_forgotten)

    def curve(self, member: str, skill: str) -> CurveData:
        """One skill's weight curve."""
        return skill_data.load_curve(self.ctx, member, skill)

    def change_skill(self, action: str, member: str, skill: str, track: str = "") -> str:
        """Reclaim a skill or change its track."""
        return skill_data.change(self.ctx, action, member, skill, track)

    def skill_parameters(self) -> SkillParams:
        """The store's skill numbers, as dialogs quote them (read from its config)."""
        return skill_data.parameters(self.ctx)

    def skill_body(self, name: str) -> str:
        """A skill's body (reading it here is not a use)."""
        return skill_data.skill_body(self.ctx, name)

    def principles(self, members: Sequence[str]) -> PrinciplesData:
        """The queue, the history and what is in force."""
        return principle_data.load_principles(self.ctx, list(members) or self.member_names())

    def decide(self, action: str, ref: str, text: str | None, version: int) -> str:
        """Store one owner decision about a principle."""
        return principle_data.decide(self.ctx, action, ref, text, version)

    # Report ----------------------------------------------------------------------------

    def weekly_report(self, week: str | None = None) -> tuple[str, str]:
        """``(week, Markdown)`` of a week's report (None: the store clock's week)."""
        found = reports.weekly_report(self.ctx, week)
        return str(found.week), reports.report_markdown(found)
