"""The owner's views over every session: search everything (``/``) and usage.

Each opens a dialog; the dialog's requests come back here, are answered in a named thread
worker, and the answer goes to the dialog if it is still open. A chosen hit opens its
session's transcript at the hit's message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import work

from viva_tui.messages import ArchiveSearchFinished, UsageLoaded
from viva_tui.screens.base import ServiceScreen, once_open
from viva_tui.views import ArchiveQuery

if TYPE_CHECKING:
    from viva_tui.dialogs.search import Opened, SearchDialog
    from viva_tui.dialogs.usage import UsageDialog


class ArchiveFlow(ServiceScreen):
    """Opens the search and usage dialogs and answers their requests."""

    def action_search_everything(self) -> None:
        from viva_tui.dialogs.search import SearchDialog

        def chosen(hit: Opened | None) -> None:
            if hit is not None:
                self.open_transcript(hit.session_id, hit.seq)

        self.app.push_screen(SearchDialog(), chosen)

    def on_search_dialog_requested(self, message: SearchDialog.Requested) -> None:
        self.search_everything(message.query)

    @once_open
    @work(thread=True, group="archive:search", exclusive=True, exit_on_error=False)
    def search_everything(self, query: ArchiveQuery) -> None:
        self.answer(ArchiveSearchFinished(query.text, self.backend.search_everything(query)))

    def on_archive_search_finished(self, message: ArchiveSearchFinished) -> None:
        from viva_tui.dialogs.search import SearchDialog

        for screen in self.app.screen_stack:
            if isinstance(screen, SearchDialog):
                screen.show_hits(message.text, message.result)

    def action_usage(self) -> None:
        self.load_usage("project")

    def on_usage_dialog_requested(self, message: UsageDialog.Requested) -> None:
        self.load_usage(message.by)

    @once_open
    @work(thread=True, group="archive:usage", exclusive=True, exit_on_error=False)
    def load_usage(self, by: str) -> None:
        self.answer(UsageLoaded(self.backend.usage(by)))

    def on_usage_loaded(self, message: UsageLoaded) -> None:
        from viva_tui.dialogs.usage import UsageDialog

        top = self.app.screen
        if isinstance(top, UsageDialog):
            top.show(message.data)
        else:
            self.app.push_screen(UsageDialog(message.data))
