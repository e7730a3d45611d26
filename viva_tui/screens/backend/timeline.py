"""A member's timeline besides its sessions (skill events, principle decisions), and search."""

from __future__ import annotations

from viva_store.recall import service as recall
from viva_store.sessions.service import member_timeline
from viva_store.store import Context
from viva_tui.views import SearchResult, TimelineEvent, TimelineEvents


def load_events(ctx: Context, member: str) -> TimelineEvents:
    """Skill and principle events of ``member``, newest first, in the store's own words
    (the lines ``viva timeline`` prints)."""
    items = member_timeline(ctx, member, kinds=("skill", "principle"))
    return TimelineEvents(
        member, tuple(TimelineEvent(item.at, item.kind, item.text) for item in items)
    )


def search(ctx: Context, member: str, query: str, limit: int = 100) -> SearchResult:
    """Recall over ``member``'s experience, newest first (the service's Timeline order)."""
    result = recall.recall(ctx, query, member=member, limit=limit, order="newest")
    notes = list(result.notes)
    if result.matched == "any":
        notes.append("no session has every word; sessions with any of them")
    return SearchResult(tuple(result.hits), tuple(result.items), tuple(notes))
