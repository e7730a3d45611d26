"""``i``: recover new sessions in a worker, with a progress bar only while it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from textual import on, work
from textual.worker import Worker, WorkerState

from viva_tui.messages import ImportFinished, ImportProgressed
from viva_tui.screens.base import ServiceScreen

if TYPE_CHECKING:
    from viva_tui.widgets.import_bar import ImportBar

GROUP = "import:run"


class ImportFlow(ServiceScreen):
    """Drives the importer's generator in a thread and reports its progress."""

    importing = False

    def action_import_sessions(self) -> None:
        if self.importing:
            self.notify("An import is already running.")
            return
        if not self.store_is_open:
            self.notify("The store is still being opened; try again in a moment.")
            return
        self.importing = True
        self.import_sessions()

    @work(thread=True, group=GROUP, exit_on_error=False)
    def import_sessions(self) -> None:
        """Run the importer, posting its progress and then its summary."""
        from viva_store.importing.service import FileImported, FilesUnchanged, ImportStarted

        events = self.backend.run_import()
        done = total = 0
        while True:
            try:
                event = next(events)
            except StopIteration as stop:
                summary = stop.value
                break
            if isinstance(event, ImportStarted):
                total = event.files
            elif isinstance(event, FilesUnchanged):
                done += event.files
                self.post_message(ImportProgressed(done, total, f"{event.files} unchanged"))
            elif isinstance(event, FileImported):
                done += 1
                self.post_message(ImportProgressed(done, total, event.path))
        counts = summary.to_json()
        self.post_message(
            ImportFinished(
                counts, len(counts.get("problems", [])), tuple(sorted(summary.new_session_ids))
            )
        )

    async def import_bar(self) -> ImportBar:
        """The progress bar, made with the first import (it is not on the first frame)."""
        from viva_tui.widgets.import_bar import ImportBar

        found = self.query(ImportBar)
        if found:
            return found.first()
        bar = ImportBar()
        await self.query_one("#main").mount(bar)
        return bar

    async def on_import_progressed(self, message: ImportProgressed) -> None:
        bar = await self.import_bar()
        if self.importing:
            bar.advance(message.done, message.total, message.label)

    def on_import_finished(self, message: ImportFinished) -> None:
        c = message.counts
        text = (
            f"{c.get('files_scanned', 0)} files scanned: {c.get('sessions_new', 0)} new sessions, "
            f"{c.get('sessions_updated', 0)} updated, {c.get('messages_added', 0)} messages, "
            f"{c.get('redactions', 0)} secrets redacted"
        )
        if message.problems:
            text += f"; {message.problems} problems (see `viva status`)"
        self.notify(
            text, title="Import finished", severity="warning" if message.problems else "information"
        )
        if c.get("sessions_new") or c.get("sessions_updated"):
            self.import_changed()

    def import_changed(self) -> None:
        """New or updated sessions arrived (override in the main screen)."""

    @on(Worker.StateChanged)
    def _import_ended(self, event: Worker.StateChanged) -> None:
        ended = (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED)
        if event.worker.group != GROUP or event.state not in ended:
            return
        self.importing = False
        from viva_tui.widgets.import_bar import ImportBar

        for bar in self.query(ImportBar):
            bar.finish()
