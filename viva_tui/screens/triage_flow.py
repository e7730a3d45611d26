"""The triage pane's requests: pages, preview, suggestions, assignments, undo."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.worker import Worker

from viva_tui import keys
from viva_tui.messages import (
    QueueCounted,
    SessionsClassified,
    SuggestionsLoaded,
    TriagePageLoaded,
    TriagePreviewLoaded,
    TriageRefused,
)
from viva_tui.screens.base import ServiceScreen, once_open
from viva_tui.screens.live_flow import OWN_WRITE
from viva_tui.views import TRIAGE_PAGE, Query
from viva_tui.widgets.format import plural
from viva_tui.widgets.sidebar import Sidebar

if TYPE_CHECKING:
    from viva_store.triage.service import Classified, Expected
    from viva_tui.widgets.triage_pane import TriagePane

PAGE = "triage:page"
QUEUED: Expected = ("unattributed", None)


class TriageFlow(ServiceScreen):
    """Feeds :class:`TriagePane` and stores the owner's decisions.

    The pane's module is imported only when the pane is first built, so its requests are
    handled by name (``on_triage_pane_<request>``) rather than with ``@on``.
    """

    undo_stack: list[tuple[dict[str, Expected], str]]
    member_keys: dict[str, str]
    queue_size: int = 0

    def triage_pane(self) -> TriagePane:
        return cast("TriagePane", self.pane("triage"))

    def choose_member_keys(self) -> dict[str, str]:
        """A key per member, avoiding keys the screen and pane already use; a remap by id
        (``triage.assign.<name>``) wins over the chosen letter."""
        keymap = getattr(self.app, "keymap", {})
        reserved = keys.triage_reserved() | {
            k.strip()
            for b in (*keys.SCREEN, *keys.TRIAGE)
            if b.id in keymap
            for k in keymap[b.id].split(",")
        }
        names = [m.name for m in self.members]
        chosen = keys.member_keys(names, reserved)
        for name in names:
            if remap := keymap.get(f"{keys.ASSIGN_PREFIX}{name}"):
                chosen[name] = remap
        return chosen

    # The queue ---------------------------------------------------------------------------

    def on_triage_pane_page_requested(self, message: TriagePane.PageRequested) -> None:
        self.load_triage_page(message.query, message.offset, message.limit)

    @once_open
    @work(thread=True, group=PAGE, exclusive=True, exit_on_error=False)
    def load_triage_page(self, query: Query, offset: int, limit: int = TRIAGE_PAGE) -> None:
        page = self.backend.page(query, offset, limit, status="unattributed", member=None)
        self.answer(TriagePageLoaded(page))

    def on_triage_page_loaded(self, message: TriagePageLoaded) -> None:
        pane = self.triage_pane()
        pane.show_page(message.page)
        known = pane.suggestions
        new = known is None or any(s.id not in known for s in message.page.sessions)
        if message.page.offset == 0 and new:
            # Suggestions cover the whole queue (seconds of work on a large store): they
            # start once the first rows are painted, so their thread does not delay them.
            self.call_after_refresh(self.set_timer, 0.2, self.load_suggestions)

    @on(Worker.StateChanged)
    def _triage_page_not_loaded(self, event: Worker.StateChanged) -> None:
        if self.work_failed(event, PAGE) and (pane := self.maybe_pane("triage")) is not None:
            cast("TriagePane", pane).fetching = False

    @once_open
    @work(thread=True, group="triage:suggest", exclusive=True, exit_on_error=False)
    def load_suggestions(self) -> None:
        """The suggestion for every queued session (in the background)."""
        self.answer(SuggestionsLoaded(self.backend.suggestions()))

    def on_suggestions_loaded(self, message: SuggestionsLoaded) -> None:
        self.triage_pane().set_suggestions(message.suggestions)

    def on_triage_pane_preview_requested(self, message: TriagePane.PreviewRequested) -> None:
        self.load_triage_preview(message.session_id)

    @once_open
    @work(thread=True, group="triage:preview", exclusive=True, exit_on_error=False)
    def load_triage_preview(self, session_id: str) -> None:
        self.answer(TriagePreviewLoaded(self.backend.transcript(session_id)))

    def on_triage_preview_loaded(self, message: TriagePreviewLoaded) -> None:
        self.triage_pane().show_preview(message.transcript)

    # Decisions ---------------------------------------------------------------------------

    def on_triage_pane_assign_requested(self, message: TriagePane.AssignRequested) -> None:
        self.assign_sessions(message.session_ids, message.member)

    def on_triage_pane_pick_requested(self, message: TriagePane.PickRequested) -> None:
        from viva_tui.dialogs.picker import NOBODY, MemberPicker

        ids = message.session_ids

        def chosen(name: str | None) -> None:
            if name is not None:
                self.assign_sessions(ids, None if name == NOBODY else name)

        title = f"Assign {plural(len(ids), 'session')} to…"
        self.app.push_screen(MemberPicker(title, self.members, self.triage_pane().keys), chosen)

    @once_open
    @work(thread=True, group=f"{OWN_WRITE}assign", exclusive=False, exit_on_error=False)
    def assign_sessions(self, ids: Sequence[str], member: str | None) -> None:
        from viva_store.triage.service import SessionChanged  # loaded with the store

        try:
            done = self.backend.assign(ids, member)
        except SessionChanged as refused:
            self.answer(TriageRefused(str(refused)))
            return
        state: Expected = ("attributed", member) if member else ("nobody", None)
        self.answer(self._classified([done], _said(done), state))

    def on_triage_pane_accept_requested(self, message: TriagePane.AcceptRequested) -> None:
        self.accept_suggestions(message.pairs)

    @once_open
    @work(thread=True, group=f"{OWN_WRITE}accept", exclusive=False, exit_on_error=False)
    def accept_suggestions(self, pairs: Sequence[tuple[str, str]]) -> None:
        from viva_store.triage.service import SessionChanged  # loaded with the store

        try:
            results = self.backend.accept(pairs)
        except SessionChanged as refused:
            self.answer(TriageRefused(str(refused)))
            return
        said = "; ".join(_said(r) for r in results)
        self.answer(self._classified(results, f"accepted: {said}", None))

    def _classified(
        self, results: Sequence[Classified], summary: str, state: Expected | None
    ) -> SessionsClassified:
        """What a filing did, with the stamp read right after it (in the worker)."""
        left: dict[str, Expected] = {
            sid: state or ("attributed", r.member) for r in results for sid in r.session_ids
        }
        members = tuple(sorted({r.member for r in results if r.member}))
        ids = tuple(left)
        return SessionsClassified(ids, summary, left, members, self.backend.change_stamp())

    def on_triage_pane_undo_requested(self, message: TriagePane.UndoRequested) -> None:
        if not self.undo_stack:
            self.notify("Nothing to undo.")
            return
        left, what = self.undo_stack.pop()
        self.undo_classification(left, what)

    @once_open
    @work(thread=True, group=f"{OWN_WRITE}undo", exclusive=False, exit_on_error=False)
    def undo_classification(self, left: dict[str, Expected], what: str) -> None:
        from viva_store.triage.service import SessionChanged  # loaded with the store

        try:
            done = self.backend.undo(left)
        except SessionChanged as refused:
            self.answer(TriageRefused(f"cannot undo: {refused}"))
            return
        back = plural(len(done.session_ids), "session")
        summary = f"undone ({what}): {back} back in the queue"
        members = tuple(sorted({m for _, m in left.values() if m}))
        queued = dict.fromkeys(done.session_ids, QUEUED)
        stamp = self.backend.change_stamp()
        self.answer(SessionsClassified(done.session_ids, summary, queued, members, stamp, False))

    def on_sessions_classified(self, message: SessionsClassified) -> None:
        """Only what the filing changed is redrawn: its rows, the queue's count and the
        counts of the members involved (the other suggestions still stand)."""
        self.wrote(message.stamp)
        pane = self.triage_pane()
        if message.undoable:
            self.undo_stack.append((message.left, message.summary))
            pane.remove_sessions(message.session_ids)
            self.queue_size = max(self.queue_size - len(message.session_ids), 0)
        else:
            pane.reload()
            self.queue_size += len(message.session_ids)
        self.show_queue_size()
        self.notify(message.summary, title="Triage")
        self.sessions_changed(message.members)

    def on_triage_refused(self, message: TriageRefused) -> None:
        self.notify(message.reason, title="Not applied", severity="warning", timeout=8)
        self.triage_changed()

    def triage_changed(self) -> None:
        """The queue changed outside this pane: its list, count and suggestions again."""
        if (pane := self.maybe_pane("triage")) is not None and pane.requested:
            cast("TriagePane", pane).reload()
        self.count_queue()

    @once_open
    @work(thread=True, group="triage:count", exclusive=True, exit_on_error=False)
    def count_queue(self) -> None:
        self.answer(QueueCounted(self.backend.queue_size()))

    def on_queue_counted(self, message: QueueCounted) -> None:
        self.queue_size = message.size
        self.show_queue_size()

    def show_queue_size(self) -> None:
        self.query_one(Sidebar).set_badge("triage", str(self.queue_size or ""))

    def sessions_changed(self, members: Sequence[str] | None = None) -> None:
        """Attributions changed (of ``members``; None: any): lists that depend on them
        reload (override, call super)."""


def _said(done: Classified) -> str:
    count = plural(len(done.session_ids), "session")
    if done.action == "nobody":
        return f"{count} marked nobody's"
    if done.action == "unclassify":
        return f"{count} back in the queue"
    return f"{count} filed into {done.member}"
