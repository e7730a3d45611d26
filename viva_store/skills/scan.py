"""The rebuild's two reads of the skill event log, each grouped per (member, skill).

* The uses — most weight events — in one aggregate joined with the axis table
  (``skill_axis``; on PostgreSQL a parallel scan and hash join): counts, id bounds, and
  the closed-form sums ``Σ v · e^{k (a − shift)}`` of the uses in sessions on the
  member's axis (``w_s``: ``a`` the session's ordinal, against the member's shift) and
  of all uses on the time track (``w_d``: ``a`` the day, against the reference day).
  Uses tied to no session are counted and left to the caller to place; a use in a
  session off the axis sends its pair to the per-pair path.
* The control events — entries, corrections, track changes, forgets: a few per pair —
  whole and in log order through their partial index (``ix_skill_event_control``), each
  entry with its position on the axis (one probe of the axis's start index, unless it is
  tied to an execution: then the caller places it), grouped per pair here.

The sums are taken against one shift for every member (the largest session count), not
each member's own count: a constant costs nothing per row where a per-member ``CASE``
costs a tenth of the aggregate on PostgreSQL. A pair whose latest use on the axis is so
far behind the shift that its terms would leave the floating-point range goes to the
per-pair path (see :func:`fits`); when the members' counts are that far apart, each gets
its own shift. (A probe per row inside the aggregate would cost the aggregate its
parallel plan on PostgreSQL, so the loose uses are not placed there.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Integer,
    and_,
    case,
    func,
    literal,
    literal_column,
    select,
)

from viva_store.db.schema import SKILL_AXIS, SKILL_EVENT
from viva_store.skills.axis import count_at
from viva_store.skills.events import ENTER_KINDS, decay, sqlite_unindexed, to_datetime
from viva_store.skills.params import SkillParams

Key = tuple[str, str]
CONTROL_KINDS = (*ENTER_KINDS, "revalued", "track_changed", "forgotten")
"""The kinds of ``ix_skill_event_control``'s predicate (migration 0010), in its order."""
# Literals, not parameters: SQLite uses a partial index only for a query whose WHERE
# repeats the index's predicate term for term.
_CONTROL = SKILL_EVENT.c.kind.in_([literal_column(f"'{k}'") for k in CONTROL_KINDS])
_ENTER = SKILL_EVENT.c.kind.in_([literal_column(f"'{k}'") for k in ENTER_KINDS])
# The predicate of ``ix_skill_event_uses`` (migration 0012, PostgreSQL), written out so
# that the planner can match it: the uses by an index-only scan.
_USED = SKILL_EVENT.c.kind == literal_column("'used'")
RANGE = 600.0
"""Largest exponent, in e-folds, a pair's greatest term may lose to its shift (e^-600 is
still a normal double; e^-745 is zero; SQL holds each exponent at -700 or above)."""


@dataclass(slots=True)
class Uses:
    """A pair's credited uses, aggregated."""

    n_used: int
    n_axis: int  # in sessions on the member's axis
    n_loose: int  # tied to no session
    loose_lo: int | None  # the first of those
    w_s: float | None  # Σ v·e^{k_s (ordinal − shift)} over the uses on the axis
    w_d: float | None  # Σ v·e^{k_d (day − ref_day)} over all uses
    max_ord: int | None
    max_day: float | None
    min_used: int
    max_used: int
    last_tau: datetime | None  # the latest session start of a use on the axis worth > 0


@dataclass(slots=True)
class Control:
    """A pair's control events: the latest entry (whole), forget and track."""

    enter_id: int | None
    enter_value: float
    enter_day: float
    enter_at: datetime | None
    enter_execution: str | None
    enter_pos: int | None  # None: tied to an execution, placed by the caller
    forgot_id: int | None
    track: str | None
    n_revalued: int


def shifts(counts: dict[str, int], params: SkillParams) -> dict[str, int]:
    """Each member's shift: the largest session count, unless the counts are too far apart
    for one (then each member's own)."""
    if not counts:
        return {}
    top, low = max(counts.values()), min(counts.values())
    if (top - low) * math.log(2.0) / params.half_life_sessions <= RANGE / 2:
        return dict.fromkeys(counts, top)
    return dict(counts)


def fits(uses: Uses | None, shift: int, params: SkillParams, ref_day: float) -> bool:
    """Whether the pair's sums kept their precision: its latest use on the axis within
    :data:`RANGE` e-folds of the shift, its latest use within them of the reference day."""
    if uses is None:
        return True
    k_s = math.log(2.0) / params.half_life_sessions
    k_d = math.log(2.0) / params.half_life_days
    if uses.max_ord is not None and (shift - uses.max_ord) * k_s > RANGE:
        return False
    return uses.max_day is None or abs(ref_day - uses.max_day) * k_d <= RANGE


def _member_filter(column: Any, members: list[str] | None) -> list[Any]:
    # Unindexed for SQLite: a rebuild reads a large share of a member's events, which a
    # scan delivers faster than SQLite's walk of the (member, skill, id) index with one
    # table lookup per row.
    return [] if members is None else [sqlite_unindexed(column).in_(members)]


def _shift_of(shift: dict[str, int]) -> ColumnElement[Any]:
    values = set(shift.values())
    if len(values) <= 1:
        return literal(values.pop() if values else 0, Integer)
    whens = {m: literal(n, Integer) for m, n in shift.items()}
    return case(whens, value=SKILL_AXIS.c.member, else_=literal(0))


def _uses(
    conn: Connection,
    members: list[str] | None,
    shift: dict[str, int],
    params: SkillParams,
    ref_day: float,
) -> dict[Key, Uses]:
    k_s = math.log(2.0) / params.half_life_sessions
    k_d = math.log(2.0) / params.half_life_days
    on = SKILL_AXIS.c.session_id.is_not(None)
    loose = SKILL_EVENT.c.session_id.is_(None)
    # Grouping by expressions keeps SQLite from walking (member, skill, id) and fetching
    # every event by rowid, several times slower than a scan and a sort; PostgreSQL
    # groups the columns themselves. Aggregates pick their rows with FILTER (PostgreSQL,
    # SQLite ≥ 3.30): a row left out costs no call, where CASE would pass a NULL.
    member = sqlite_unindexed(SKILL_EVENT.c.member).label("member")
    skill = sqlite_unindexed(SKILL_EVENT.c.skill).label("skill")
    query = (
        select(
            member,
            skill,
            func.count(),
            func.count(SKILL_AXIS.c.session_id),
            func.count().filter(loose),
            func.min(SKILL_EVENT.c.id).filter(loose),
            func.sum(
                SKILL_EVENT.c.value * decay((SKILL_AXIS.c.ordinal - _shift_of(shift)) * k_s)
            ).filter(on),
            func.sum(SKILL_EVENT.c.value * decay((SKILL_EVENT.c.day - ref_day) * k_d)),
            func.max(SKILL_AXIS.c.ordinal),
            func.max(SKILL_EVENT.c.day),
            func.min(SKILL_EVENT.c.id),
            func.max(SKILL_EVENT.c.id),
            func.max(SKILL_AXIS.c.started_at).filter(on, SKILL_EVENT.c.value > 0),
        )
        .select_from(
            SKILL_EVENT.outerjoin(
                SKILL_AXIS,
                and_(
                    SKILL_AXIS.c.session_id == SKILL_EVENT.c.session_id,
                    SKILL_AXIS.c.member == SKILL_EVENT.c.member,
                ),
            )
        )
        .where(_USED, *_member_filter(SKILL_EVENT.c.member, members))
        .group_by(member, skill)
    )
    out: dict[Key, Uses] = {}
    for r in conn.execute(query).all():
        out[(r[0], r[1])] = Uses(
            int(r[2]),
            int(r[3]),
            int(r[4]),
            r[5],
            r[6],
            r[7],
            r[8],
            r[9],
            r[10],
            r[11],
            to_datetime(r[12]),
        )
    return out


_CONTROL_COLUMNS = ("id", "member", "skill", "kind", "value", "day", "at", "execution_id", "track")


def _control(conn: Connection, members: list[str] | None) -> dict[Key, Control]:
    # The rows whole, in log order, each entry with its position on the axis; grouped
    # here (a few rows a pair: grouping them in SQL and joining the latest entry and
    # track back by id cost more than the rows).
    pos = case(
        (
            and_(_ENTER, SKILL_EVENT.c.execution_id.is_(None)),
            count_at(SKILL_EVENT.c.member, SKILL_EVENT.c.at),
        )
    )
    query = select(*(SKILL_EVENT.c[c] for c in _CONTROL_COLUMNS), pos).where(_CONTROL)
    if members is not None:
        query = query.where(SKILL_EVENT.c.member.in_(members))
    out: dict[Key, Control] = {}
    for i, member, skill, kind, value, day, at, execution, track, at_pos in conn.execute(
        query.order_by(SKILL_EVENT.c.id)
    ).all():
        c = out.get((member, skill))
        if c is None:
            c = out[(member, skill)] = Control(None, 0.0, 0.0, None, None, None, None, None, 0)
        if kind in ENTER_KINDS:
            c.enter_id, c.enter_value, c.enter_day = i, float(value), float(day)
            c.enter_at, c.enter_execution, c.enter_pos = to_datetime(at), execution, at_pos
        elif kind == "forgotten":
            c.forgot_id = i
        elif kind == "track_changed":
            c.track = track
        else:
            c.n_revalued += 1
    return out


def scan(
    conn: Connection,
    members: list[str] | None,
    shift: dict[str, int],
    params: SkillParams,
    ref_day: float,
) -> tuple[dict[Key, Uses], dict[Key, Control]]:
    """The uses and the control events of every pair (members: all if None)."""
    return _uses(conn, members, shift, params, ref_day), _control(conn, members)
