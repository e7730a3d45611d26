"""Members pane: recent launches through Viva and the launch command (issue 9)."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import DataTable

from viva_store.members.executions import list_executions
from viva_store.members.roster import list_members
from viva_store.records import MemberRecord
from viva_store.store import Context
from viva_tui.app import VivaApp
from viva_tui.widgets.members_pane import COLUMNS, MembersPane

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


def test_at_80x24_the_roster_shows_whole_columns_and_the_rest_beside_it(
    demo_ctx: Context,
) -> None:
    """The roster is wider than the pane at 80×24: it shows the columns that fit whole (the
    counts among them) and nothing cut at a scroll edge; the engine and harnesses it leaves
    out are in the member's line beside it. At 160 columns every column is there."""

    async def look(pilot: Pilot[None]) -> tuple[list[str], int, int, str]:
        await settle(pilot)
        table: DataTable[object] = pilot.app.screen.query_one("#members-table", DataTable)
        keys = [str(key.value) for key in table.columns]
        right = sum(column.get_render_width(table) for column in table.columns.values())
        line = str(pilot.app.screen.query_one("#soul-title").render())
        return keys, right, table.scrollable_content_region.width, line

    keys, right, width, line = drive(VivaApp(demo_ctx), look, size=(80, 24))
    assert {"member", "sessions", "skills", "principles"} <= set(keys)
    assert "harnesses" not in keys and right <= width
    first = list_members_first(demo_ctx)
    assert first.engine in line and all(h in line for h in first.harnesses)

    wide_keys, wide_right, wide_width, _ = drive(VivaApp(demo_ctx), look)
    assert wide_keys == [key for key, _, _ in COLUMNS] and wide_right <= wide_width


def list_members_first(ctx: Context) -> MemberRecord:
    """The member the roster shows first (the coordinator)."""
    return next(m for m in list_members(ctx) if m.coordinator)


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
