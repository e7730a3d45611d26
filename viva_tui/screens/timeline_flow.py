"""The timeline pane's requests: a member's sessions page by page, events, search."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.worker import WorkerState

from viva_tui.messages import PageLoaded, SearchFinished, SearchRequested, TimelineLoaded
from viva_tui.screens.base import ServiceScreen
from viva_tui.screens.shapes import TIMELINE_PAGE, Query

if TYPE_CHECKING:
    from viva_tui.widgets.timeline_pane import TimelinePane


class TimelineFlow(ServiceScreen):
    """Feeds :class:`TimelinePane`."""

    def timeline_pane(self) -> TimelinePane:
        return cast("TimelinePane", self.pane("timeline"))

    def load_timeline_page(self, member: str, query: Query, offset: int) -> None:
        if offset == 0:
            self.run_service(
                "timeline:page",
                lambda b: (
                    b.page(query, 0, TIMELINE_PAGE, status="attributed", member=member),
                    b.timeline_events(member),
                ),
                lambda got: TimelineLoaded(member, got[0], got[1]),
            )
            return
        self.run_service(
            "timeline:page",
            lambda b: b.page(query, offset, TIMELINE_PAGE, status="attributed", member=member),
            lambda page: PageLoaded("timeline", page, member),
        )

    def on_timeline_loaded(self, message: TimelineLoaded) -> None:
        self.timeline_pane().show_first(message.member, message.page, message.events)

    def on_search_requested(self, message: SearchRequested) -> None:
        member, text = message.member, message.text
        self.run_service(
            "timeline:search",
            lambda b: b.search(member, text),
            lambda result: SearchFinished(member, text, result),
        )

    def on_search_finished(self, message: SearchFinished) -> None:
        self.timeline_pane().show_hits(message.member, message.text, message.result)

    def work_ended(self, group: str, state: WorkerState) -> None:
        if group == "timeline:page" and state != WorkerState.SUCCESS:
            self.timeline_pane().fetching = False
        super().work_ended(group, state)
