"""The demo reads like five weeks of a team's work, not a template repeated."""

from __future__ import annotations

from typing import Any

from sqlalchemy import func, select

from viva_store.db.schema import (
    ENGAGEMENT_EVENT,
    MESSAGE,
    PRINCIPLE_EVENT,
    PRINCIPLE_VERSION,
    SESSION,
    SKILL_EVENT,
)
from viva_store.demo.principles_week import PRINCIPLES
from viva_store.store import Context


def rows(ctx: Context, query: Any) -> list[Any]:
    return ctx.store.read(lambda conn: list(conn.execute(query)))


def test_titles_vary_and_nothing_is_padding(demo_ctx: Context) -> None:
    titles = [r.title for r in rows(demo_ctx, select(SESSION.c.title))]
    assert len(set(titles)) >= 0.6 * len(titles)
    padded = rows(demo_ctx, select(func.count()).where(MESSAGE.c.text.like("Next step %")))
    assert padded[0][0] == 0


def test_events_happen_at_their_own_times(demo_ctx: Context) -> None:
    for table in (SKILL_EVENT, PRINCIPLE_EVENT):
        stamps = {f"{r.at:%H:%M}" for r in rows(demo_ctx, select(table.c.at))}
        assert len(stamps) >= 8, table.name


def test_candidates_cite_sessions_of_their_own(demo_ctx: Context) -> None:
    demo_texts = {text for _, text, _ in PRINCIPLES}
    versions = rows(demo_ctx, select(PRINCIPLE_VERSION.c.text, PRINCIPLE_VERSION.c.evidence))
    cited = [tuple(r.evidence) for r in versions if r.text in demo_texts]
    assert len(cited) == len(PRINCIPLES) and all(cited)
    assert len(set(cited)) == len(cited)  # no two candidates cite the same review


def test_engagement_state_is_set(demo_ctx: Context) -> None:
    sources = {r.source for r in rows(demo_ctx, select(ENGAGEMENT_EVENT.c.source))}
    assert {"rule", "judge"} <= sources  # observed at each launch
    assert sources & {"explicit", "correction"}  # and set by hand now and then
