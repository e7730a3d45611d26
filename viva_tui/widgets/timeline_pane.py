"""Pane 3: one member's experience over time, grouped by day, with search."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Input, OptionList, Select, Static
from textual.widgets.option_list import Option

from viva_store.records import SessionRecord
from viva_tui import keys
from viva_tui.views import Page, Query, SearchResult, TimelineEvent, TimelineEvents, Transcript
from viva_tui.widgets.format import clip, day, local, plural, project_label, when
from viva_tui.widgets.pane import Pane, titled
from viva_tui.widgets.tables import RowList
from viva_tui.widgets.transcript import TranscriptView

NEAR_END = 40
EVENT_STYLE = {"skill": "$decay-curve", "principle": "$approval-needed"}


EVENT_PREVIEW = "A skill or principle event: the row is all there is. Sessions preview here."


def marked(snippet: str, spans: Sequence[tuple[int, int]], width: int) -> Content:
    """``snippet`` with the recall service's match spans in ``$search-hit``, on one line."""
    text = snippet.replace("\n", " ")
    content = Content(text)
    for start, end in spans:
        content = content.stylize("bold reverse $search-hit", start, end)
    return content[:width] if len(text) > width else content


class TimelinePane(Pane):
    """Sessions of one member, newest first, a page at a time, with its events between."""

    DEFAULT_CSS = """
    #timeline-body { height: 1fr; }
    #timeline-list { height: 1fr; }
    #timeline-preview { height: 1fr; border-top: tall $panel; }
    """

    PANE_ID = "timeline"
    TITLE = "Timeline"
    BINDINGS: ClassVar[list[BindingType]] = [*keys.TIMELINE]
    HELP_TEXT = """\
One member's experience over time, newest first and grouped by day: the sessions filed
to it (from every harness), and — when no filter is set — its skill events and principle
decisions between them.

* **Enter** opens the highlighted session's transcript; the right side previews it.
* **f** filters by harness or project; **s** searches the member's experience (the
  recall service ranks by relevance, recency and importance); **Esc** in the search box
  returns to the timeline.
* **m** chooses whose timeline this is (also: Enter in Members, or the command palette).
"""

    @dataclass(eq=False, repr=False)
    class PageRequested(Message):
        """``member``'s sessions from ``offset`` on (offset 0 with the member's events)."""

        member: str
        query: Query
        offset: int

    @dataclass(eq=False, repr=False)
    class PreviewRequested(Message):
        """The cursor rests on a session: its transcript for the preview."""

        session_id: str

    @dataclass(eq=False, repr=False)
    class SearchRequested(Message):
        """Search ``member``'s experience for ``text``."""

        member: str
        text: str

    member: var[str | None] = var(None, init=False)
    """Whose timeline this is (loaded when it changes, once the pane was opened)."""
    searching: var[str | None] = var(None, init=False)
    """The search shown instead of the timeline (None: the timeline)."""
    harnesses: var[tuple[str, ...]] = var((), init=False)
    """What the harness filter offers (known once the store is open)."""

    def __init__(self, harnesses: Sequence[str] = (), member: str | None = None) -> None:
        super().__init__()
        self.set_reactive(TimelinePane.harnesses, tuple(harnesses))
        self.set_reactive(TimelinePane.member, member)
        self.query_now = Query()
        self.loaded = 0
        self.more = False
        self.fetching = False
        self.events: list[TimelineEvent] = []
        self._sessions: dict[str, SessionRecord] = {}
        self._last_day: str | None = None
        self._preview_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(self._title(), id="timeline-title", classes="status")
        with Horizontal(id="timeline-filters", classes="filters"):
            yield Select(
                [(h, h) for h in self.harnesses],
                prompt="any harness",
                id="timeline-harness",
                compact=True,
            )
            yield Input(placeholder="project name", id="timeline-project", compact=True)
            yield Input(placeholder="s: search experience", id="timeline-search", compact=True)
        with Vertical(id="timeline-body"):
            yield titled(RowList(id="timeline-list"), "Experience")
            yield titled(TranscriptView(id="timeline-preview", placeholder=""), "Preview")
        yield Static("", id="timeline-status", classes="status")

    def watch_harnesses(self, harnesses: tuple[str, ...]) -> None:
        self.query_one("#timeline-harness", Select).set_options([(h, h) for h in harnesses])

    def focus_main(self) -> None:
        self.query_one(RowList).focus()

    def request_data(self) -> None:
        if self.member:
            self._request(0)

    def watch_member(self) -> None:
        self.searching = None
        self._retitle()
        if self.requested:
            self._request(0)

    def watch_searching(self) -> None:
        self._retitle()

    def _title(self) -> Content:
        who = self.member or "—"
        mode = f" · search: {self.searching}" if self.searching else ""
        return Content.assemble(("Timeline of ", "bold"), (who, "bold $accent"), mode)

    def _retitle(self) -> None:
        self.query_one("#timeline-title", Static).update(self._title())

    # Pages -------------------------------------------------------------------------------

    def _request(self, offset: int) -> None:
        if self.member is None:
            return
        self.fetching = True
        self.ask(self.PageRequested(self.member, self.query_now, offset))

    def show_first(self, member: str, page: Page, events: TimelineEvents) -> None:
        """The first page with the member's events."""
        if member != self.member or page.query != self.query_now or self.searching:
            return
        self.events = list(events.events) if self.query_now == Query() else []
        listing = self.query_one(RowList)
        was = listing.highlighted
        keep = listing.get_option_at_index(was).id if was is not None else None
        listing.clear_options()
        self.loaded, self._sessions, self._last_day = 0, {}, None
        self._append(page)
        notes = []
        if not page.sessions and not self.events:
            notes.append(f"No sessions are filed to {member} yet (file some in Triage).")
        self._status(notes)
        if listing.option_count:
            ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
            if keep is not None and keep in ids:  # re-read with the store: stay put
                listing.highlighted = ids.index(keep)
                return
            listing.highlighted = next(
                (
                    i
                    for i in range(listing.option_count)
                    if not listing.get_option_at_index(i).disabled
                ),
                None,
            )

    def show_page(self, member: str, page: Page) -> None:
        """A further page (ignored if stale)."""
        if member != self.member or page.query != self.query_now or page.offset != self.loaded:
            return
        self._append(page)
        self._status([])

    def _append(self, page: Page) -> None:
        self.fetching = False
        self.more = page.more
        self.loaded += len(page.sessions)
        oldest = page.sessions[-1].started_at if page.sessions else None
        if page.more and oldest is not None:
            now_events = [e for e in self.events if e.at >= oldest]
        else:
            now_events = list(self.events)
        self.events = [e for e in self.events if e not in now_events]
        entries: list[tuple[Any, object]] = [(s.started_at, s) for s in page.sessions]
        entries += [(e.at, e) for e in now_events]
        entries.sort(key=lambda pair: (pair[0] is not None, pair[0]), reverse=True)
        options: list[Option] = []
        for at, item in entries:
            label = day(at)
            if label != self._last_day:
                self._last_day = label
                options.append(Option(Content.styled(label, "bold"), disabled=True))
            options.append(self._option(item))
        self.query_one(RowList).add_options(options)

    def _option(self, item: object) -> Option:
        if isinstance(item, SessionRecord):
            self._sessions[item.id] = item
            clock = f"{local(item.started_at):%H:%M}" if item.started_at else "--:--"
            return Option(
                Content.assemble(
                    (f"  {clock}  ", "$text-muted"),
                    (f"{item.harness:<12}", "$accent"),
                    (f"{project_label(item.project, item.cwd, 20):<21}", "$text-muted"),
                    # The count before the title: a narrow pane cuts the title, not the count.
                    (f"{plural(item.message_count, 'msg'):>8}  ", "$text-muted"),
                    clip(item.title or "(untitled)", 60),
                ),
                id=f"s:{item.id}",
            )
        assert isinstance(item, TimelineEvent)
        clock = f"{local(item.at):%H:%M}"
        return Option(
            Content.assemble(
                (f"  {clock}  ", "$text-muted"),
                ("· ", EVENT_STYLE.get(item.kind, "")),
                (clip(item.text, 90), EVENT_STYLE.get(item.kind, "")),
            )
        )

    def _status(self, notes: list[str]) -> None:
        count = plural(self.loaded, "session")
        head = f"{count} loaded, more below" if self.more else f"{count}"
        parts = [] if self.searching else [Content.styled(head, "bold")]
        parts += [Content.styled(f"   {n}", "$warning") for n in notes]
        self.query_one("#timeline-status", Static).update(Content("").join(parts))

    # Search ------------------------------------------------------------------------------

    def show_hits(self, member: str, text: str, result: SearchResult) -> None:
        """Recall hits (newest first) in place of the timeline, matches highlighted."""
        if member != self.member or text != self.searching:
            return
        listing = self.query_one(RowList)
        listing.clear_options()
        options = [
            Option(
                Content.assemble(
                    (f"{when(hit.at)}  ", "$text-muted"),
                    (f"{hit.harness:<12}", "$accent"),
                    (f"{clip(hit.title or '(untitled)', 40):<41}", "bold"),
                )
                + marked(hit.snippet, hit.highlights, 90),
                id=f"s:{hit.session_id}",
            )
            for hit in result.hits
        ]
        options += [
            Option(
                Content.assemble((f"{item.kind} ({item.marked})  ", EVENT_STYLE.get(item.kind, "")))
                + marked(item.snippet, item.highlights, 100),
                disabled=True,
            )
            for item in result.items
        ]
        listing.add_options(options)
        found = plural(len(result.hits), "session")
        notes = [f"{found} match “{text}”; esc leaves the search", *result.notes]
        self._status(notes)

    # Reacting ----------------------------------------------------------------------------

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        listing = self.query_one(RowList)
        if (
            not self.searching
            and self.more
            and not self.fetching
            and event.option_index >= listing.option_count - NEAR_END
        ):
            self._request(self.loaded)
        if self._preview_timer is not None:
            self._preview_timer.stop()
        self._preview_timer = self.set_timer(0.15, self._ask_preview)

    def _current_session(self) -> str | None:
        option = self.query_one(RowList).highlighted_option
        if option is None or not option.id or not option.id.startswith("s:"):
            return None
        return option.id[2:]

    def _ask_preview(self) -> None:
        if sid := self._current_session():
            self.ask(self.PreviewRequested(sid))
        elif self.query_one(RowList).highlighted_option is not None:
            self.query_one(TranscriptView).show(None, placeholder=EVENT_PREVIEW)

    def show_preview(self, transcript: Transcript) -> None:
        if transcript.session.id == self._current_session():
            self.query_one(TranscriptView).show(transcript)

    def on_select_changed(self, event: Select.Changed) -> None:
        event.stop()
        self._apply_filters()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "timeline-search":
            text = event.value.strip()
            self.searching = text or None
            if self.member and text:
                self.ask(self.SearchRequested(self.member, text))
            elif self.member:
                self._request(0)
        else:
            self._apply_filters()
        self.focus_main()

    def _apply_filters(self) -> None:
        harness = self.query_one("#timeline-harness", Select).value
        query = Query(
            harness=harness if isinstance(harness, str) else None,
            project=self.query_one("#timeline-project", Input).value.strip() or None,
        )
        if query != self.query_now:
            self.query_now = query
            self.searching = None
            self._request(0)

    def on_key(self, event: Any) -> None:
        if event.key == "escape" and self.searching is not None:
            event.stop()
            self.query_one("#timeline-search", Input).value = ""
            self.searching = None
            self._request(0)
            self.focus_main()

    def action_open(self) -> None:
        if sid := self._current_session():
            self.ask(self.TranscriptRequested(sid))

    def action_export(self) -> None:
        if sid := self._current_session():
            self.ask(self.ExportRequested(sid))

    def action_search(self) -> None:
        self.query_one("#timeline-search", Input).focus()

    def action_filter(self) -> None:
        self.query_one("#timeline-harness", Select).focus()

    def action_choose_member(self) -> None:
        self.ask(self.MemberPickRequested())
