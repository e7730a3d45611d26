"""The app's data layer: plain calls to the store's services, no Textual (frogmouth's way).

The screen calls these from thread workers; each returns frozen records. Services that
are not part of this build yet raise :class:`Unavailable`, and the pane that needs them
says so instead of showing anything invented (DESIGN I9).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from viva_store.launch.service import command_line
from viva_store.members.service import list_executions, list_members, member_names
from viva_store.records import MemberRecord
from viva_store.sessions.service import MemberActivity, get_session, list_sessions, member_activity
from viva_store.sessions.service import session_messages as _messages
from viva_store.store import Context
from viva_store.triage.service import (
    Classified,
    Suggestion,
    classify,
    classify_nobody,
    suggest,
    unclassify,
)
from viva_tui.screens import data_principles, data_skills, data_timeline
from viva_tui.screens.data_principles import PrinciplesData
from viva_tui.screens.data_skills import CurveData, SkillsData
from viva_tui.screens.data_timeline import SearchResult, TimelineEvents
from viva_tui.screens.shapes import (
    PREVIEW_MESSAGES,
    MemberRow,
    Page,
    Query,
    Transcript,
    Unavailable,
    optional,
)


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
        """Each member with its counts; a count whose service is missing stays None."""
        rows: list[MemberRow] = []
        activity = member_activity(self.ctx)
        for m in members:
            active = activity.get(m.name, MemberActivity(0, None))
            rows.append(
                MemberRow(
                    member=m,
                    sessions=active.sessions,
                    last_active=active.last_started,
                    active_skills=self._count_skills(m.name),
                    active_principles=self._count_principles(m.name),
                    executions=tuple(list_executions(self.ctx, m.name, limit=5)),
                    launch_command=command_line(m.name, m.harnesses[0]) if m.harnesses else "",
                )
            )
        return rows

    def _count_principles(self, member: str) -> int | None:
        try:
            principles = optional("principles.service", "Principles")
        except Unavailable:
            return None
        return len(principles.active_principles(self.ctx, member))

    def _count_skills(self, member: str) -> int | None:
        try:
            skillset = optional("skills.service", "The skill set")
        except Unavailable:
            return None
        return sum(1 for s in skillset.list_skills(self.ctx, member) if s.status != "forgotten")

    # Sessions --------------------------------------------------------------------------

    def page(
        self, query: Query, offset: int, limit: int, *, status: str | None, member: str | None
    ) -> Page:
        """A page of sessions (one extra row is read to know whether more follow)."""
        flt = query.session_filter(status=status, member=member, limit=limit + 1, offset=offset)
        rows = list_sessions(self.ctx, flt)
        return Page(query, offset, tuple(rows[:limit]), len(rows) > limit)

    def transcript(self, session_id: str, limit: int = PREVIEW_MESSAGES) -> Transcript:
        """A session and its first ``limit`` messages."""
        session = get_session(self.ctx, session_id)
        messages = _messages(self.ctx, session.id, limit=limit + 1)
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
        from viva_store.importing.service import harness_names

        return harness_names()

    def run_import(self) -> Generator[Any, None, Any]:
        """The importer's progress events; its return value is the summary."""
        from viva_store.importing.service import run_import

        return run_import(self.ctx)

    # Timeline, skills, principles (modules that name what this build lacks) ------------

    def timeline_events(self, member: str) -> TimelineEvents:
        """The member's skill events and principle decisions, newest first."""
        return data_timeline.load_events(self.ctx, member)

    def search(self, member: str, text: str) -> SearchResult:
        """Recall hits in the member's experience."""
        return data_timeline.search(self.ctx, member, text)

    def skills(self, member: str, include_forgotten: bool) -> SkillsData:
        """The member's skill set with trends."""
        return data_skills.load_skills(self.ctx, member, include_forgotten)

    def curve(self, member: str, skill: str) -> CurveData:
        """One skill's weight curve."""
        return data_skills.load_curve(self.ctx, member, skill)

    def change_skill(self, action: str, member: str, skill: str, track: str = "") -> str:
        """Reclaim a skill or change its track."""
        return data_skills.change(self.ctx, action, member, skill, track)

    def skill_body(self, name: str) -> str:
        """A skill's body (reading it here is not a use)."""
        return data_skills.skill_body(self.ctx, name)

    def principles(self, members: Sequence[str]) -> PrinciplesData:
        """The queue, the history and what is in force."""
        return data_principles.load_principles(self.ctx, list(members) or self.member_names())

    def decide(self, action: str, ref: str, text: str | None, version: int) -> str:
        """Store one owner decision about a principle."""
        return data_principles.decide(self.ctx, action, ref, text, version)

    # Report ----------------------------------------------------------------------------

    def weekly_report(self, week: str | None = None) -> tuple[str, str]:
        """``(week, Markdown)`` of a week's report (None: the store clock's week)."""
        report = optional("reports.service", "The weekly report")
        markdown = optional("reports.service", "The weekly report")
        found = report.weekly_report(self.ctx, week)
        return str(found.week), str(markdown.report_markdown(found))
