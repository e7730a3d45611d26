"""The timeline pane's requests: a member's sessions page by page, events, search."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.worker import Worker

from viva_tui.messages import (
    SearchFinished,
    TimelineLoaded,
    TimelinePageLoaded,
    TimelinePreviewLoaded,
)
from viva_tui.screens.base import ServiceScreen, once_open
from viva_tui.views import TIMELINE_PAGE, Query

if TYPE_CHECKING:
    from viva_tui.widgets.timeline_pane import TimelinePane

PAGE = "timeline:page"


class TimelineFlow(ServiceScreen):
    """Feeds :class:`TimelinePane` (whose requests are handled by name: its module is
    imported only when the pane is first built)."""

    def timeline_pane(self) -> TimelinePane:
        return cast("TimelinePane", self.pane("timeline"))

    def on_timeline_pane_page_requested(self, message: TimelinePane.PageRequested) -> None:
        self.load_timeline_page(message.member, message.query, message.offset)

    @once_open
    @work(thread=True, group=PAGE, exclusive=True, exit_on_error=False)
    def load_timeline_page(self, member: str, query: Query, offset: int) -> None:
        """A page of ``member``'s sessions; the first comes with the member's events."""
        page = self.backend.page(query, offset, TIMELINE_PAGE, status="attributed", member=member)
        if offset == 0:
            self.answer(TimelineLoaded(member, page, self.backend.timeline_events(member)))
        else:
            self.answer(TimelinePageLoaded(member, page))

    def on_timeline_loaded(self, message: TimelineLoaded) -> None:
        self.timeline_pane().show_first(message.member, message.page, message.events)

    def on_timeline_page_loaded(self, message: TimelinePageLoaded) -> None:
        self.timeline_pane().show_page(message.member, message.page)

    @on(Worker.StateChanged)
    def _timeline_page_not_loaded(self, event: Worker.StateChanged) -> None:
        if self.work_failed(event, PAGE) and (pane := self.maybe_pane("timeline")) is not None:
            cast("TimelinePane", pane).fetching = False

    def on_timeline_pane_preview_requested(self, message: TimelinePane.PreviewRequested) -> None:
        self.load_timeline_preview(message.session_id)

    @once_open
    @work(thread=True, group="timeline:preview", exclusive=True, exit_on_error=False)
    def load_timeline_preview(self, session_id: str) -> None:
        self.answer(TimelinePreviewLoaded(self.backend.transcript(session_id)))

    def on_timeline_preview_loaded(self, message: TimelinePreviewLoaded) -> None:
        self.timeline_pane().show_preview(message.transcript)

    def on_timeline_pane_search_requested(self, message: TimelinePane.SearchRequested) -> None:
        self.search_experience(message.member, message.text)

    @once_open
    @work(thread=True, group="timeline:search", exclusive=True, exit_on_error=False)
    def search_experience(self, member: str, text: str) -> None:
        self.answer(SearchFinished(member, text, self.backend.search(member, text)))

    def on_search_finished(self, message: SearchFinished) -> None:
        self.timeline_pane().show_hits(message.member, message.text, message.result)
