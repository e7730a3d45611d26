"""Where a list's cursor rests when rows leave it (pure; the panes use it)."""

from __future__ import annotations

from collections.abc import Collection, Sequence


def survivor(order: Sequence[str], current: str | None, gone: Collection[str]) -> str | None:
    """The row the cursor should rest on once ``gone`` leave ``order``: the current one if
    it stays, else the next one that stays, else the nearest before it."""
    if current is None or current not in gone or current not in order:
        return current
    at = order.index(current)
    after = [key for key in order[at:] if key not in gone]
    before = [key for key in order[:at] if key not in gone]
    return after[0] if after else (before[-1] if before else None)


def row_to_keep(order: Sequence[str], key: str, was: int) -> int:
    """The row of ``key`` in the re-read ``order``, else the row it was on (within it)."""
    if key in order:
        return order.index(key)
    return max(min(was, len(order) - 1), 0)
