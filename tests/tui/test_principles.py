"""Principles in the app: every decision is confirmed, then found in the store."""

from __future__ import annotations

from textual.pilot import Pilot

from viva_store.principles.service import active_principles, principle_history, principle_queue
from viva_store.store import Context
from viva_tui.app import VivaApp
from viva_tui.dialogs.confirm import ConfirmModal
from viva_tui.dialogs.reason import TextModal
from viva_tui.widgets.principles_pane import PrinciplesPane
from viva_tui.widgets.tables import RowList

from .conftest import DEFERRED_VICTOR, PENDING_ALICE, PENDING_OLIVER, TEXT_V1, TEXT_V2
from .helpers import drive, settle


async def open_principles(pilot: Pilot[None]) -> PrinciplesPane:
    await settle(pilot)
    await pilot.press("5")
    await settle(pilot)
    return pilot.app.screen.query_one(PrinciplesPane)


def highlight(pane: PrinciplesPane, text: str) -> str:
    """Move the list to the entry whose item has ``text``; returns its option id."""
    listing = pane.query_one(RowList)
    for key, item in pane._items.items():
        if getattr(item, "text", None) == text:
            listing.highlighted = listing.get_option_index(key)
            return key
    raise AssertionError(f"{text!r} is not listed")


def candidate(ctx: Context, text: str):  # type: ignore[no-untyped-def]
    return next(c for c in principle_queue(ctx, include_decided=True) if c.text == text)


def test_approve_after_confirmation(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> None:
        pane = await open_principles(pilot)
        highlight(pane, PENDING_ALICE)
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)

    drive(app, script)
    assert PENDING_ALICE in [p.text for p in active_principles(demo_ctx, "alice")]


def test_declining_the_confirmation_stores_nothing(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> None:
        pane = await open_principles(pilot)
        highlight(pane, PENDING_OLIVER)
        await pilot.press("a")
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot)

    drive(app, script)
    assert candidate(demo_ctx, PENDING_OLIVER).status == "pending"
    assert PENDING_OLIVER not in [p.text for p in active_principles(demo_ctx, "oliver")]


def test_edit_then_approve_records_the_owner_wording(app: VivaApp, demo_ctx: Context) -> None:
    edited = "Prove every backup by restoring it."

    async def script(pilot: Pilot[None]) -> None:
        pane = await open_principles(pilot)
        highlight(pane, PENDING_OLIVER)
        await pilot.press("e")
        await pilot.pause()
        modal = pilot.app.screen
        assert isinstance(modal, TextModal)
        modal.query_one("TextArea").text = edited  # type: ignore[attr-defined]
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)

    drive(app, script)
    assert edited in [p.text for p in active_principles(demo_ctx, "oliver")]


def test_reject_requires_a_reason(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> None:
        pane = await open_principles(pilot)
        highlight(pane, PENDING_ALICE)
        await pilot.press("r")
        await pilot.pause()
        await pilot.press("ctrl+s")  # no reason yet: refused, the modal stays
        await pilot.pause()
        assert isinstance(pilot.app.screen, TextModal)
        await pilot.press(*"too vague")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)

    drive(app, script)
    assert candidate(demo_ctx, PENDING_ALICE).status == "rejected"
    reasons = [e.reason for e in principle_history(demo_ctx, "alice") if e.action == "rejected"]
    assert reasons == ["too vague"]


def test_defer_keeps_it_in_the_queue(app: VivaApp, demo_ctx: Context) -> None:
    async def script(pilot: Pilot[None]) -> None:
        pane = await open_principles(pilot)
        highlight(pane, PENDING_OLIVER)
        await pilot.press("d", "y")
        await settle(pilot)

    drive(app, script)
    assert candidate(demo_ctx, PENDING_OLIVER).status == "deferred"
    assert candidate(demo_ctx, DEFERRED_VICTOR).status == "deferred"


def seeded(ctx: Context):  # type: ignore[no-untyped-def]
    """Deven's principle the fixture approved twice (v1, then v2)."""
    return next(p for p in active_principles(ctx, "deven") if p.text in (TEXT_V1, TEXT_V2))


def test_rollback_from_the_history(app: VivaApp, demo_ctx: Context) -> None:
    principle = seeded(demo_ctx)
    assert (principle.text, principle.version) == (TEXT_V2, 2)

    async def script(pilot: Pilot[None]) -> None:
        pane = await open_principles(pilot)
        await pilot.press("h")
        await pilot.pause()
        listing = pane.query_one(RowList)
        first_approval = next(
            key
            for key, ev in sorted(pane._items.items(), key=lambda kv: kv[1].id)
            if ev.action == "approved" and ev.principle_id == principle.id and ev.version == 1
        )
        listing.highlighted = listing.get_option_index(first_approval)
        await pilot.press("b")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)

    drive(app, script)
    after = seeded(demo_ctx)
    assert (after.id, after.text, after.version, after.activated_by) == (
        principle.id,
        TEXT_V1,
        1,
        "rolled_back",
    )


def test_the_text_dialogs_buttons_are_in_view_at_80x24(app: VivaApp) -> None:
    """Edit+approve at 24 rows: its title, the proposal's detail, the text box and both
    buttons fit in the box (the buttons were cut by its bottom border)."""

    async def script(pilot: Pilot[None]) -> list[str]:
        pane = await open_principles(pilot)
        highlight(pane, PENDING_OLIVER)
        await pilot.press("e")
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, TextModal)
        inside = modal.query_one(".dialog-box").content_region
        return [
            str(button.label)
            for button in modal.query("Button")
            if not inside.contains_region(button.region)
        ]

    assert drive(app, script, size=(80, 24)) == []


def test_the_lists_title_follows_h(app: VivaApp) -> None:
    """The list's border names what it holds: the candidates, or the history after h."""

    async def script(pilot: Pilot[None]) -> list[str]:
        pane = await open_principles(pilot)
        listing = pane.query_one(RowList)
        titles = [str(listing.border_title)]
        for _ in range(2):
            await pilot.press("h")
            await settle(pilot)
            titles.append(str(listing.border_title))
        return titles

    assert drive(app, script) == ["Candidates", "History", "Candidates"]
