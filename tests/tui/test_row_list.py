"""RowList.refill: the lists of decisions keep the owner's place across a reload."""

from __future__ import annotations

import asyncio

from textual.app import App, ComposeResult
from textual.widgets.option_list import Option

from viva_tui.widgets.tables import RowList


class OneList(App[None]):
    def compose(self) -> ComposeResult:
        yield RowList()


def rows(*ids: str, disabled: str = "") -> list[Option]:
    return [Option(i, id=i, disabled=i == disabled) for i in ids]


def test_refill_keeps_the_highlighted_row_or_takes_the_first_choosable() -> None:
    asyncio.run(refill_script())


async def refill_script() -> None:
    async with OneList().run_test() as pilot:
        listing = pilot.app.query_one(RowList)
        assert listing.refill(rows("head", "a", "b", "c", disabled="head"))
        assert listing.highlighted_option is not None
        assert listing.highlighted_option.id == "a"  # the section header is skipped
        listing.highlighted = listing.get_option_index("c")
        assert listing.refill(rows("b", "c"))  # "c" moved up: still highlighted
        assert listing.highlighted_option is not None and listing.highlighted_option.id == "c"
        assert listing.refill(rows("x", "y"))  # "c" is gone: the first row
        assert listing.highlighted_option is not None and listing.highlighted_option.id == "x"
        assert not listing.refill(rows("head", disabled="head"))  # nothing to choose
