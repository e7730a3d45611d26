"""Keeping the screen live: changes written outside the app appear without a key press.

A timer polls the store's change stamp (one cheap query) in a thread worker; the areas
whose marks grew since the last stamp are handed to :meth:`LiveFlow.store_changed`,
which the main screen answers by re-reading only what shows them. The app's own writes
fold the stamp read right after them into the baseline, so they are not read twice; a
poll that lands while one is under way is left out, or it would take the app's own write
for someone else's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual import on, work
from textual.worker import Worker, WorkerState

from viva_tui.messages import StoreStamped
from viva_tui.screens.base import ServiceScreen

if TYPE_CHECKING:
    from textual.timer import Timer

    from viva_store.store import ChangeStamp
    from viva_tui.screens.backend import Backend

POLL_SECONDS = 0.8
"""How often the store is asked what changed (an outside write shows within 2 s)."""
EVERY_AREA = frozenset(("sessions", "triage", "skills", "principles", "engagement", "members"))
OWN_WRITE = "write:"
"""The group prefix of a worker that writes and hands the stamp read after it to
:meth:`LiveFlow.wrote`."""


class LiveFlow(ServiceScreen):
    """Polls the store and re-reads what changed; ``ctrl+l``/``F5`` re-reads everything."""

    stamp: ChangeStamp | None = None
    watch_timer: Timer | None = None
    """The poll's timer (running once the store is open)."""
    writing: frozenset[Worker[Any]] = frozenset()
    """The app's own writes under way (their workers' state changes, in order with their
    results)."""

    def store_opened(self, backend: Backend) -> None:
        super().store_opened(backend)
        self.read_stamp(baseline=True)
        self.watch_timer = self.set_interval(POLL_SECONDS, self.read_stamp)

    @work(thread=True, group="store:watch", exclusive=True, exit_on_error=False)
    def read_stamp(self, baseline: bool = False) -> None:
        self.answer(StoreStamped(self.backend.change_stamp(), baseline))

    @on(Worker.StateChanged)
    def _track_own_writes(self, event: Worker.StateChanged) -> None:
        if not event.worker.group.startswith(OWN_WRITE):
            return
        if event.state in (WorkerState.PENDING, WorkerState.RUNNING):
            self.writing |= {event.worker}
        else:
            self.writing -= {event.worker}

    def on_store_stamped(self, message: StoreStamped) -> None:
        if getattr(self, "importing", False):
            return  # the app's own import: it re-reads what it changed when it ends
        if self.writing and not message.baseline:
            return  # the app's own write: its stamp comes with its result
        earlier = self.stamp
        self.stamp = message.stamp if earlier is None else earlier.merged(message.stamp)
        if message.baseline or earlier is None:
            return
        changed = message.stamp.changed_since(earlier)
        if changed:
            self.store_changed(changed)

    def wrote(self, stamp: ChangeStamp) -> None:
        """The app's own write left the store at ``stamp`` (read in the writing worker)."""
        self.stamp = stamp if self.stamp is None else self.stamp.merged(stamp)

    def action_reload(self) -> None:
        """Read everything on screen again."""
        self.store_changed(EVERY_AREA)
        self.notify("Reloaded from the store.")

    def store_changed(self, areas: frozenset[str]) -> None:
        """Re-read what shows ``areas`` (override in the main screen)."""
