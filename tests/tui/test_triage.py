"""Triage in the app: each action is checked in the store afterwards."""

from __future__ import annotations

from typing import Any

from textual.pilot import Pilot
from textual.widgets import OptionList

from viva_store.sessions.service import SessionFilter, get_session, list_sessions
from viva_store.store import Context
from viva_store.triage.suggest import suggest
from viva_tui.app import VivaApp
from viva_tui.widgets.tables import RowTable
from viva_tui.widgets.triage_pane import TriagePane

from .helpers import drive, settle


async def open_triage(pilot: Pilot[None]) -> TriagePane:
    await settle(pilot)
    await pilot.press("2")
    await settle(pilot)
    return pilot.app.screen.query_one(TriagePane)


def test_assign_with_a_member_key(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> str:
        pane = await open_triage(pilot)
        sid = pane.current()
        assert sid is not None
        await pilot.press(pane.keys["deven"])
        await settle(pilot)
        assert sid not in pane.sessions
        return sid

    record = get_session(demo_ctx, drive(app, script))
    assert (record.status, record.member) == ("attributed", "deven")


def test_bulk_assign_marked_sessions(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> list[str]:
        pane = await open_triage(pilot)
        first = pane.order[:3]
        await pilot.press("space", "space", "space")
        assert pane.targets() == tuple(first)
        await pilot.press(pane.keys["alice"])
        await settle(pilot)
        return first

    for sid in drive(app, script):
        assert get_session(demo_ctx, sid).member == "alice"


def test_pick_a_member_from_the_list(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> tuple[str | None, str | None]:
        pane = await open_triage(pilot)
        sid = pane.current()
        await pilot.press("m")
        await pilot.pause()
        picker = pilot.app.screen.query_one(OptionList)
        await pilot.press("down")
        chosen = picker.highlighted_option.id if picker.highlighted_option else None
        await pilot.press("enter")
        await settle(pilot)
        return sid, chosen

    sid, chosen = drive(app, script)
    assert sid is not None and chosen in ("samuel", "alice", "deven", "oliver", "victor")
    assert get_session(demo_ctx, sid).member == chosen


def test_mark_nobody(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> str | None:
        pane = await open_triage(pilot)
        sid = pane.current()
        await pilot.press("n")
        await settle(pilot)
        return sid

    sid = drive(app, script)
    assert sid is not None
    assert get_session(demo_ctx, sid).status == "nobody"


def test_accept_a_suggestion(app: VivaApp, demo_ctx: Context) -> None:
    offered = {s.session_id: s.member for s in suggest(demo_ctx) if s.member}
    assert offered, "the demo store should have confident suggestions"

    async def script(pilot: Pilot[None]) -> str | None:
        pane = await open_triage(pilot)
        row = next(i for i, sid in enumerate(pane.order) if sid in offered)
        pane.query_one(RowTable).move_cursor(row=row)
        sid = pane.current()
        await pilot.press("y")
        await settle(pilot)
        return sid

    sid = drive(app, script)
    assert sid is not None
    record = get_session(demo_ctx, sid)
    assert (record.member, record.attribution_source) == (offered[sid], "owner")
    assert record.note == "accepted suggestion"


def test_undo_puts_the_sessions_back(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> list[str]:
        pane = await open_triage(pilot)
        ids = pane.order[:2]
        await pilot.press("space", "space", pane.keys["oliver"])
        await settle(pilot)
        assert all(get_session(demo_ctx, sid).member == "oliver" for sid in ids)
        await pilot.press("u")
        await settle(pilot)
        assert set(ids) <= set(pane.order)
        return ids

    for sid in drive(app, script):
        assert get_session(demo_ctx, sid).status == "unattributed"


def test_filter_by_harness_pages_from_the_store(app: VivaApp, demo_ctx: Context) -> None:
    expected = list_sessions(demo_ctx, SessionFilter(status="unattributed", harness="codex"))

    async def script(pilot: Pilot[None]) -> None:
        pane = await open_triage(pilot)
        pane.query_one("#triage-harness").value = "codex"  # type: ignore[attr-defined]
        await settle(pilot)
        assert pane.order == [s.id for s in expected][: len(pane.order)]
        assert {pane.sessions[sid].harness for sid in pane.order} == {"codex"}

    drive(app, script)


def test_filter_by_project_and_text(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> list[str]:
        pane = await open_triage(pilot)
        pane.query_one("#triage-project").value = "ledger-api"  # type: ignore[attr-defined]
        await settle(pilot)
        assert pane.order and {pane.sessions[s].project for s in pane.order} == {"ledger-api"}
        await pilot.press("f", *"regex", "enter")
        await settle(pilot)
        return pane.order

    shown = drive(app, script)
    expected = list_sessions(
        demo_ctx, SessionFilter(status="unattributed", project="ledger-api", text="regex")
    )
    assert shown == [s.id for s in expected]


def screen_text(app: VivaApp) -> str:
    """What the screen shows, line by line, as plain text."""
    update: Any = app.screen._compositor.render_update(full=True)
    return "\n".join("".join(s.text for strip in line for s in strip) for line in update.strips)


def test_every_member_key_is_on_screen_at_80x24(app: VivaApp) -> None:
    """At 80 columns the status line (the queue's size, each member's key) wraps onto a
    second line rather than cut off the last members."""

    async def script(pilot: Pilot[None]) -> tuple[dict[str, str], str]:
        pane = await open_triage(pilot)
        return dict(pane.keys), screen_text(pilot.app)

    keys, shown = drive(app, script, size=(80, 24))
    assert len(keys) == 5
    assert [name for name, key in keys.items() if f"{key} {name}" not in shown] == []
