"""The owner's search over every session — unattributed ones too — through recall.

Words, and filters for harness, project, member and date (``7d``, ``2026-05-01``: what
``--since`` takes); Enter in any field searches, Enter on a hit opens its session at the
hit's message. The screen under the dialog runs the search (dialogs do not call the store).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import Input, OptionList, Static
from textual.widgets.option_list import Option

from viva_store.recall.service import RecallHit
from viva_tui.dialogs.base import Dialog
from viva_tui.views import ArchiveQuery, SearchResult
from viva_tui.widgets.format import when
from viva_tui.widgets.timeline_pane import marked

FILTERS = (
    ("harness", "harness"),
    ("project", "project or cwd"),
    ("member", "member"),
    ("since", "since: 7d, date"),
)
SNIPPET_WIDTH = 96


@dataclass(frozen=True, slots=True)
class Opened:
    """The hit chosen: its session and message (None: the title matched)."""

    session_id: str
    seq: int | None


class SearchDialog(Dialog[Opened | None]):
    """Search every session; dismisses with the hit to open, or None."""

    DEFAULT_CSS = """
    SearchDialog #search-filters { height: auto; margin-top: 1; }
    SearchDialog #search-filters Input { width: 1fr; margin-right: 1; }
    SearchDialog #search-hits {
        height: 1fr; max-height: 100%; margin-top: 1;
        text-wrap: nowrap; text-overflow: ellipsis;
    }
    SearchDialog #search-notes { color: $text-muted; height: auto; }
    /* 24 rows: a one-line search field and no gaps, so several hits stay in view. */
    SearchDialog.-short #search-text { border: none; height: 1; padding: 0 1; }
    SearchDialog.-short .dialog-title { margin-bottom: 0; }
    SearchDialog.-short #search-hits { margin-top: 0; }
    SearchDialog.-short .dialog-hint { margin-top: 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Close", id="search.close", tooltip="Back to the pane"),
        Binding("down", "hits", "Hits", id="search.hits", tooltip="To the hits", show=False),
    ]

    @dataclass(eq=False, repr=False)
    class Requested(Message):
        """Search every session for ``query``."""

        query: ArchiveQuery

    def __init__(self, query: ArchiveQuery | None = None) -> None:
        super().__init__(classes="dialog")
        self.query_shown = query or ArchiveQuery("")
        self.hits: tuple[RecallHit, ...] = ()

    def compose(self) -> ComposeResult:
        q = self.query_shown
        with Vertical(classes="dialog-box full"):
            yield Static(Content.styled("Search every session", "bold"), classes="dialog-title")
            yield Input(q.text, placeholder="words to search for", id="search-text")
            with Horizontal(id="search-filters"):
                for name, label in FILTERS:
                    value = getattr(q, name)
                    yield Input(value, placeholder=label, id=f"search-{name}", compact=True)
            yield Static("", id="search-notes")
            yield OptionList(id="search-hits")
            yield Static(
                Content.styled(
                    "enter searches · ↓ hits · enter opens at the message · esc closes",
                    "$text-muted",
                ),
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one("#search-text", Input).focus()

    def current_query(self) -> ArchiveQuery:
        """What the fields hold."""
        values = {
            name: self.query_one(f"#search-{name}", Input).value.strip() for name, _ in FILTERS
        }
        return ArchiveQuery(self.query_one("#search-text", Input).value.strip(), **values)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        query = self.current_query()
        if not query.text:
            self.query_one("#search-notes", Static).update("type a word to search for")
            return
        self.query_one("#search-notes", Static).update("searching…")
        self.app.screen_stack[0].post_message(self.Requested(query))

    def show_hits(self, text: str, result: SearchResult) -> None:
        """Show what the search for ``text`` found, best first."""
        if text != self.current_query().text:
            return  # an older search's answer
        self.hits = result.hits
        listing = self.query_one("#search-hits", OptionList)
        listing.clear_options()
        listing.add_options([self._option(n, hit) for n, hit in enumerate(result.hits)])
        found = f"{len(result.hits)} session{'s' if len(result.hits) != 1 else ''} match “{text}”"
        self.query_one("#search-notes", Static).update("; ".join([found, *result.notes]))
        if result.hits:
            listing.highlighted = 0

    def _option(self, n: int, hit: RecallHit) -> Option:
        owner = hit.member or hit.status
        where = f"msg {hit.seq}" if hit.kind == "message" else "title"
        head = Content.assemble(
            (f"{when(hit.at)}  ", "$text-muted"),
            (hit.title or "(untitled)", "bold"),
            (f"  {hit.harness} · {hit.project or 'no project'} · {owner} · {where}", "$text-muted"),
        )
        return Option(
            Content("\n").join([head, marked(hit.snippet, hit.highlights, SNIPPET_WIDTH)]),
            id=str(n),
        )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        hit = self.hits[int(event.option.id or 0)]
        self.dismiss(Opened(hit.session_id, hit.seq if hit.kind == "message" else None))

    def action_hits(self) -> None:
        listing = self.query_one("#search-hits", OptionList)
        if listing.option_count:
            listing.focus()

    def action_cancel(self) -> None:
        self.dismiss(None)
