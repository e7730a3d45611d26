"""Pane 1: the team — roster with counts, and the selected member's ``soul.md``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import Static

from viva_tui import keys
from viva_tui.views import MemberRow
from viva_tui.widgets.format import clip, when
from viva_tui.widgets.pane import Pane, titled

if TYPE_CHECKING:
    from textual.widgets import DataTable

    from viva_tui.widgets.tables import Column, RowTable

# The counts come right after the name: a narrow pane shows the leading columns that fit
# whole, and what it leaves out (the engine and harnesses) is in the member's line too.
COLUMNS = (
    ("member", "member", 22),
    ("role", "role", 12),
    ("sessions", "sessions", 8),
    ("skills", "skills", 6),
    ("principles", "principles", 10),
    ("last", "last active", 16),
    ("engine", "engine", 16),
    ("harnesses", "harnesses", 28),
)

WIDTH = {key: width for key, _, width in COLUMNS}


def _count(value: int | None) -> str:
    return "…" if value is None else str(value)


def _launches(row: MemberRow) -> Content:
    """The member's recent launches through Viva, newest first, and how to start one."""
    parts: list[str | tuple[str, str]] = [("Recent launches", "bold"), "\n"]
    if not row.executions:
        parts.append(("none yet", "italic"))
        parts.append("\n")
    for ex in row.executions:
        ended = ex.outcome or "running"
        task = f" · {clip(ex.task, 60)}" if ex.task else ""
        parts.append(f"{when(ex.started_at)}  {ex.harness}  {ended}  {ex.cwd}{task}\n")
    if row.launch_command:
        parts.append(("Launch: ", "bold"))
        parts.append(row.launch_command + ' --task "…"  (l copies it)\n')
    return Content.assemble(*parts)


class MembersPane(Pane):
    """The roster (coordinator first) and the highlighted member's soul."""

    PANE_ID = "members"
    TITLE = "Members"
    BINDINGS: ClassVar[list[BindingType]] = [*keys.MEMBERS]
    HELP_TEXT = """\
The team Viva holds. Each member is data: identity (role, engine, harnesses),
experience (the sessions filed to it), a skill set with weights and principles
the owner approved.

* **sessions** — sessions attributed to the member (by an execution record or by you).
* **skills** — skills in its set that are not forgotten; **principles** — active ones.

The right side shows the member's recent launches through Viva (each one an execution
record: harness, folder, task, how it ended) and renders its `soul.md`. **Enter** makes the
highlighted member the one the Timeline and Skills panes show; **l** shows the
`viva launch` command for it and copies it, to run in a terminal of its own.
"""

    @dataclass(eq=False, repr=False)
    class MemberChosen(Message):
        """The owner picked the member the Timeline and Skills panes show."""

        name: str

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[MemberRow] = []
        self._soul_shown: tuple[str, str] | None = None
        self._counted = False

    def compose(self) -> ComposeResult:
        # The table comes with the roster (after the first frame, which stays light).
        with titled(VerticalScroll(id="soul"), "Soul and launches"):
            yield Static("Opening the store…", id="soul-title")
            yield Static("", id="member-launches")

    async def _table(self) -> RowTable:
        from viva_tui.widgets.tables import RowTable  # with the roster, after the first frame

        found = self.query(RowTable)
        if found:
            return found.first()
        table = titled(RowTable(id="members-table", zebra_stripes=True), "Team")
        await self.mount(table, before=0)
        table.show_columns(self._fitting())
        if self.has_focus_within or self.screen.focused is None:
            table.focus()
        return table

    def focus_main(self) -> None:
        found = self.query("#members-table")
        if found:
            found.first().focus()

    async def show_members(self, rows: list[MemberRow], counted: bool) -> None:
        """Fill the roster; ``counted`` False shows … where counts will come."""
        self.rows, self._counted = rows, counted
        table = await self._table()
        keep = table.cursor_row
        table.clear()
        for row in rows:
            m = row.member
            name = Text(m.display_name, style="bold")
            if m.coordinator:
                name.append(" (coordinator)", style="italic")
            cells: dict[str, object] = {
                "member": name,
                "role": clip(m.role, WIDTH["role"]),
                "sessions": _count(row.sessions),
                "skills": _count(row.active_skills),
                "principles": _count(row.active_principles),
                "last": when(row.last_active) if counted else "…",
                "engine": clip(m.engine, WIDTH["engine"]),
                "harnesses": clip(", ".join(m.harnesses), WIDTH["harnesses"]),
            }
            table.add_row(*(cells[str(key.value)] for key in table.columns), key=m.name)
        table.rows_added()
        if rows:
            table.move_cursor(row=min(keep, len(rows) - 1))
            self._show_soul(min(keep, len(rows) - 1))

    def _fitting(self) -> tuple[Column, ...]:
        from viva_tui.widgets.tables import leading_columns

        return leading_columns(COLUMNS, self.size.width - 2)  # inside the table's border

    async def on_resize(self) -> None:
        found = self.query("#members-table")
        if found and cast("RowTable", found.first()).show_columns(self._fitting()):
            await self.show_members(self.rows, self._counted)

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        event.stop()
        self._show_soul(event.cursor_row)

    def _show_soul(self, index: int) -> None:
        if not 0 <= index < len(self.rows):
            return
        m = self.rows[index].member
        self.query_one("#member-launches", Static).update(_launches(self.rows[index]))
        if self._soul_shown == (m.name, m.soul):
            return  # the counts arrived: the soul has not changed, keep its rendering
        if not self._counted:
            return  # the soul (Markdown: slow to load and lay out) follows the counts
        self._soul_shown = (m.name, m.soul)
        self.query_one("#soul-title", Static).update(
            Content.assemble(
                (m.display_name, "bold"),
                f" — {m.role}, {m.engine} in {', '.join(m.harnesses) or 'no harness'}; "
                f"native skills: {', '.join(m.native_skills) or 'none'}",
            )
        )
        # Markdown (and its parser) is loaded with the first soul, after the first frame.
        from textual.widgets import Markdown

        found = self.query("#soul-body")
        if found:
            found.first(Markdown).update(m.soul or "*No soul.md recorded.*")
        else:
            self.query_one("#soul", VerticalScroll).mount(
                Markdown(m.soul or "*No soul.md recorded.*", id="soul-body")
            )

    def action_launch_command(self) -> None:
        """Show the highlighted member's ``viva launch`` command and copy it."""
        found = self.query("#members-table")
        if not found:
            return
        table = cast("RowTable", found.first())
        if not 0 <= table.cursor_row < len(self.rows):
            return
        command = self.rows[table.cursor_row].launch_command
        if not command:
            self.notify("This member has no harness to launch in.", severity="warning")
            return
        self.app.copy_to_clipboard(command + ' --task "…"')
        self.notify(f'{command} --task "…"', title="Launch in a terminal (copied)")

    def action_select_member(self) -> None:
        found = self.query("#members-table")
        if not found:
            return
        table = cast("RowTable", found.first())
        if 0 <= table.cursor_row < len(self.rows):
            self.ask(self.MemberChosen(self.rows[table.cursor_row].member.name))
