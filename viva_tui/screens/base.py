"""What every flow of the main screen shares: the backend, the store's opening, errors,
and the transcript dialog (opened from Triage, Timeline and Principles alike).

Each flow answers a pane's request in a named ``@work(thread=True, ...)`` method whose
group, ``<pane>:<what>`` (``triage:page``), says in an error's title what failed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial, wraps
from typing import TYPE_CHECKING, Concatenate, ParamSpec, TypeVar

from textual import on, work
from textual.message import Message
from textual.screen import Screen
from textual.worker import Worker, WorkerState, get_current_worker

from viva_tui.messages import TranscriptLoaded
from viva_tui.views import TRANSCRIPT_MESSAGES
from viva_tui.widgets.pane import Pane

if TYPE_CHECKING:
    from viva_store.records import MemberRecord
    from viva_store.store import ChangeStamp
    from viva_tui.screens.backend import Backend

P = ParamSpec("P")
S = TypeVar("S", bound="ServiceScreen")


class StoreNotOpen(RuntimeError):
    """The store is still being opened (a worker started before it)."""


def once_open(method: Callable[Concatenate[S, P], object]) -> Callable[Concatenate[S, P], None]:
    """Start the worker ``method`` now if the store is open, else as soon as it is.

    Requests that arrive while the store opens wait and start in the order they came;
    an exclusive worker started later still cancels an earlier one of its group.
    """

    @wraps(method)
    def start(screen: S, /, *args: P.args, **kwargs: P.kwargs) -> None:
        if screen.store_is_open:
            method(screen, *args, **kwargs)
        else:
            screen.waiting.append(partial(method, screen, *args, **kwargs))

    return start


class ServiceScreen(Screen[None]):
    """A screen that calls the store only from named thread workers."""

    def __init__(self, member: str | None = None) -> None:
        super().__init__()
        self._backend: Backend | None = None
        self.waiting: list[Callable[[], object]] = []
        self.members: list[MemberRecord] = []
        self.member = member

    @property
    def store_is_open(self) -> bool:
        """Whether the app has handed over the opened store."""
        return self._backend is not None

    @property
    def backend(self) -> Backend:
        """The opened store's backend (only inside workers, which start after it opened)."""
        if self._backend is None:
            raise StoreNotOpen("the store is still being opened")
        return self._backend

    def store_opened(self, backend: Backend) -> None:
        """The app opened the store: start what waited for it."""
        self._backend = backend
        waiting, self.waiting = self.waiting, []
        for start in waiting:
            start()

    def wrote(self, stamp: ChangeStamp) -> None:
        """The app's own write left the store at ``stamp`` (the live flow's baseline)."""

    def pane(self, pane_id: str) -> Pane:
        """The pane with this id (it exists once it was first shown)."""
        return self.query_one(f"#{pane_id}", Pane)

    def maybe_pane(self, pane_id: str) -> Pane | None:
        """The pane with this id, or None if it was never built (panes are made lazily)."""
        found = self.query(f"#{pane_id}")
        return found.first(Pane) if found else None

    def answer(self, message: Message) -> None:
        """Post a worker's result, unless a newer request of its group superseded it
        (a thread cannot be stopped, but a stale page never reaches a pane)."""
        if not get_current_worker().is_cancelled:
            self.post_message(message)

    # Transcripts ---------------------------------------------------------------------

    @on(Pane.TranscriptRequested)
    def _transcript_requested(self, message: Pane.TranscriptRequested) -> None:
        self.open_transcript(message.session_id)

    @once_open
    @work(thread=True, group="transcript:open", exclusive=True, exit_on_error=False)
    def open_transcript(self, session_id: str, at_seq: int | None = None) -> None:
        """A session's whole transcript and its linked sessions, shown in a dialog (at
        message ``at_seq`` if given)."""
        transcript = self.backend.transcript(session_id, TRANSCRIPT_MESSAGES, links=True)
        self.answer(TranscriptLoaded(transcript, at_seq))

    def open_cited(self, refs: Sequence[str]) -> None:
        """Open the one session a decision cites, or ask which of several."""
        choices = list(dict.fromkeys(refs))
        if len(choices) == 1:
            self.open_transcript(choices[0])
            return
        from viva_tui.dialogs.choice import ChoiceModal

        def chosen(ref: str | None) -> None:
            if ref:
                self.open_transcript(ref)

        self.app.push_screen(
            ChoiceModal("Open which cited session?", [(r, r) for r in choices]), chosen
        )

    def on_transcript_loaded(self, message: TranscriptLoaded) -> None:
        from viva_tui.dialogs.transcript import TranscriptDialog

        self.app.push_screen(TranscriptDialog(message.transcript, message.at_seq))

    @on(Worker.StateChanged)
    def _show_worker_error(self, event: Worker.StateChanged) -> None:
        """The one handler for errors of background work: shown, never a crash."""
        worker = event.worker
        if event.state != WorkerState.ERROR or worker.error is None:
            return
        show = getattr(self.app, "show_error", None)
        if show is not None:
            show(worker.error, worker.group)
        else:  # pragma: no cover - the app always has it
            self.notify(str(worker.error), severity="error")

    def work_failed(self, event: Worker.StateChanged, group: str) -> bool:
        """Whether ``event`` says a worker of ``group`` ended without its result."""
        ended = event.state in (WorkerState.ERROR, WorkerState.CANCELLED)
        return ended and event.worker.group == group
