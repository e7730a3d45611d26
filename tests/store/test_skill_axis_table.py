"""The session axes kept as rows (``skill_axis``): fresh after every attribution change,
and the rebuild's placement from them equal to the live axis's."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Connection, delete, select

from tests.store.test_skillset_support import T0, insert_sessions
from viva_store.db.schema import SKILL_AXIS
from viva_store.skills import axis_table as skill_axis_table
from viva_store.skills.axis import Anchors, load_axes, place
from viva_store.skills.axis_table import Placer, refresh_axes
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
    return ctx.store.read(lambda c: load_axes(c, [member])[member].ordinal)


def test_rows_follow_classify_and_unclassify(ctx: Context) -> None:
    late = insert_sessions(ctx, "deven", [T0 + timedelta(hours=h) for h in range(5)], "late")
    early = insert_sessions(ctx, "deven", [T0 - timedelta(hours=h) for h in (1, 2)], "early")
    assert _stored(ctx, "deven") == _live(ctx, "deven")
    assert _stored(ctx, "deven")[late[0]] == 3  # behind the two earlier sessions
    unclassify(ctx, [early[0]])
    assert _stored(ctx, "deven") == _live(ctx, "deven")
    assert early[0] not in _stored(ctx, "deven")
    assert check_cache(ctx) == []


def test_check_reports_stale_rows_and_rebuild_repairs_them(ctx: Context) -> None:
    insert_sessions(ctx, "deven", [T0 + timedelta(hours=h) for h in range(3)], "s")
    ctx.store.write(lambda c: c.execute(delete(SKILL_AXIS).where(SKILL_AXIS.c.member == "deven")))
    assert any("stored session axis" in p for p in check_cache(ctx))
    rebuild_skills(ctx)
    assert check_cache(ctx) == []


def test_placer_matches_place_by_probe_and_by_load(ctx: Context) -> None:
    starts = [T0 + timedelta(minutes=30 * k) for k in range(40)]
    insert_sessions(ctx, "deven", starts, "p")
    instants = [T0 - timedelta(hours=1)] + [
        s + timedelta(minutes=k % 3 * 10) for k, s in enumerate(starts)
    ]

    def positions(conn: Connection, probes: int) -> list[int]:
        skill_axis_table._PROBES = probes
        placer = Placer(conn, Anchors())
        for t in instants:
            placer.want("deven", None, None, t)
        placer.resolve()
        return [placer.position("deven", None, None, t) for t in instants]

    def work(conn: Connection) -> tuple[list[int], list[int], list[int]]:
        axis = load_axes(conn, ["deven"])["deven"]
        expected = [place(axis, Anchors(), None, None, t) for t in instants]
        return expected, positions(conn, 1000), positions(conn, 0)

    saved = skill_axis_table._PROBES
    try:
        expected, probed, loaded = ctx.store.read(work)
    finally:
        skill_axis_table._PROBES = saved
    assert probed == expected
    assert loaded == expected


def test_refresh_all_members(ctx: Context) -> None:
    insert_sessions(ctx, "deven", [T0], "a")
    ctx.store.write(lambda c: refresh_axes(c))
    assert _stored(ctx, "deven") == _live(ctx, "deven")
