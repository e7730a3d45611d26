"""The triage pane's requests: pages, preview, suggestions, assignments, undo."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, cast

from textual import on, work
from textual.worker import Worker

from viva_tui import keys
from viva_tui.messages import (
    SessionsClassified,
    SuggestionsLoaded,
    TriagePageLoaded,
    TriagePreviewLoaded,
)
from viva_tui.screens.base import ServiceScreen, once_open
from viva_tui.views import TRIAGE_PAGE, Query
from viva_tui.widgets.format import plural
from viva_tui.widgets.sidebar import Sidebar

if TYPE_CHECKING:
    from viva_store.triage.service import Classified
    from viva_tui.widgets.triage_pane import TriagePane

PAGE = "triage:page"


class TriageFlow(ServiceScreen):
    """Feeds :class:`TriagePane` and stores the owner's decisions.

    The pane's module is imported only when the pane is first built, so its requests are
    handled by name (``on_triage_pane_<request>``) rather than with ``@on``.
    """

    undo_stack: list[tuple[tuple[str, ...], str]]
    member_keys: dict[str, str]

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
        self.load_triage_page(message.query, message.offset)

    @once_open
    @work(thread=True, group=PAGE, exclusive=True, exit_on_error=False)
    def load_triage_page(self, query: Query, offset: int) -> None:
        page = self.backend.page(query, offset, TRIAGE_PAGE, status="unattributed", member=None)
        self.answer(TriagePageLoaded(page))

    def on_triage_page_loaded(self, message: TriagePageLoaded) -> None:
        self.triage_pane().show_page(message.page)
        if message.page.offset == 0:
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
        self.query_one(Sidebar).set_badge("triage", str(len(message.suggestions) or ""))

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
    @work(thread=True, group="triage:assign", exclusive=False, exit_on_error=False)
    def assign_sessions(self, ids: Sequence[str], member: str | None) -> None:
        done = self.backend.assign(ids, member)
        self.answer(SessionsClassified(done.session_ids, _said(done)))

    def on_triage_pane_accept_requested(self, message: TriagePane.AcceptRequested) -> None:
        self.accept_suggestions(message.pairs)

    @once_open
    @work(thread=True, group="triage:accept", exclusive=False, exit_on_error=False)
    def accept_suggestions(self, pairs: Sequence[tuple[str, str]]) -> None:
        results = self.backend.accept(pairs)
        ids = tuple(sid for r in results for sid in r.session_ids)
        said = "; ".join(_said(r) for r in results)
        self.answer(SessionsClassified(ids, f"accepted: {said}"))

    def on_triage_pane_undo_requested(self, message: TriagePane.UndoRequested) -> None:
        if not self.undo_stack:
            self.notify("Nothing to undo.")
            return
        ids, what = self.undo_stack.pop()
        self.undo_classification(ids, what)

    @once_open
    @work(thread=True, group="triage:undo", exclusive=False, exit_on_error=False)
    def undo_classification(self, ids: Sequence[str], what: str) -> None:
        done = self.backend.undo(ids)
        back = plural(len(done.session_ids), "session")
        summary = f"undone ({what}): {back} back in the queue"
        self.answer(SessionsClassified(done.session_ids, summary, undoable=False))

    def on_sessions_classified(self, message: SessionsClassified) -> None:
        pane = self.triage_pane()
        if message.undoable:
            self.undo_stack.append((message.session_ids, message.summary))
            pane.remove_sessions(message.session_ids)
        else:
            pane.reload()
        self.notify(message.summary, title="Triage")
        self.load_suggestions()
        self.sessions_changed()

    def sessions_changed(self) -> None:
        """Attributions changed: lists that depend on them reload (override, call super)."""


def _said(done: Classified) -> str:
    count = plural(len(done.session_ids), "session")
    if done.action == "nobody":
        return f"{count} marked nobody's"
    if done.action == "unclassify":
        return f"{count} back in the queue"
    return f"{count} filed into {done.member}"
