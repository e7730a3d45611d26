"""Members pane: recent launches through Viva and the launch command (issue 9)."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable

from viva_store.members.executions import list_executions
from viva_store.store import Context
from viva_tui.app import VivaApp
from viva_tui.widgets.members_pane import MembersPane

from .helpers import drive, settle


def test_members_show_recent_launches_and_the_launch_command(demo_ctx: Context) -> None:
    async def look(pilot: Pilot[None]) -> tuple[str, list[str], str]:
        await settle(pilot)
        pane = pilot.app.screen.query_one(MembersPane)
        shown = str(pane.query_one("#member-launches").render())
        copied: list[str] = []
        pilot.app.copy_to_clipboard = copied.append  # type: ignore[method-assign]
        await pilot.press("l")
        await settle(pilot)
        first = pane.rows[0].member.name
        return shown, copied, first

    shown, copied, first = drive(VivaApp(demo_ctx), look)
    latest = list_executions(demo_ctx, first, limit=1)
    assert "Recent launches" in shown
    if latest:
        assert latest[0].harness in shown and (latest[0].outcome or "running") in shown
    assert copied and copied[0].startswith(f"viva launch {first} --harness ")


def test_the_counts_stay_in_view_at_80x24(demo_ctx: Context) -> None:
    """The roster is wider than the pane at 80×24: what scrolls out of sight on the right
    is the engine and harnesses, never the counts."""

    async def look(pilot: Pilot[None]) -> tuple[dict[str, int], int]:
        await settle(pilot)
        table: DataTable[object] = pilot.app.screen.query_one("#members-table", DataTable)
        right, edges = 0, {}
        for key, column in table.columns.items():
            right += column.get_render_width(table)
            edges[str(key.value)] = right
        return edges, table.scrollable_content_region.width

    edges, width = drive(VivaApp(demo_ctx), look, size=(80, 24))
    assert edges["harnesses"] > width  # the table does not fit: the test means something
    assert [k for k in ("sessions", "skills", "principles") if edges[k] > width] == []


def test_a_long_launch_task_is_cut_with_an_ellipsis(demo_ctx: Context) -> None:
    """A launch's task is shortened to one short line, and says so with `…`."""

    async def look(pilot: Pilot[None]) -> tuple[str, str]:
        await settle(pilot)
        pane = pilot.app.screen.query_one(MembersPane)
        return pane.rows[0].member.name, str(pane.query_one("#member-launches").render())

    first, shown = drive(VivaApp(demo_ctx), look)
    long = [e.task for e in list_executions(demo_ctx, first, limit=5) if len(e.task) > 60]
    assert long, "the demo's coordinator has a launch with a long task"
    for task in long:
        assert task not in shown
        assert task[:59] + "…" in shown
