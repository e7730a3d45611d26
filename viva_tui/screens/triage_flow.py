"""The triage pane's requests: pages, preview, suggestions, assignments, undo."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual.worker import WorkerState

from viva_tui import keys
from viva_tui.messages import (
    AcceptRequested,
    AssignRequested,
    PageLoaded,
    PickRequested,
    PreviewLoaded,
    PreviewRequested,
    SessionsClassified,
    SuggestionsLoaded,
    UndoRequested,
)
from viva_tui.screens.base import ServiceScreen
from viva_tui.screens.shapes import TRIAGE_PAGE, Query
from viva_tui.widgets.format import plural
from viva_tui.widgets.sidebar import Sidebar

if TYPE_CHECKING:
    from viva_store.triage.service import Classified
    from viva_tui.widgets.triage_pane import TriagePane


class TriageFlow(ServiceScreen):
    """Feeds :class:`TriagePane` and stores the owner's decisions."""

    undo_stack: list[tuple[tuple[str, ...], str]]
    member_keys: dict[str, str]

    def triage_pane(self) -> TriagePane:
        return cast("TriagePane", self.pane("triage"))

    def triage_roster(self) -> None:
        """Bind a key per member, avoiding keys the screen and pane already use."""
        keymap = getattr(self.app, "keymap", {})
        reserved = keys.triage_reserved() | {
            k.strip()
            for b in (*keys.SCREEN, *keys.TRIAGE)
            if b.id in keymap
            for k in keymap[b.id].split(",")
        }
        names = [m.name for m in self.members]
        chosen = keys.member_keys(names, reserved)
        for name in names:  # a remap by id wins over the chosen letter
            if remap := keymap.get(f"{keys.ASSIGN_PREFIX}{name}"):
                chosen[name] = remap
        self.member_keys = chosen
        if (pane := self.maybe_pane("triage")) is not None:
            cast("TriagePane", pane).set_members(self.members, chosen)

    def load_triage_page(self, query: Query, offset: int) -> None:
        self.run_service(
            "triage:page",
            lambda b: b.page(query, offset, TRIAGE_PAGE, status="unattributed", member=None),
            lambda page: PageLoaded("triage", page),
        )

    def triage_page_shown(self, offset: int) -> None:
        """Suggestions cover the whole queue (seconds of work on a large store): they start
        once the first rows are painted, so their thread does not delay that frame."""
        if offset == 0:
            self.call_after_refresh(self.set_timer, 0.2, self.load_suggestions)

    def load_suggestions(self) -> None:
        """The suggestion for every queued session (in the background)."""
        self.run_service("triage:suggest", lambda b: b.suggestions(), SuggestionsLoaded)

    def on_suggestions_loaded(self, message: SuggestionsLoaded) -> None:
        self.triage_pane().set_suggestions(message.suggestions)
        self.query_one(Sidebar).set_badge("triage", str(len(message.suggestions) or ""))

    def on_preview_requested(self, message: PreviewRequested) -> None:
        sid, pane = message.session_id, message.pane
        self.run_service(
            f"{pane}:preview",
            lambda b: b.transcript(sid),
            lambda transcript: PreviewLoaded(transcript, pane),
        )

    # Decisions ---------------------------------------------------------------------------

    def on_assign_requested(self, message: AssignRequested) -> None:
        ids, member = message.session_ids, message.member
        self.run_service(
            "triage:assign",
            lambda b: b.assign(ids, member),
            lambda done: SessionsClassified(done.session_ids, _said(done)),
            exclusive=False,
        )

    def on_pick_requested(self, message: PickRequested) -> None:
        from viva_tui.dialogs.picker import NOBODY, MemberPicker

        ids = message.session_ids
        pane = self.triage_pane()

        def chosen(name: str | None) -> None:
            if name is not None:
                self.post_message(AssignRequested(ids, None if name == NOBODY else name))

        title = f"Assign {plural(len(ids), 'session')} to…"
        self.app.push_screen(MemberPicker(title, self.members, pane.keys), chosen)

    def on_accept_requested(self, message: AcceptRequested) -> None:
        pairs = message.pairs

        def done(results: list[Classified]) -> SessionsClassified:
            ids = tuple(sid for r in results for sid in r.session_ids)
            said = "; ".join(_said(r) for r in results)
            return SessionsClassified(ids, f"accepted: {said}")

        self.run_service("triage:accept", lambda b: b.accept(pairs), done, exclusive=False)

    def on_undo_requested(self, message: UndoRequested) -> None:
        if not self.undo_stack:
            self.notify("Nothing to undo.")
            return
        ids, what = self.undo_stack.pop()
        self.run_service(
            "triage:undo",
            lambda b: b.undo(ids),
            lambda done: SessionsClassified(
                done.session_ids,
                f"undone ({what}): {plural(len(done.session_ids), 'session')} back in the queue",
                undoable=False,
            ),
            exclusive=False,
        )

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

    def work_ended(self, group: str, state: WorkerState) -> None:
        if group == "triage:page" and state != WorkerState.SUCCESS:
            self.triage_pane().fetching = False
        super().work_ended(group, state)


def _said(done: Classified) -> str:
    count = plural(len(done.session_ids), "session")
    if done.action == "nobody":
        return f"{count} marked nobody's"
    if done.action == "unclassify":
        return f"{count} back in the queue"
    return f"{count} filed into {done.member}"
