"""What every flow of the main screen shares: the backend, workers, the error handler."""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from viva_store.records import MemberRecord
from viva_tui.screens.backend import Backend, Unavailable
from viva_tui.widgets.pane import Pane

T = TypeVar("T")


class ServiceScreen(Screen[None]):
    """A screen that calls the store only from named thread workers.

    Worker groups are named ``<pane>:<what>`` (``triage:page``) so a failure can be
    attributed to its pane.
    """

    def __init__(self, backend: Backend, member: str | None = None) -> None:
        super().__init__()
        self.backend = backend
        self.members: list[MemberRecord] = []
        self.member = member

    def pane(self, pane_id: str) -> Pane:
        """The pane with this id."""
        return self.query_one(f"#{pane_id}", Pane)

    def run_service(
        self,
        group: str,
        call: Callable[[], T],
        done: Callable[[T], Message | None],
        *,
        exclusive: bool = True,
    ) -> Worker[None]:
        """Run ``call`` in a thread; post ``done(result)`` unless superseded meanwhile.

        ``exclusive`` cancels the group's earlier worker: its result is then dropped
        (a thread cannot be stopped, but a stale page never reaches a pane).
        """

        def work() -> None:
            result = call()
            if not get_current_worker().is_cancelled and (message := done(result)):
                self.post_message(message)

        return self.run_worker(
            work, name=group, group=group, thread=True, exclusive=exclusive, exit_on_error=False
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The one handler for background work that ended: tidy up, and show any error."""
        worker = event.worker
        if event.state not in (WorkerState.ERROR, WorkerState.CANCELLED, WorkerState.SUCCESS):
            return
        self.work_ended(worker.group, event.state)
        if event.state != WorkerState.ERROR or worker.error is None:
            return
        error = worker.error
        pane_id = worker.group.partition(":")[0]
        if isinstance(error, Unavailable) and self.query(f"#{pane_id}"):
            self.pane(pane_id).show_unavailable(str(error))
            return
        show = getattr(self.app, "show_error", None)
        if show is not None:
            show(error, worker.group)
        else:  # pragma: no cover - the app always has it
            self.notify(str(error), severity="error")

    def work_ended(self, group: str, state: WorkerState) -> None:
        """A worker of ``group`` finished; flows override this and call ``super()``."""
