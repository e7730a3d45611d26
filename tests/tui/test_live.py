"""The app stays live: outside writes appear on their own, stale actions are refused, and
the cursor stays on its session after a bulk action."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from textual.pilot import Pilot

from viva_store.sessions.service import get_session
from viva_store.store import Context
from viva_store.triage.classify import classify
from viva_tui.app import VivaApp
from viva_tui.messages import StoreStamped
from viva_tui.screens.main import MainScreen
from viva_tui.widgets.sidebar import Sidebar

from .conftest import open_context
from .helpers import drive, settle
from .test_triage import open_triage


async def until(pilot: Pilot[None], check: object, seconds: float) -> float:
    """Let the app run until ``check()`` holds; how long that took (fails after)."""
    start = time.monotonic()
    while not check():  # type: ignore[operator]
        assert time.monotonic() - start < seconds, f"not seen within {seconds} s"
        await pilot.pause(0.05)
    return time.monotonic() - start


def test_a_classification_elsewhere_appears_within_two_seconds(
    app: VivaApp, demo_home: Path
) -> None:
    other = open_context(demo_home)  # another window, or the CLI: its own engine

    async def script(pilot: Pilot[None]) -> tuple[str, str]:
        pane = await open_triage(pilot)
        sidebar = pilot.app.screen.query_one(Sidebar)
        before = sidebar.badges.get("triage", "")
        sid = pane.order[2]
        classify(other, [sid], "oliver")
        await until(pilot, lambda: sid not in pane.sessions, 2.0)
        await until(pilot, lambda: sidebar.badges.get("triage") != before, 2.0)
        return before, sidebar.badges["triage"]

    try:
        before, after = drive(app, script)
    finally:
        other.store.close()
    assert int(after) == int(before) - 1


def test_a_knowledge_proposal_elsewhere_appears_in_the_sidebar_within_two_seconds(
    app: VivaApp, demo_home: Path
) -> None:
    from viva_store.knowledge.service import list_knowledge, propose
    from viva_store.sessions.service import SessionFilter, list_sessions

    other = open_context(demo_home)
    waiting = sum(i.status == "candidate" for i in list_knowledge(other))
    sources = [s.id for s in list_sessions(other, SessionFilter(member="alice", limit=2))]

    async def script(pilot: Pilot[None]) -> str:
        await settle(pilot)
        sidebar = pilot.app.screen.query_one(Sidebar)
        await until(pilot, lambda: sidebar.badges.get("knowledge") == str(waiting), 2.0)
        propose(other, "alice", "team_knowledge", "Pin the base image", "recurred", sources)
        await until(pilot, lambda: sidebar.badges.get("knowledge") != str(waiting), 2.0)
        return sidebar.badges["knowledge"]

    try:
        after = drive(app, script)
    finally:
        other.store.close()
    assert waiting >= 1 and after == str(waiting + 1)


def test_acting_on_a_session_filed_meanwhile_is_refused(app: VivaApp, demo_home: Path) -> None:
    other = open_context(demo_home)

    async def script(pilot: Pilot[None]) -> tuple[str, list[str]]:
        pane = await open_triage(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen) and screen.watch_timer is not None
        screen.watch_timer.pause()  # the screen has not seen the other write yet
        sid = pane.current()
        assert sid is not None
        classify(other, [sid], "oliver")
        await pilot.press(pane.keys["deven"])
        await settle(pilot)
        said = [n.message for n in pilot.app._notifications]
        assert sid not in pane.sessions  # the list was read again
        return sid, said

    try:
        sid, said = drive(app, script)
        assert get_session(other, sid).member == "oliver"
    finally:
        other.store.close()
    assert any("filed into oliver meanwhile" in line for line in said)


def test_the_cursor_stays_on_its_session_after_a_bulk_action(
    app: VivaApp, demo_ctx: Context
) -> None:
    async def script(pilot: Pilot[None]) -> tuple[str, str | None, str, str | None]:
        pane = await open_triage(pilot)
        await pilot.press("space", "space", "space")  # marks rows 0-2; the cursor is on 3
        resting = pane.current()
        assert resting == pane.order[3]
        await pilot.press(pane.keys["alice"])
        await settle(pilot)
        first_stay = pane.current()
        await pilot.press("space", "up")  # mark the cursor's row, then go back onto it
        marked = pane.current()
        assert marked is not None and marked in pane.marked
        after = pane.order[pane.order.index(marked) + 1]
        await pilot.press(pane.keys["victor"])
        await settle(pilot)
        return resting, first_stay, after, pane.current()

    resting, first_stay, after, now = drive(app, script)
    assert first_stay == resting
    assert now == after  # its session was filed: the next unfiled one
    assert get_session(demo_ctx, resting).member == "victor"  # what the keys said, no other
    assert get_session(demo_ctx, after).status == "unattributed"


def test_a_poll_between_the_apps_own_filing_and_its_result_recounts_no_one_else(
    app: VivaApp,
) -> None:
    """The poll may read the store after the app's own write and before that write's
    result is handled; it must not take the write for someone else's and re-read all."""

    async def script(pilot: Pilot[None]) -> list[str]:
        pane = await open_triage(pilot)
        screen = pilot.app.screen
        assert isinstance(screen, MainScreen)
        backend = screen.backend
        assign, member_rows = backend.assign, backend.member_rows
        recounted: list[str] = []

        def assign_then_poll(ids: Any, member: str | None) -> Any:
            done = assign(ids, member)
            screen.post_message(StoreStamped(backend.change_stamp(), False))  # a poll lands
            time.sleep(0.3)  # and is handled before this filing's result
            return done

        def counted(chosen: Any) -> Any:
            recounted.extend(m.name for m in chosen)
            return member_rows(chosen)

        backend.assign, backend.member_rows = assign_then_poll, counted  # type: ignore[method-assign]
        sid = pane.current()
        await pilot.press(pane.keys["deven"])
        await until(pilot, lambda: sid not in pane.sessions, 5.0)
        await settle(pilot)
        return recounted

    assert drive(app, script) == ["deven"]
