"""Pane 2: the triage queue — paged list, filters, preview, one key per member."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Input, Select, Static

from viva_store.records import SessionRecord
from viva_tui import keys
from viva_tui.views import TRIAGE_PAGE, Page, Query, Transcript
from viva_tui.widgets.cursor import row_to_keep, survivor
from viva_tui.widgets.format import plural, suggestion_cell
from viva_tui.widgets.pane import titled
from viva_tui.widgets.tables import RowTable
from viva_tui.widgets.transcript import TranscriptView
from viva_tui.widgets.triage_columns import Column, columns_for, row_cells
from viva_tui.widgets.triage_filters import FilteredQueue

if TYPE_CHECKING:
    from viva_store.triage.service import Suggestion

NEAR_END = 25
SIDEBAR_WIDTH = 20
BORDER = 2
PREVIEW_DELAY = 0.15


class TriagePane(FilteredQueue):
    """Unattributed sessions, newest first, loaded a page at a time as the cursor nears
    the end (the store may hold tens of thousands).

    Build it with :meth:`for_roster`: its one-key-per-member bindings belong to the class.
    """

    DEFAULT_CSS = """
    #triage-body { height: 1fr; }
    #triage-table { height: 1fr; }
    #triage-preview { height: 1fr; }
    """

    PANE_ID = "triage"
    TITLE = "Triage"
    BINDINGS: ClassVar[list[BindingType]] = [*keys.TRIAGE]
    HELP_TEXT = """\
Sessions recovered from the harnesses that no execution record attributes: each waits
here until you file it into one member's experience, or mark it as nobody's. Viva never
files a session by itself.

* The **letter** shown beside each member (status line) assigns the highlighted session
  — or every **marked** one (space marks) — to that member. **m** opens a list instead.
* **suggested** is Viva's guess from the sessions you filed before, with its confidence;
  **y** accepts it. A muted guess is below the confidence threshold and is not offered.
* **u** undoes the last action (the sessions go back to the queue; the log keeps both).
* **f** filters by harness, project, or text in the title. **Enter** opens the transcript;
  the preview on the right shows its start with tool calls folded (**z** unfolds).
* **i** imports new sessions from every harness; a progress bar shows while it runs.
"""

    @dataclass(eq=False, repr=False)
    class PageRequested(Message):
        """The queue from ``offset`` on, narrowed by ``query``."""

        query: Query
        offset: int
        limit: int = TRIAGE_PAGE

    @dataclass(eq=False, repr=False)
    class PreviewRequested(Message):
        """The cursor rests on a session: its transcript for the preview."""

        session_id: str

    @dataclass(eq=False, repr=False)
    class AssignRequested(Message):
        """File these sessions into ``member``'s experience (None: nobody's)."""

        session_ids: tuple[str, ...]
        member: str | None

    @dataclass(eq=False, repr=False)
    class PickRequested(Message):
        """Ask the owner which member these sessions belong to, then assign."""

        session_ids: tuple[str, ...]

    @dataclass(eq=False, repr=False)
    class AcceptRequested(Message):
        """Accept the suggestions: ``(session id, member)`` pairs."""

        pairs: tuple[tuple[str, str], ...]

    class UndoRequested(Message):
        """Undo the last triage action."""

    marked: var[frozenset[str]] = var(frozenset(), init=False)
    """The sessions marked for a bulk assignment (their cells and the status follow)."""
    harnesses: var[tuple[str, ...]] = var((), init=False)
    """What the harness filter offers (known once the store is open)."""

    @classmethod
    def for_roster(cls, member_keys: Mapping[str, str], harnesses: Sequence[str]) -> TriagePane:
        """A pane whose class binds one key per member (ids ``triage.assign.<name>``,
        remappable by id like every other binding)."""
        bindings = {"BINDINGS": keys.member_bindings(member_keys)}
        pane_class = cast("type[TriagePane]", type(cls.__name__, (cls,), bindings))
        return pane_class(member_keys, harnesses)

    def __init__(
        self, member_keys: Mapping[str, str] | None = None, harnesses: Sequence[str] = ()
    ) -> None:
        super().__init__()
        self.keys = dict(member_keys or {})
        self.set_reactive(TriagePane.harnesses, tuple(harnesses))
        self.order: list[str] = []
        self.sessions: dict[str, SessionRecord] = {}
        self.more = False
        self.fetching = False
        self.suggestions: dict[str, Suggestion] | None = None
        self._preview_timer: Timer | None = None
        self.columns: tuple[Column, ...] = ()
        self._keep: tuple[str, int] | None = None  # the cursor's session and row at a reload

    def compose(self) -> ComposeResult:
        with Horizontal(id="triage-filters", classes="filters"):
            yield Select(
                [(h, h) for h in self.harnesses],
                prompt="any harness",
                id="triage-harness",
                compact=True,
            )
            yield Input(placeholder="project name", id="triage-project", compact=True)
            yield Input(placeholder="f: title or project", id="triage-text", compact=True)
        with Vertical(id="triage-body"):
            yield titled(RowTable(id="triage-table"), "Queue")
            yield titled(TranscriptView(id="triage-preview", placeholder="Loading…"), "Preview")
        yield Static("", id="triage-status", classes="status")

    def on_mount(self) -> None:
        self._lay_out((self.size.width or self.app.size.width - SIDEBAR_WIDTH) - BORDER)
        self._status()

    def request_data(self) -> None:
        self._request(0)

    def watch_harnesses(self, harnesses: tuple[str, ...]) -> None:
        self.query_one("#triage-harness", Select).set_options([(h, h) for h in harnesses])

    def focus_main(self) -> None:
        self.query_one(RowTable).focus()

    # Showing what the screen loaded ------------------------------------------------------

    def show_page(self, page: Page) -> None:
        """Append a page (offset 0 replaces the list); stale pages are ignored."""
        if page.query != self.query_now or (page.offset and page.offset != len(self.order)):
            return
        table = self.query_one(RowTable)
        if page.offset == 0:
            table.clear()
            self.order, self.sessions = [], {}
        self.fetching = False
        self.more = page.more
        for s in page.sessions:
            if s.id in self.sessions:
                continue
            self.order.append(s.id)
            self.sessions[s.id] = s
            table.add_row(*self._cells(s), key=s.id)
        table.rows_added()
        self.marked &= set(self.sessions)
        if page.offset == 0:
            self._after_reset()
        self._status()

    def _after_reset(self) -> None:
        preview = self.query_one(TranscriptView)
        if not self.order:
            filtered = self.query_now != Query()
            preview.show(
                None,
                "Nothing matches these filters."
                if filtered
                else "The triage queue is empty. Press i to import sessions from the harnesses.",
            )
        else:
            keep, self._keep = self._keep, None
            row = row_to_keep(self.order, *keep) if keep else 0
            self.query_one(RowTable).move_cursor(row=row)
            self._schedule_preview()

    def show_preview(self, transcript: Transcript) -> None:
        """Draw the transcript of the highlighted session (if it still is)."""
        if transcript.session.id == self.current():
            self.query_one(TranscriptView).show(transcript)

    def set_suggestions(self, suggestions: Mapping[str, Suggestion]) -> None:
        """Fill the "suggested" column."""
        self.suggestions = dict(suggestions)
        table = self.query_one(RowTable)
        for sid in self.order:
            table.update_cell(sid, "suggested", self._suggestion_cell(sid))
        self._status()

    def remove_sessions(self, ids: Sequence[str]) -> None:
        """Take filed sessions out of the list; the cursor stays on the session it was on,
        or moves to the next one still in the list (else the one before)."""
        table = self.query_one(RowTable)
        gone = set(ids)
        stay = survivor(self.order, self.current(), gone)
        for sid in ids:
            if sid in self.sessions:
                table.remove_row(sid)
                del self.sessions[sid]
        self.order = [sid for sid in self.order if sid not in gone]
        self.marked -= gone
        if self.order:
            table.move_cursor(row=self.order.index(stay) if stay in self.sessions else 0)
            self._schedule_preview()
            self._maybe_more(table.cursor_row)
        else:
            self._after_reset()
            if self.more:
                self._request(0)
        self._status()

    def reload(self) -> None:
        """Read the list again as far as it was loaded, keeping the cursor's session."""
        sid = self.current()
        if sid is not None:
            self._keep = (sid, self.query_one(RowTable).cursor_row)
        self._request(0, max(TRIAGE_PAGE, len(self.order)))

    # Cells and status --------------------------------------------------------------------

    def _cells(self, s: SessionRecord) -> tuple[object, ...]:
        return row_cells(s, self.columns, self._mark_cell(s.id), self._suggestion_cell(s.id))

    def on_resize(self) -> None:
        self._lay_out(self.size.width - BORDER)

    def _lay_out(self, width: int) -> None:
        """Choose the columns for ``width`` (the rows are redrawn if they change)."""
        columns = columns_for(width)
        if columns == self.columns:
            return
        self.columns = columns
        table = self.query_one(RowTable)
        row = table.cursor_row
        table.clear(columns=True)
        table.add_fixed_columns(columns)
        for sid in self.order:
            table.add_row(*self._cells(self.sessions[sid]), key=sid)
        table.rows_added()
        if self.order:
            table.move_cursor(row=min(max(row, 0), len(self.order) - 1))

    def _mark_cell(self, sid: str) -> Text:
        return Text("●", style="bold") if sid in self.marked else Text(" ")

    def _suggestion_cell(self, sid: str) -> Text:
        if self.suggestions is None:
            return Text("…", style="dim")
        return suggestion_cell(self.suggestions.get(sid))

    def _status(self) -> None:
        loaded = plural(len(self.order), "session")
        head = f"{loaded} loaded, more below" if self.more else f"{loaded} in view"
        if self.marked:
            head += f" · {len(self.marked)} marked"
        legend = " · ".join(f"{k} {n}" for n, k in self.keys.items())
        parts = [Content.styled(head, "bold $triage-pending")]
        if legend:
            parts.append(Content.assemble("   assign: ", (legend, "bold")))
        self.query_one("#triage-status", Static).update(Content("").join(parts))

    # Reacting to the owner ----------------------------------------------------------------

    def current(self) -> str | None:
        """The highlighted session's id."""
        return self.query_one(RowTable).current_key

    def targets(self) -> tuple[str, ...]:
        """The marked sessions (in list order), else the highlighted one."""
        if self.marked:
            return tuple(sid for sid in self.order if sid in self.marked)
        sid = self.current()
        return (sid,) if sid else ()

    def on_data_table_row_highlighted(self, event: RowTable.RowHighlighted) -> None:
        event.stop()
        self._schedule_preview()
        self._maybe_more(event.cursor_row)

    def _maybe_more(self, row: int) -> None:
        if self.more and not self.fetching and row >= len(self.order) - NEAR_END:
            self._request(len(self.order))

    def _request(self, offset: int, limit: int = TRIAGE_PAGE) -> None:
        self.fetching = True
        self.ask(self.PageRequested(self.query_now, offset, limit))

    def _schedule_preview(self) -> None:
        if self._preview_timer is not None:
            self._preview_timer.stop()
        self._preview_timer = self.set_timer(PREVIEW_DELAY, self._ask_preview)

    def _ask_preview(self) -> None:
        sid = self.current()
        if sid:
            self.ask(self.PreviewRequested(sid))

    def watch_marked(self, old: frozenset[str], new: frozenset[str]) -> None:
        table = self.query_one(RowTable)
        for sid in old ^ new:
            if sid in self.sessions:  # a filed session has left the table already
                table.update_cell(sid, "mark", self._mark_cell(sid))
        self._status()

    def action_mark(self) -> None:
        sid = self.current()
        if sid is None:
            return
        self.marked ^= {sid}
        self.query_one(RowTable).action_cursor_down()

    def action_unmark_all(self) -> None:
        if not self.query_one(RowTable).has_focus:
            self.focus_main()  # escape leaves the filters first
            return
        self.marked = frozenset()

    def action_assign(self, member: str) -> None:
        if ids := self.targets():
            self.ask(self.AssignRequested(ids, member))

    def action_nobody(self) -> None:
        if ids := self.targets():
            self.ask(self.AssignRequested(ids, None))

    def action_pick_member(self) -> None:
        if ids := self.targets():
            self.ask(self.PickRequested(ids))

    def action_accept(self) -> None:
        ids = self.targets()
        if not ids:
            return
        if self.suggestions is None:
            self.notify("Suggestions are still being computed.", severity="warning")
            return
        pairs = [(sid, s.member) for sid in ids if (s := self.suggestions.get(sid)) and s.member]
        if not pairs:
            reason = self.suggestions.get(ids[0])
            why = reason.reason if reason else "no suggestion"
            self.notify(f"Nothing to accept: {why}.", severity="warning")
            return
        self.ask(self.AcceptRequested(tuple((sid, m) for sid, m in pairs if m)))

    def action_undo(self) -> None:
        self.ask(self.UndoRequested())

    def action_filter(self) -> None:
        self.query_one("#triage-text", Input).focus()

    def action_open(self) -> None:
        if sid := self.current():
            self.ask(self.TranscriptRequested(sid))

    def action_fold(self) -> None:
        self.query_one(TranscriptView).toggle_fold()
