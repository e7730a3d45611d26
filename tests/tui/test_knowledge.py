"""The Knowledge pane (key 6): the gate's candidates, admitted items, every decision confirmed."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot

from viva_store.knowledge import service as knowledge
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.store import Context
from viva_tui.app import VivaApp
from viva_tui.dialogs.confirm import ConfirmModal
from viva_tui.dialogs.reason import TextModal
from viva_tui.widgets.knowledge_pane import KnowledgePane
from viva_tui.widgets.sidebar import Sidebar
from viva_tui.widgets.tables import RowList

from .helpers import drive, settle


def seed(ctx: Context) -> dict[str, str]:
    (s1, s2) = [s.id for s in list_sessions(ctx, SessionFilter(member="deven", limit=2))]
    return {
        "plain": knowledge.propose(ctx, "deven", "team_knowledge", "Pin the base image",
                                   "recurred", [s1, s2]),
        "flagged": knowledge.propose(ctx, "deven", "personal_memory", "PR #12 is merged",
                                     "costly", [s1], evidence="a day lost"),
    }  # fmt: skip


async def open_knowledge(pilot: Pilot[None]) -> KnowledgePane:
    await settle(pilot)
    await pilot.press("6")
    await settle(pilot)
    return pilot.app.screen.query_one(KnowledgePane)


def highlight(pane: KnowledgePane, key: str) -> None:
    listing = pane.query_one(RowList)
    listing.highlighted = listing.get_option_index(key)


def test_the_gate_admits_after_confirmation(app: VivaApp, demo_ctx: Context) -> None:
    ids = seed(demo_ctx)
    waiting = [i for i in knowledge.list_knowledge(demo_ctx) if i.status == "candidate"]
    assert len(waiting) >= 2  # the demo's own candidates and the two seeded here

    async def script(pilot: Pilot[None]) -> None:
        pane = await open_knowledge(pilot)
        assert {f"c:{ids['plain']}", f"c:{ids['flagged']}"} <= set(pane._items)
        assert pilot.app.screen.query_one(Sidebar).badges.get("knowledge") == str(len(waiting))
        highlight(pane, f"c:{ids['plain']}")
        await pilot.press("a")
        await pilot.pause()
        assert isinstance(pilot.app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)
        assert f"a:{ids['plain']}" in pane._items  # now listed among the admitted
        highlight(pane, f"c:{ids['flagged']}")
        await pilot.press("a")  # a live status: admitted only with a reason
        await pilot.pause()
        assert isinstance(pilot.app.screen, TextModal)
        await pilot.press(*"kept as the decision")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("y")
        await settle(pilot)

    drive(app, script)
    assert knowledge.get_item(demo_ctx, ids["plain"]).words == "recorded"
    flagged = knowledge.get_item(demo_ctx, ids["flagged"])
    assert flagged.status == "admitted" and flagged.history[-1].reason == "kept as the decision"


def test_declining_the_confirmation_stores_nothing(app: VivaApp, demo_ctx: Context) -> None:
    ids = seed(demo_ctx)

    async def script(pilot: Pilot[None]) -> None:
        pane = await open_knowledge(pilot)
        highlight(pane, f"c:{ids['plain']}")
        await pilot.press("x")
        await pilot.pause()
        await pilot.press(*"not worth it")
        await pilot.press("ctrl+s")
        await pilot.pause()
        await pilot.press("n")
        await settle(pilot)

    drive(app, script)
    assert knowledge.get_item(demo_ctx, ids["plain"]).status == "candidate"


def test_evidence_opens_the_one_cited_session_or_asks_which(
    app: VivaApp, demo_ctx: Context
) -> None:
    from viva_tui.dialogs.choice import ChoiceModal
    from viva_tui.dialogs.transcript import TranscriptDialog

    ids = seed(demo_ctx)
    (cited,) = knowledge.get_item(demo_ctx, ids["flagged"]).sources

    async def script(pilot: Pilot[None]) -> None:
        pane = await open_knowledge(pilot)
        highlight(pane, f"c:{ids['plain']}")  # cites two sessions
        await pilot.press("o")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ChoiceModal)
        await pilot.press("escape")
        await settle(pilot)
        highlight(pane, f"c:{ids['flagged']}")  # cites one
        await pilot.press("o")
        await settle(pilot)
        dialog = pilot.app.screen
        assert isinstance(dialog, TranscriptDialog)
        assert dialog.transcript.session.id == cited.split(":")[0]

    drive(app, script)


@pytest.mark.parametrize("size", [(160, 48), (80, 24)])
def test_each_item_is_one_line(app: VivaApp, size: tuple[int, int]) -> None:
    """A row wider than the list ends with `…`: a reason wrapped onto the next line read
    as a row of its own."""

    async def script(pilot: Pilot[None]) -> tuple[int, int, bool]:
        listing = (await open_knowledge(pilot)).query_one(RowList)
        shown = [str(o.prompt) for o in listing.options]
        too_wide = any(len(text) > listing.scrollable_content_region.width for text in shown)
        return listing.virtual_size.height, listing.option_count, too_wide

    height, rows, too_wide = drive(app, script, size=size)
    assert too_wide  # some row is wider than the list: the test means something
    assert height == rows
