"""What every flow of the main screen shares: the backend, workers, the error handler."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from viva_tui.screens.shapes import Unavailable
from viva_tui.widgets.pane import Pane

if TYPE_CHECKING:
    from viva_store.records import MemberRecord
    from viva_tui.screens.backend import Backend

T = TypeVar("T")


class StoreNotOpen(RuntimeError):
    """The store is still being opened (a request arrived before it)."""


class ServiceScreen(Screen[None]):
    """A screen that calls the store only from named thread workers.

    Worker groups are named ``<pane>:<what>`` (``triage:page``) so a failure can be
    attributed to its pane. Until the app hands over the opened store
    (:meth:`store_opened`), requests wait and run in order once it is there.
    """

    def __init__(self, member: str | None = None) -> None:
        super().__init__()
        self._backend: Backend | None = None
        self._waiting: list[tuple[str, Callable[[Any], Any], Callable[[Any], Any], bool]] = []
        self.members: list[MemberRecord] = []
        self.member = member

    @property
    def backend(self) -> Backend:
        """The opened store's backend (only inside workers, which start after it opened)."""
        if self._backend is None:
            raise StoreNotOpen("the store is still being opened")
        return self._backend

    def store_opened(self, backend: Backend) -> None:
        """The app opened the store: run what waited for it."""
        self._backend = backend
        waiting, self._waiting = self._waiting, []
        for group, call, done, exclusive in waiting:
            self.run_service(group, call, done, exclusive=exclusive)

    def pane(self, pane_id: str) -> Pane:
        """The pane with this id (it exists once it was first shown)."""
        return self.query_one(f"#{pane_id}", Pane)

    def maybe_pane(self, pane_id: str) -> Pane | None:
        """The pane with this id, or None if it was never shown (panes are made lazily)."""
        found = self.query(f"#{pane_id}")
        return found.first(Pane) if found else None

    def run_service(
        self,
        group: str,
        call: Callable[[Backend], T],
        done: Callable[[T], Message | None],
        *,
        exclusive: bool = True,
    ) -> None:
        """Run ``call(backend)`` in a thread; post ``done(result)`` unless superseded.

        ``exclusive`` cancels the group's earlier worker: its result is then dropped
        (a thread cannot be stopped, but a stale page never reaches a pane).
        """
        if self._backend is None:
            if exclusive:
                self._waiting = [w for w in self._waiting if w[0] != group]
            self._waiting.append((group, call, done, exclusive))
            return
        backend = self._backend

        def work() -> None:
            result = call(backend)
            if not get_current_worker().is_cancelled and (message := done(result)):
                self.post_message(message)

        self.run_worker(
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
        pane = self.maybe_pane(pane_id)
        if isinstance(error, Unavailable) and pane is not None:
            pane.show_unavailable(str(error))
            return
        show = getattr(self.app, "show_error", None)
        if show is not None:
            show(error, worker.group)
        else:  # pragma: no cover - the app always has it
            self.notify(str(error), severity="error")

    def work_ended(self, group: str, state: WorkerState) -> None:
        """A worker of ``group`` finished; flows override this and call ``super()``."""
