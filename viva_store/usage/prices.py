"""Prices from ``config.toml``'s ``[prices]`` table: per model, per million tokens.

    [prices."claude-sonnet-4-5"]
    input = 3.0
    output = 15.0
    cache_read = 0.30
    cache_write = 3.75

A cost is given only when every token it covers has a price: a model missing from the
table, or a kind with tokens that its entry leaves out, gives no cost, never an estimate.
``reasoning`` is the one exception: most harnesses count reasoning inside output, so it
costs something only when the entry names a ``reasoning`` price.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from viva_store.errors import InvalidInput
from viva_store.usage.records import TOKEN_KINDS, Tokens

Prices = dict[str, dict[str, float]]
PER = 1_000_000


def parse_prices(table: Mapping[str, Any]) -> Prices:
    """The ``[prices]`` table checked: every model a table of non-negative numbers."""
    out: Prices = {}
    for model, entry in table.items():
        if not isinstance(entry, Mapping):
            raise InvalidInput(f"[prices] {model!r} must be a table of prices per kind")
        prices: dict[str, float] = {}
        for kind, value in entry.items():
            if kind not in TOKEN_KINDS:
                raise InvalidInput(
                    f"[prices] {model!r}: unknown kind {kind!r} (use {', '.join(TOKEN_KINDS)})"
                )
            if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise InvalidInput(f"[prices] {model!r}.{kind} must be a number, 0 or more")
            prices[kind] = float(value)
        out[str(model)] = prices
    return out


def cost_of(model: str, tokens: Tokens, prices: Prices) -> float | None:
    """What ``tokens`` of ``model`` cost, or None when any of them has no price."""
    entry = prices.get(model)
    if entry is None:
        return None if tokens.total else 0.0
    cost = 0.0
    for kind, count in zip(TOKEN_KINDS, tokens.counts(), strict=True):
        if kind in entry:
            cost += count * entry[kind] / PER
        elif count and kind != "reasoning":
            return None
    return cost


def group_cost(by_model: Mapping[str, Tokens], prices: Prices) -> float | None:
    """The cost of a group's tokens per model, or None when any part has no price."""
    if not prices:
        return None
    cost = 0.0
    for model, tokens in by_model.items():
        part = cost_of(model, tokens, prices)
        if part is None:
            return None
        cost += part
    return round(cost, 6)
