"""Pane 1: the team — roster with counts, and the selected member's ``soul.md``."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Markdown, Static

from viva_tui import keys
from viva_tui.messages import MemberChosen
from viva_tui.screens.backend import MemberRow
from viva_tui.widgets.format import when
from viva_tui.widgets.pane import Pane
from viva_tui.widgets.tables import RowTable

COLUMNS = ("member", "role", "engine", "harnesses", "sessions", "skills", "principles", "last")


def _count(value: int | None, counted: bool) -> str:
    if not counted:
        return "…"
    return "n/a" if value is None else str(value)


class MembersPane(Pane):
    """The roster (coordinator first) and the highlighted member's soul."""

    PANE_ID = "members"
    TITLE = "Members"
    BINDINGS = keys.MEMBERS
    HELP_TEXT = """\
The team Viva holds. Each member is data: identity (role, engine, harnesses),
experience (the sessions filed to it), a skill set with weights and principles
the owner approved.

* **sessions** — sessions attributed to the member (by an execution record or by you).
* **skills** — skills in its set that are not forgotten; **principles** — active ones.
* **n/a** means that part of Viva is not in this build yet.

The right side renders the member's `soul.md`. **Enter** makes the highlighted member
the one the Timeline and Skills panes show.
"""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[MemberRow] = []

    def compose(self) -> ComposeResult:
        yield RowTable(id="members-table", zebra_stripes=True)
        with VerticalScroll(id="soul"):
            yield Static("", id="soul-title")
            yield Markdown("", id="soul-body")

    def on_mount(self) -> None:
        table = self.query_one(RowTable)
        for col in COLUMNS:
            table.add_column(col, key=col)

    def show_members(self, rows: list[MemberRow], counted: bool) -> None:
        """Fill the roster; ``counted`` False shows … where counts will come."""
        self.rows = rows
        table = self.query_one(RowTable)
        keep = table.cursor_row
        table.clear()
        for row in rows:
            m = row.member
            name = Text(m.display_name, style="bold")
            if m.coordinator:
                name.append(" (coordinator)", style="italic")
            table.add_row(
                name,
                m.role,
                m.engine,
                ", ".join(m.harnesses),
                _count(row.sessions, counted),
                _count(row.active_skills, counted),
                _count(row.active_principles, counted),
                when(row.last_active) if counted else "…",
                key=m.name,
            )
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))
            self._show_soul(min(keep, len(rows) - 1))

    def on_data_table_row_highlighted(self, event: RowTable.RowHighlighted) -> None:
        event.stop()
        self._show_soul(event.cursor_row)

    def _show_soul(self, index: int) -> None:
        if not 0 <= index < len(self.rows):
            return
        m = self.rows[index].member
        self.query_one("#soul-title", Static).update(
            Content.assemble(
                (m.display_name, "bold"),
                f" — {m.role}, {m.engine}; native skills: {', '.join(m.native_skills) or 'none'}",
            )
        )
        self.query_one("#soul-body", Markdown).update(m.soul or "*No soul.md recorded.*")

    def action_select_member(self) -> None:
        table = self.query_one(RowTable)
        if 0 <= table.cursor_row < len(self.rows):
            self.post_message(MemberChosen(self.rows[table.cursor_row].member.name))
