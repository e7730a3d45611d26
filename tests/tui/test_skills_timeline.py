"""Skills, Timeline, Members and the report in the app, checked against the store."""

from __future__ import annotations

import html
import re
from typing import Any

from textual.pilot import Pilot

from viva_store.skills.skillset import list_skills, skill_history
from viva_store.store import Context
from viva_tui.app import VivaApp
from viva_tui.dialogs.confirm import ConfirmModal
from viva_tui.dialogs.report import ReportDialog, shift_week
from viva_tui.widgets.skills_pane import COLUMNS, SkillsPane
from viva_tui.widgets.tables import RowList, RowTable
from viva_tui.widgets.timeline_pane import EVENT_PREVIEW, TimelinePane

from .helpers import drive, settle


async def open_skills(pilot: Pilot[None], member: str) -> SkillsPane:
    await settle(pilot)
    screen: Any = pilot.app.screen
    screen.choose_member(member, announce=False)
    await pilot.press("4")
    await settle(pilot)
    return screen.query_one(SkillsPane)


def select(pane: SkillsPane, skill: str) -> None:
    table = pane.query_one(RowTable)
    table.move_cursor(row=list(pane.rows).index(skill))


def test_reclaim_a_forgotten_skill(app: VivaApp, demo_ctx: Context) -> None:
    forgotten = [s.name for s in list_skills(demo_ctx, "deven", True) if s.status == "forgotten"]
    assert forgotten, "the demo store should have a forgotten skill"
    skill = forgotten[0]

    async def script(pilot: Pilot[None]) -> None:
        pane = await open_skills(pilot, "deven")
        select(pane, skill)
        # The demo store's own numbers (config.toml: half-life 4 sessions, protection 3).
        assert "every 4 of the member's sessions" in pane.help_text()
        assert "less than 3 sessions ago" in pane.help_text()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmModal)
        assert "protected for 3 sessions" in pilot.app.screen.detail
        await pilot.press("y")
        await settle(pilot)
        assert pane.rows[skill].status == "protected"

    drive(app, script)
    after = {s.name: s for s in list_skills(demo_ctx, "deven", True)}
    assert after[skill].status == "protected" and after[skill].weight == 1.0
    assert skill_history(demo_ctx, "deven", skill, limit=1)[0].kind == "reclaimed"


def test_change_a_skills_track(app: VivaApp, demo_ctx: Context) -> None:
    skill = next(s for s in list_skills(demo_ctx, "deven") if s.track == "session").name

    async def script(pilot: Pilot[None]) -> None:
        pane = await open_skills(pilot, "deven")
        select(pane, skill)
        await pilot.press("t")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmModal)
        assert "half-life 4 sessions on the session track" in pilot.app.screen.detail
        await pilot.press("y")
        await settle(pilot)

    drive(app, script)
    assert {s.name: s.track for s in list_skills(demo_ctx, "deven")}[skill] == "time"
    assert skill_history(demo_ctx, "deven", skill, limit=1)[0].kind == "track_changed"


def test_the_curve_is_the_services(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> tuple[str | None, Any]:
        pane = await open_skills(pilot, "deven")
        plot = pane.query_one("#decay-plot")
        return pane.query_one(RowTable).current_key, plot._curve  # type: ignore[attr-defined]

    from viva_store.skills.skillset import skill_curve

    skill, drawn = drive(app, script)
    assert skill is not None
    assert drawn == skill_curve(demo_ctx, "deven", skill).as_curve()


def test_timeline_search_uses_recall(app: VivaApp, demo_ctx: Context) -> None:
    from viva_store.recall.search import recall

    expected = recall(demo_ctx, "WAL", member="deven", limit=100, order="newest")
    assert expected.hits, "the demo store should mention WAL in deven's sessions"

    async def script(pilot: Pilot[None]) -> list[str]:
        await settle(pilot)
        screen: Any = pilot.app.screen
        screen.choose_member("deven", announce=False)
        await pilot.press("3")
        await settle(pilot)
        await pilot.press("s", *"WAL", "enter")
        await settle(pilot)
        listing = screen.query_one(TimelinePane).query_one(RowList)
        return [
            str(listing.get_option_at_index(i).id)
            for i in range(listing.option_count)
            if listing.get_option_at_index(i).id
        ]

    assert drive(app, script) == [f"s:{h.session_id}" for h in expected.hits]


def test_enter_on_a_member_makes_it_current(app: VivaApp, demo_home: Any) -> None:
    async def script(pilot: Pilot[None]) -> tuple[str | None, str | None]:
        await settle(pilot)
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        screen: Any = pilot.app.screen
        return screen.member, screen.query_one(TimelinePane).member

    member, shown = drive(app, script)
    assert member == shown == "deven"  # coordinator first, then by name: samuel, alice, deven
    assert '"member": "deven"' in (demo_home / "ui.json").read_text()


def test_weekly_report_pages_by_week(app: VivaApp) -> None:
    async def script(pilot: Pilot[None]) -> list[str]:
        await settle(pilot)
        await pilot.press("ctrl+r")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, ReportDialog)
        weeks = [dialog.week]
        await pilot.press("left")
        await settle(pilot)
        weeks.append(dialog.week)
        return weeks

    assert drive(app, script) == ["2026-W10", "2026-W09"]


def test_shift_week_crosses_years() -> None:
    assert shift_week("2026-W01", -1) == "2025-W52"
    assert shift_week("2020-W53", 1) == "2021-W01"


def test_palette_offers_the_jobs(app: VivaApp) -> None:
    async def script(pilot: Pilot[None]) -> list[str]:
        await settle(pilot)
        return [c.title for c in pilot.app.get_system_commands(pilot.app.screen)]

    titles = drive(app, script)
    assert {"Import sessions", "Open weekly report"} <= set(titles)
    assert "Switch member: Deven" in titles and "Switch theme: viva-light" in titles


def test_the_palettes_highlighted_command_stands_out_in_every_theme(app: VivaApp) -> None:
    """The palette's list keeps no focus (the input has it), so Textual draws its
    highlighted command with the blurred cursor: in viva-high-contrast that was #1F1F1F
    on the palette's #1A1A1A, a ratio of 1.05. It is drawn as the focused cursor now."""
    from textual.color import Color
    from textual.command import CommandList

    from .test_theme_contrast import contrast

    async def script(pilot: Pilot[None]) -> dict[str, float]:
        await settle(pilot)
        ratios = {}
        for theme in ("viva-dark", "viva-light", "viva-high-contrast"):
            pilot.app.theme = theme
            await settle(pilot)
            await pilot.press("ctrl+p")
            await settle(pilot)
            listing = pilot.app.screen.query_one(CommandList)
            row = listing.get_component_rich_style("option-list--option-highlighted").bgcolor
            assert row is not None
            under = listing.background_colors[1]
            ratios[theme] = contrast(Color.from_rich_color(row), under)
            await pilot.press("escape")
            await settle(pilot)
        return ratios

    ratios = drive(app, script)
    assert {theme: r for theme, r in ratios.items() if r < 1.2} == {}


def test_a_long_skill_name_ends_with_an_ellipsis(app: VivaApp, demo_ctx: Context) -> None:
    """A name wider than its column is cut with `…`, not mid-word at the column's edge."""
    long = [s.name for s in list_skills(demo_ctx, "samuel") if len(s.name) > 22]
    assert long, "samuel has a skill whose name is wider than the column"

    async def script(pilot: Pilot[None]) -> list[str]:
        pane = await open_skills(pilot, "samuel")
        table = pane.query_one(RowTable)
        return [str(table.get_row_at(i)[0]) for i in range(table.row_count)]

    names = drive(app, script)
    for name in long:
        assert name[:21] + "…" in names


def test_at_80x24_the_skill_table_shows_weight_and_track(app: VivaApp, demo_ctx: Context) -> None:
    """Beside the curve the table was cut inside its weight column; at 80 columns the
    curve goes under the table, and the table shows the columns that fit whole."""

    async def script(pilot: Pilot[None]) -> tuple[dict[str, int], int, int]:
        pane = await open_skills(pilot, "deven")
        table = pane.query_one(RowTable)
        right, edges = 0, {}
        for key, column in table.columns.items():
            right += column.get_render_width(table)
            edges[str(key.value)] = right
        plot = pane.query_one("#decay-plot")
        return edges, table.scrollable_content_region.width, plot.content_region.height

    edges, width, plot_rows = drive(app, script, size=(80, 24))
    assert [k for k in ("skill", "status", "weight", "track", "uses") if edges[k] > width] == []
    assert max(edges.values()) <= width  # no column is cut at the table's edge
    assert "trend" not in edges  # what does not fit is left out whole
    assert plot_rows >= 5  # the curve is still drawn, under the table

    wide, wide_width, _ = drive(VivaApp(demo_ctx), script)
    assert list(wide) == [key for key, _, _ in COLUMNS] and max(wide.values()) <= wide_width


def test_at_80x24_each_timeline_session_keeps_its_message_count(
    app: VivaApp, demo_ctx: Context
) -> None:
    """The count comes before the title, so a narrow pane cuts the title, not the count."""
    from viva_store.sessions.service import SessionFilter, list_sessions

    sessions = list_sessions(demo_ctx, SessionFilter(member="samuel", limit=None))
    harnesses = {s.harness for s in sessions}

    async def script(pilot: Pilot[None]) -> list[str]:
        await settle(pilot)
        screen: Any = pilot.app.screen
        screen.choose_member("samuel", announce=False)
        await pilot.press("3")
        await settle(pilot)
        svg = pilot.app.export_screenshot()
        return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ").splitlines()

    lines = drive(app, script, size=(80, 24))
    rows = [line for line in lines if re.search(r"\d\d:\d\d  (" + "|".join(harnesses) + ")", line)]
    assert len(rows) >= 3, lines
    assert all(re.search(r"\d+ msgs?  ", row) for row in rows), rows


def test_the_preview_says_what_an_event_row_is(app: VivaApp) -> None:
    """On a skill or principle event (no transcript) the preview says so instead of going
    blank or keeping the last session's transcript."""

    async def script(pilot: Pilot[None]) -> tuple[str, str]:
        await settle(pilot)
        screen: Any = pilot.app.screen
        screen.choose_member("samuel", announce=False)
        await pilot.press("3")
        await settle(pilot)
        pane = screen.query_one(TimelinePane)
        listing = pane.query_one(RowList)
        ids = [listing.get_option_at_index(i).id for i in range(listing.option_count)]
        on_session = next(i for i, sid in enumerate(ids) if sid and sid.startswith("s:"))
        listing.highlighted = on_session
        await settle(pilot)
        session_text = str(pane.query_one("#timeline-preview .transcript-body").render())
        on_event = next(
            i
            for i, sid in enumerate(ids)
            if not sid and not listing.get_option_at_index(i).disabled
        )
        listing.highlighted = on_event
        await settle(pilot)
        return session_text, str(pane.query_one("#timeline-preview .transcript-body").render())

    session_text, event_text = drive(app, script)
    assert EVENT_PREVIEW not in session_text and session_text.strip()
    assert EVENT_PREVIEW in event_text
