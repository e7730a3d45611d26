"""The owner's search over every session and the Usage view, driven as a user would."""

from __future__ import annotations

import html
import itertools
import re
from typing import Any

from textual.pilot import Pilot
from textual.widgets import DataTable, OptionList

from viva_store.recall.service import RecallHit, recall
from viva_store.sessions.service import SessionFilter, list_sessions, session_messages
from viva_store.store import Context
from viva_store.usage.service import usage
from viva_tui.app import VivaApp
from viva_tui.dialogs.search import SearchDialog
from viva_tui.dialogs.transcript import TranscriptDialog
from viva_tui.dialogs.usage import UsageDialog
from viva_tui.widgets.transcript import TranscriptView

from .helpers import drive, settle


def _deep_unattributed_hit(ctx: Context) -> tuple[str, RecallHit]:
    """A word of a late message of an unattributed session, and recall's hit for it there."""
    queue = list_sessions(ctx, SessionFilter(status="unattributed", limit=None))
    for session in sorted(queue, key=lambda s: -s.message_count):
        for msg in reversed(session_messages(ctx, session.id)):
            if msg.seq < 8:
                break
            for word in sorted(set(msg.text.split()), key=len, reverse=True)[:5]:
                if not word.isalpha() or len(word) < 7:
                    continue
                hits = recall(ctx, word, limit=100, kinds=("sessions",)).hits
                mine = [h for h in hits if h.session_id == session.id]
                if mine and mine[0].kind == "message" and (mine[0].seq or 0) >= 8:
                    return word, mine[0]
    raise AssertionError("the demo store should have a late message in an unattributed session")


def test_search_finds_an_unattributed_message_and_opens_it_there(
    app: VivaApp, demo_ctx: Context
) -> None:
    word, expected = _deep_unattributed_hit(demo_ctx)
    assert expected.member is None and expected.status == "unattributed"

    async def script(pilot: Pilot[None]) -> tuple[Any, ...]:
        await settle(pilot)
        await pilot.press("2")  # from the Triage pane, whose own keys come first
        await settle(pilot)
        await pilot.press("slash")
        assert isinstance(pilot.app.screen, SearchDialog)
        await pilot.press(*word, "enter")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, SearchDialog)
        ids = [h.session_id for h in dialog.hits]
        await pilot.press("down")
        listing = dialog.query_one("#search-hits", OptionList)
        assert listing.has_focus
        listing.highlighted = ids.index(expected.session_id)
        await pilot.press("enter")
        await settle(pilot)
        shown = pilot.app.screen
        assert isinstance(shown, TranscriptDialog)
        view = shown.query_one(TranscriptView)
        await pilot.pause(0.2)
        return (
            shown.transcript.session.id,
            shown.at_seq,
            view.scroll_y,
            view.scrollable_content_region.height,
            _visible_text(pilot),
        )

    # A short terminal: the demo's sessions are short, the message must be off the first page.
    session_id, at_seq, scrolled, _, text = drive(app, script, size=(100, 24))
    assert session_id == expected.session_id and at_seq == expected.seq
    assert scrolled > 0  # the message is further down than the first screen
    assert "▶" in text  # the hit's message is on screen, marked
    assert word in text


def _visible_text(pilot: Pilot[None]) -> str:
    """What the terminal shows now, as plain text."""
    svg = pilot.app.export_screenshot()
    return html.unescape(re.sub(r"<[^>]+>", "", svg)).replace("\xa0", " ")


def test_search_filters_narrow_and_the_palette_opens_it(app: VivaApp, demo_ctx: Context) -> None:
    word, expected = _deep_unattributed_hit(demo_ctx)
    harness = expected.harness

    async def script(pilot: Pilot[None]) -> tuple[list[str], list[str]]:
        await settle(pilot)
        screen: Any = pilot.app.screen
        screen.action_search_everything()
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, SearchDialog)
        await pilot.press(*word, "enter")
        await settle(pilot)
        every = [h.session_id for h in dialog.hits]
        dialog.query_one("#search-harness").value = "no-such-harness"  # type: ignore[attr-defined]
        dialog.query_one("#search-harness").focus()
        await pilot.press("enter")
        await settle(pilot)
        return every, [h.session_id for h in dialog.hits]

    every, narrowed = drive(app, script)
    assert expected.session_id in every and harness
    assert narrowed == []


def test_usage_view_shows_the_services_figures(app: VivaApp, demo_ctx: Context) -> None:
    by_project = usage(demo_ctx, by="project")
    by_model = usage(demo_ctx, by="model")
    assert by_project.total.tokens.total > 0, "the demo store should have token totals"

    async def script(pilot: Pilot[None]) -> tuple[list[str], list[str]]:
        await settle(pilot)
        await pilot.press("ctrl+u")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, UsageDialog)
        table = dialog.query_one(DataTable)
        projects = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        await pilot.press("t")
        await settle(pilot)
        models = [str(table.get_row_at(i)[0]) for i in range(table.row_count)]
        return projects, models

    projects, models = drive(app, script)
    assert projects == [r.key for r in by_project.rows]
    assert models == [r.key for r in by_model.rows]


HIT_HEAD = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d  ")


def test_at_80x24_search_shows_several_hits_none_wrapped(app: VivaApp, demo_ctx: Context) -> None:
    """On a 24-row terminal the field and filters take a line each and each hit its two
    lines (head and snippet, cut with `…`), so several hits are in view at once."""
    word = "test"
    assert len(recall(demo_ctx, word, limit=10, kinds=("sessions",)).hits) >= 5

    async def script(pilot: Pilot[None]) -> list[str]:
        await settle(pilot)
        await pilot.press("slash", *word, "enter")
        await settle(pilot)
        return _visible_text(pilot).splitlines()

    lines = drive(app, script, size=(80, 24))
    heads = [n for n, line in enumerate(lines) if HIT_HEAD.search(line)]
    assert len(heads) >= 4, lines
    assert {b - a for a, b in itertools.pairwise(heads)} == {2}  # no hit wraps onto a third
    assert any("…" in lines[n] for n in heads)  # a head too long for the width says so


def test_at_80x24_usage_keeps_its_table_and_a_one_line_total(
    app: VivaApp, demo_ctx: Context
) -> None:
    projects = usage(demo_ctx, by="project").rows
    assert len(projects) >= 3

    async def script(pilot: Pilot[None]) -> tuple[int, int, list[str], list[str], int]:
        await settle(pilot)
        await pilot.press("ctrl+u")
        await settle(pilot)
        dialog = pilot.app.screen
        table: DataTable[object] = dialog.query_one(DataTable)
        total = dialog.query_one("#usage-total")
        return (
            table.scrollable_content_region.height,
            total.size.height,
            _visible_text(pilot).splitlines(),
            [c.label.plain for c in table.columns.values()],
            table.scrollable_content_region.width
            - sum(c.get_render_width(table) for c in table.columns.values()),
        )

    table_rows, total_rows, lines, columns, room = drive(app, script, size=(80, 24))
    assert table_rows >= 3  # the header and at least two projects
    assert columns[:4] == ["project", "sessions", "input", "output"] and len(columns) < 8
    assert room >= 0  # the columns shown fit whole; the rest are left out, not cut
    assert sum(projects[0].key in line for line in lines) >= 1
    totals = [line for line in lines if "total:" in line]
    assert total_rows == 1 and len(totals) == 1 and "…" in totals[0]
