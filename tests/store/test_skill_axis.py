"""The session axes kept as rows (``skill_axis``): fresh after every attribution change,
checked against attribution, and the positions read from them those of the live axis."""

from __future__ import annotations

from bisect import bisect_right
from datetime import timedelta

import pytest
from sqlalchemy import Connection, delete, select

from tests.store.test_skillset_support import T0, insert_sessions, live_axis
from viva_store.db.schema import SKILL_AXIS
from viva_store.skills import axis as skill_axis
from viva_store.skills.axis import Anchors, Placer, position_at, refresh_axes, session_count
from viva_store.skills.skillset import check_cache, rebuild_skills
from viva_store.store import Context
from viva_store.triage.classify import unclassify


def _stored(ctx: Context, member: str) -> dict[str, int]:
    rows = ctx.store.read(
        lambda c: list(
            c.execute(
                select(SKILL_AXIS.c.session_id, SKILL_AXIS.c.ordinal).where(
                    SKILL_AXIS.c.member == member
                )
            )
        )
    )
    return {sid: int(n) for sid, n in rows}


def _live(ctx: Context, member: str) -> dict[str, int]:
    return ctx.store.read(lambda c: live_axis(c, member)[1])


def test_rows_follow_classify_and_unclassify(ctx: Context) -> None:
    late = insert_sessions(ctx, "deven", [T0 + timedelta(hours=h) for h in range(5)], "late")
    early = insert_sessions(ctx, "deven", [T0 - timedelta(hours=h) for h in (1, 2)], "early")
    assert _stored(ctx, "deven") == _live(ctx, "deven")
    assert _stored(ctx, "deven")[late[0]] == 3  # behind the two earlier sessions
    assert ctx.store.read(lambda c: session_count(c, "deven")) == 7
    unclassify(ctx, [early[0]])
    assert _stored(ctx, "deven") == _live(ctx, "deven")
    assert early[0] not in _stored(ctx, "deven")
    assert ctx.store.read(lambda c: session_count(c, "deven")) == 6
    assert check_cache(ctx) == []


def test_check_reports_stale_rows_and_rebuild_repairs_them(ctx: Context) -> None:
    insert_sessions(ctx, "deven", [T0 + timedelta(hours=h) for h in range(3)], "s")
    ctx.store.write(lambda c: c.execute(delete(SKILL_AXIS).where(SKILL_AXIS.c.member == "deven")))
    assert any("stored session axis" in p for p in check_cache(ctx))
    rebuild_skills(ctx)
    assert check_cache(ctx) == []


@pytest.mark.parametrize("probes", [1000, 0], ids=["by probe", "by load"])
def test_positions_are_the_live_axis_counts(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, probes: int
) -> None:
    starts = [T0 + timedelta(minutes=30 * k) for k in range(40)]
    sids = insert_sessions(ctx, "deven", starts, "p")
    instants = [T0 - timedelta(hours=1)] + [
        s + timedelta(minutes=k % 3 * 10) for k, s in enumerate(starts)
    ]
    expected = [bisect_right(starts, t) for t in instants]
    monkeypatch.setattr(skill_axis, "_PROBES", probes)

    def work(conn: Connection) -> tuple[list[int], list[int], list[int]]:
        placer = Placer(conn, Anchors())
        for t in instants:
            placer.want("deven", None, None, t)
        for sid in sids:
            placer.want("deven", sid, None, T0)
        placer.resolve()
        placed = [placer.position("deven", None, None, t) for t in instants]
        ordinals = [placer.position("deven", sid, None, T0) for sid in sids]
        return placed, ordinals, [position_at(conn, "deven", t) for t in instants]

    placed, ordinals, one_by_one = ctx.store.read(work)
    assert placed == expected
    assert one_by_one == expected
    assert ordinals == list(range(1, len(sids) + 1))


def test_refresh_all_members(ctx: Context) -> None:
    insert_sessions(ctx, "deven", [T0], "a")
    ctx.store.write(lambda c: c.execute(delete(SKILL_AXIS)))
    ctx.store.write(lambda c: refresh_axes(c))
    assert _stored(ctx, "deven") == _live(ctx, "deven") == {"sa00000": 1}
