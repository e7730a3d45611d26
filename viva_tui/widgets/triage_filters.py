"""The triage queue's filter bar: harness, project, text; typing waits a moment."""

from __future__ import annotations

from textual.timer import Timer
from textual.widgets import Input, Select

from viva_tui.views import TRIAGE_PAGE, Query
from viva_tui.widgets.pane import Pane

FILTER_DELAY = 0.3


class FilteredQueue(Pane):
    """A pane whose list is narrowed by ``#triage-harness``, ``-project`` and ``-text``;
    a changed filter asks for the list again from its start."""

    def __init__(self) -> None:
        super().__init__()
        self.query_now = Query()
        self._filter_timer: Timer | None = None

    def _request(self, offset: int, limit: int = TRIAGE_PAGE) -> None:
        """Ask for the list from ``offset`` (override)."""

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._apply_filters()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._filter_timer is not None:
            self._filter_timer.stop()
        self._filter_timer = self.set_timer(FILTER_DELAY, self._apply_filters)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self._apply_filters()
        self.focus_main()

    def _apply_filters(self) -> None:
        harness = self.query_one("#triage-harness", Select).value
        query = Query(
            harness=harness if isinstance(harness, str) else None,
            project=self.query_one("#triage-project", Input).value.strip() or None,
            text=self.query_one("#triage-text", Input).value.strip() or None,
        )
        if query != self.query_now:
            self.query_now = query
            self._request(0)
