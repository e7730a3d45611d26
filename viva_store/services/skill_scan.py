"""The rebuild's two reads of the skill event log, grouped per (member, skill).

* The uses — most weight events — in one aggregate joined with the axis table
  (``skill_axis``): counts, id bounds, and the closed-form sums of the uses in sessions on
  the member's axis at the reference points (the member's session count, ``w_s``; a
  day, ``w_d``). On PostgreSQL a parallel scan and hash join.
* The control events — entries, corrections, track changes, forgets: a few per pair —
  fetched whole through their partial index (``ix_skill_event_control``), so the rebuild
  has the rows it reads (the latest entry, the latest track change) without a lookup.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Integer, and_, case, func, literal, literal_column, select

from viva_store.services.skill_axis_table import AX
from viva_store.services.skill_sql import ENTER_KINDS, SE, sqlite_unindexed
from viva_store.skills.params import SkillParams

LN2 = math.log(2.0)
Key = tuple[str, str]
CONTROL_KINDS = (*ENTER_KINDS, "revalued", "track_changed", "forgotten")
"""The kinds of ``ix_skill_event_control``'s predicate (migration 0010), in its order."""
# Literals, not parameters: SQLite uses a partial index only for a query whose WHERE
# repeats the index's predicate term for term.
_CONTROL = SE.c.kind.in_([literal_column(f"'{k}'") for k in CONTROL_KINDS])
_CONTROL_COLUMNS = ("id", "member", "skill", "kind", "value", "execution_id", "track", "day", "at")


@dataclass(slots=True)
class Group:
    """What the rebuild knows of one pair after the scans."""

    n_used: int = 0
    n_axis: int = 0
    n_loose: int = 0
    loose_lo: int | None = None
    w_s: float | None = None
    w_d: float | None = None
    max_ord: int | None = None
    max_day: float | None = None
    min_used: int | None = None
    max_used: int | None = None
    last_tau: Any = None
    enter_id: int | None = None
    forgot_id: int | None = None
    track_id: int | None = None
    n_revalued: int = 0


def _member_filter(column: Any, members: list[str] | None) -> list[Any]:
    # Unindexed for SQLite: a rebuild reads a large share of a member's events, which a
    # scan delivers faster than SQLite's walk of the (member, skill, id) index with one
    # table lookup per row.
    return [] if members is None else [sqlite_unindexed(column).in_(members)]


def _uses(
    conn: Connection,
    members: list[str] | None,
    counts: dict[str, int],
    params: SkillParams,
    ref_day: float,
) -> Any:
    # "Now" on each member's session track is its number of axis sessions, a value per
    # member; the join is with the maintained table (a parallel hash join on PostgreSQL).
    whens = {m: literal(c, Integer) for m, c in counts.items()}
    n = case(whens, value=AX.c.member, else_=literal(0)) if whens else literal(0)
    k_s = LN2 / params.half_life_sessions
    k_d = LN2 / params.half_life_days
    on = AX.c.session_id.is_not(None)
    loose = SE.c.session_id.is_(None)
    # Grouping by expressions keeps SQLite from walking (member, skill, id) and fetching
    # every event by rowid, several times slower than a scan and a sort; PostgreSQL
    # groups the columns themselves. Aggregates pick their rows with FILTER (PostgreSQL,
    # SQLite ≥ 3.30): a row left out costs no call, where CASE would pass a NULL.
    member = sqlite_unindexed(SE.c.member).label("member")
    skill = sqlite_unindexed(SE.c.skill).label("skill")
    query = (
        select(
            member,
            skill,
            func.count().label("n_used"),
            func.count(AX.c.session_id).label("n_axis"),
            func.count().filter(loose).label("n_loose"),
            func.min(SE.c.id).filter(loose).label("loose_lo"),
            func.sum(SE.c.value * func.exp((AX.c.ordinal - n) * k_s)).label("w_s"),
            func.sum(SE.c.value * func.exp((SE.c.day - ref_day) * k_d)).filter(on).label("w_d"),
            func.max(AX.c.ordinal).label("max_ord"),
            func.max(SE.c.day).filter(on).label("max_day"),
            func.min(SE.c.id).label("min_used"),
            func.max(SE.c.id).label("max_used"),
            func.max(AX.c.started_at).filter(on, SE.c.value > 0).label("last_tau"),
        )
        .select_from(
            SE.outerjoin(AX, and_(AX.c.session_id == SE.c.session_id, AX.c.member == SE.c.member))
        )
        .where(SE.c.kind == "used", *_member_filter(SE.c.member, members))
        .group_by(member, skill)
    )
    return conn.execute(query)


def scan(
    conn: Connection,
    members: list[str] | None,
    counts: dict[str, int],
    params: SkillParams,
    ref_day: float,
) -> tuple[dict[Key, Group], dict[int, Any]]:
    """Every pair with a use or a control event (members: all if None), and the control
    events by id."""
    groups: dict[Key, Group] = {}
    for r in _uses(conn, members, counts, params, ref_day):
        groups[(r.member, r.skill)] = Group(
            int(r.n_used),
            int(r.n_axis),
            int(r.n_loose),
            r.loose_lo,
            r.w_s,
            r.w_d,
            r.max_ord,
            r.max_day,
            r.min_used,
            r.max_used,
            r.last_tau,
        )
    query = select(*(SE.c[c] for c in _CONTROL_COLUMNS)).where(_CONTROL)
    if members is not None:
        query = query.where(SE.c.member.in_(members))
    rows: dict[int, Any] = {}
    for row in conn.execute(query.order_by(SE.c.id)):
        rows[int(row.id)] = row
        g = groups.setdefault((row.member, row.skill), Group())
        if row.kind in ENTER_KINDS:
            g.enter_id = int(row.id)
        elif row.kind == "forgotten":
            g.forgot_id = int(row.id)
        elif row.kind == "track_changed":
            g.track_id = int(row.id)
        else:
            g.n_revalued += 1
    return groups, rows
