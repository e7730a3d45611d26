"""The owner's views over every session: search everything, and usage."""

from __future__ import annotations

from datetime import timedelta

from viva_store.clock import parse_since
from viva_store.recall import service as recall
from viva_store.store import Context
from viva_store.usage import service as usage
from viva_tui.views import CHART_DAYS, ArchiveQuery, SearchResult, UsageData

HITS = 100


def search_everything(ctx: Context, query: ArchiveQuery) -> SearchResult:
    """Recall over every session (unattributed ones too), best first, narrowed by ``query``."""
    since = parse_since(query.since) if query.since else None
    flt = recall.RecallFilter(
        harness=query.harness or None, project=query.project or None, since=since
    )
    found = recall.recall(
        ctx, query.text, member=query.member or None, limit=HITS, kinds=("sessions",), flt=flt
    )
    notes = list(found.notes)
    if found.matched == "any":
        notes.append("no session has every word; sessions with any of them")
    return SearchResult(tuple(found.hits), (), tuple(notes))


def usage_data(ctx: Context, by: str) -> UsageData:
    """The last :data:`CHART_DAYS` days by day, and every session's usage ``by`` a grouping."""
    today = ctx.store.now().astimezone().replace(hour=0, minute=0, second=0, microsecond=0)
    days = usage.usage(ctx, by="day", since=today - timedelta(days=CHART_DAYS - 1))
    return UsageData(days=days, table=usage.usage(ctx, by=by))
