"""Usage (``viva usage``, the app's Usage view): stored token totals grouped and priced.

:func:`usage` groups the sessions the caller may see (a member: only its own) by day,
week, project, branch, model, harness or member, with an optional cost from
``config.toml``'s ``[prices]`` (no network; a model without a price has no cost).
"""

from __future__ import annotations

from datetime import datetime

from viva_store.errors import InvalidInput
from viva_store.registry import reader
from viva_store.sessions.service import check_member
from viva_store.store import Context
from viva_store.usage.grouping import GROUPINGS, Group, group, total
from viva_store.usage.prices import group_cost, parse_prices
from viva_store.usage.queries import session_usage
from viva_store.usage.records import TOKEN_KINDS, Tokens, UsageReport, UsageRow

__all__ = ["GROUPINGS", "TOKEN_KINDS", "Tokens", "UsageReport", "UsageRow", "usage"]


def _row(key: str, g: Group, prices: dict[str, dict[str, float]]) -> UsageRow:
    return UsageRow(key, len(g.sessions), g.tokens, group_cost(g.by_model, prices))


@reader
def usage(
    ctx: Context, by: str = "day", since: datetime | None = None, member: str | None = None
) -> UsageReport:
    """The caller's visible sessions' tokens (started at or after ``since``) grouped ``by``.

    ``member`` narrows to one member's attributed sessions (a member may name only
    itself); rows come in key order.
    """
    if by not in GROUPINGS:
        raise InvalidInput(f"--by must be one of {', '.join(GROUPINGS)} (not {by!r})")
    if member is not None:
        check_member(ctx, member, "see the usage")
    prices = parse_prices(ctx.store.config.section("prices"))
    found = ctx.store.read(lambda c: session_usage(c, ctx.actor, member, since))
    groups = group(found, by)
    rows = tuple(_row(key, groups[key], prices) for key in sorted(groups))
    return UsageReport(
        by=by,
        since=since,
        member=member if member is not None else ctx.actor.member,
        rows=rows,
        total=_row("total", total(groups.values()), prices),
        priced=bool(prices),
    )
