"""Rebuilding the ``member_skill`` cache from the skill event log (DESIGN I3, §3).

A rebuild recomputes every position from the member's current session axis, then the
weights, set membership, tracks and use counts from the log. It runs when a member's
axis changes (a session classified, unclassified or attributed by an execution), when a
skill changes track, and on demand; it never reads the cache it replaces.

Most (member, skill) pairs have a simple history — one entry into the set, then uses in
sessions of the member's axis — and their weight is the closed form
``W(A) = Σ v_j · 2^(−(A − a_j)/h)`` at a reference point ``A`` (the member's session
count, or today): one SQL aggregate over the uses, joined to the axis, with the few
other events (entries, uses outside a session) added from a second, filtered scan.
Pairs with a richer history (re-entries, owner corrections, uses in sessions that left
the axis) are rebuilt one by one from their events with the pure maths
(:func:`viva_store.services.skill_state.state_from_events`), the reference path the
tests compare everything with.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, case, delete, func, insert, or_, select

from viva_store.clock import as_utc
from viva_store.services.skill_axis import (
    Anchors,
    Axis,
    load_anchors,
    load_axes,
    on_axis,
    place,
    save_count,
    tau,
)
from viva_store.services.skill_sql import (
    ENTER_KINDS,
    MS,
    SE,
    STATUS_KINDS,
    WEIGHT_KINDS,
    A,
    M,
    S,
    chunks,
    day_of,
    to_datetime,
)
from viva_store.services.skill_state import WEIGHT_KIND, PairState, PlacedEvent, state_from_events
from viva_store.skills.params import SkillParams, Track

LN2 = math.log(2.0)
CONTROL_KINDS = (*ENTER_KINDS, "revalued", "track_changed", "forgotten")
Key = tuple[str, str]


@dataclass(slots=True)
class _Pair:
    """What the filtered scan says about one pair."""

    enters: list[Any] = field(default_factory=list)
    loose_uses: list[Any] = field(default_factory=list)  # uses tied to no session
    revalues: int = 0
    track: Track = "session"
    status: str | None = None


def members_natives(conn: Connection, members: Iterable[str]) -> dict[str, set[str]]:
    """Each member's native skills (from its ``soul.md``, as loaded)."""
    out: dict[str, set[str]] = {}
    for part in chunks(sorted(set(members))):
        for name, natives in conn.execute(
            select(M.c.name, M.c.native_skills).where(M.c.name.in_(part))
        ):
            out[name] = set(natives or ())
    return out


def _member_filter(column: Any, members: list[str] | None) -> list[Any]:
    # `column + ''`: a rebuild reads a large share of a member's events, which a scan
    # delivers faster than SQLite's walk of the (member, skill, id) index with one table
    # lookup per row.
    return [] if members is None else [(column + "").in_(members)]


def _control(conn: Connection, members: list[str] | None) -> dict[Key, _Pair]:
    pairs: dict[Key, _Pair] = defaultdict(_Pair)
    rows = conn.execute(
        select(
            SE.c.id,
            SE.c.member,
            SE.c.skill,
            SE.c.kind,
            SE.c.value,
            SE.c.session_id,
            SE.c.execution_id,
            SE.c.track,
            SE.c.day,
            SE.c.at,
        )
        .where(
            or_(SE.c.kind.in_(CONTROL_KINDS), and_(SE.c.kind == "used", SE.c.session_id.is_(None))),
            *_member_filter(SE.c.member, members),
        )
        .order_by(SE.c.id)
    )
    for row in rows:
        pair = pairs[(row.member, row.skill)]
        if row.kind in ENTER_KINDS:
            pair.enters.append(row)
        elif row.kind == "used":
            pair.loose_uses.append(row)
        elif row.kind == "revalued":
            pair.revalues += 1
        elif row.kind == "track_changed" and row.track in ("session", "time"):
            pair.track = row.track
        if row.kind in STATUS_KINDS:
            pair.status = "forgotten" if row.kind == "forgotten" else "active"
    return pairs


def _aggregate(
    conn: Connection, members: list[str] | None, params: SkillParams, ref_day: float, days: bool
) -> dict[Key, Any]:
    """Per pair, the uses tied to a session: the closed form at the reference points."""
    axis_q = (
        select(
            A.c.member,
            S.c.id.label("sid"),
            S.c.started_at,
            func.row_number()
            .over(partition_by=A.c.member, order_by=(S.c.started_at, S.c.id))
            .label("ord"),
            func.count().over(partition_by=A.c.member).label("n"),
        )
        .join_from(A, S, S.c.id == A.c.session_id)
        .where(*on_axis())
    )  # type: ignore[arg-type]
    if members is not None:
        axis_q = axis_q.where(A.c.member.in_(members))
    axis = axis_q.cte("axis")
    k_s = LN2 / params.half_life_sessions
    columns: list[Any] = [
        SE.c.member,
        SE.c.skill,
        func.count().label("n_used"),
        func.count(axis.c.sid).label("n_axis"),
        func.sum(SE.c.value * func.exp((axis.c.ord - axis.c.n) * k_s)).label("w_s"),
        func.max(axis.c.ord).label("max_ord"),
        func.min(SE.c.id).label("min_id"),
        func.max(SE.c.id).label("max_id"),
        func.max(case((SE.c.value > 0, axis.c.started_at))).label("last_tau"),
    ]
    if days:
        k_d = LN2 / params.half_life_days
        columns += [
            func.sum(SE.c.value * func.exp((SE.c.day - ref_day) * k_d)).label("w_d"),
            func.max(SE.c.day).label("max_day"),
        ]
    query = (
        select(*columns)
        .select_from(
            SE.outerjoin(axis, and_(axis.c.sid == SE.c.session_id, axis.c.member == SE.c.member))
        )
        .where(
            SE.c.kind == "used", SE.c.session_id.is_not(None), *_member_filter(SE.c.member, members)
        )
        .group_by(SE.c.member, SE.c.skill)
    )
    return {(r.member, r.skill): r for r in conn.execute(query)}


def compute_states(
    conn: Connection, params: SkillParams, now: datetime, members: Iterable[str] | None = None
) -> tuple[dict[Key, PairState], dict[str, Axis]]:
    """Every pair's state derived from the log, and the axes used (members: all if None)."""
    names = (
        sorted(set(members))
        if members is not None
        else sorted(conn.execute(select(M.c.name)).scalars())
    )
    chosen = None if members is None else names
    axes = load_axes(conn, names)
    natives = members_natives(conn, names)
    control = _control(conn, chosen)
    ref_day = math.floor(day_of(now))
    days = any(p.track == "time" for p in control.values())
    agg = _aggregate(conn, chosen, params, ref_day, days)
    anchors = load_anchors(
        conn,
        (),
        [
            r.execution_id
            for p in control.values()
            for r in (*p.enters, *p.loose_uses)
            if r.execution_id
        ],
    )
    states: dict[Key, PairState] = {}
    slow: list[tuple[Key, _Pair]] = []
    for key, pair in control.items():
        if key[0] not in axes or not pair.enters:
            continue
        row = agg.get(key)
        epoch = pair.enters[-1].id
        simple = (
            len(pair.enters) == 1
            and pair.revalues == 0
            and (row is None or (row.n_used == row.n_axis and row.min_id > epoch))
            and all(u.id > epoch for u in pair.loose_uses)
        )
        if not simple:
            slow.append((key, pair))
            continue
        native = key[1] in natives.get(key[0], set())
        states[key] = _fast(key, pair, row, axes[key[0]], anchors, params, ref_day, native)
    for key, pair in slow:
        member, skill = key
        events = load_pair_events(conn, member, skill, axes[member])
        state = state_from_events(
            member,
            skill,
            events,
            pair.track,
            pair.status or "active",
            skill in natives.get(member, set()),
            params,
        )
        if state is not None:
            states[key] = state
    return states, axes


def _fast(
    key: Key,
    pair: _Pair,
    row: Any,
    axis: Axis,
    anchors: Anchors,
    params: SkillParams,
    ref_day: float,
    native: bool,
) -> PairState:
    enter = pair.enters[-1]
    enter_pos = float(place(axis, anchors, None, enter.execution_id, as_utc(enter.at)))
    track = pair.track
    if track == "session":
        ref, h = float(axis.now), params.half_life_sessions
        total = float(row.w_s or 0.0) if row is not None else 0.0
        furthest = float(row.max_ord) if row is not None and row.max_ord is not None else -math.inf
        own = enter_pos
    else:
        ref, h = float(ref_day), params.half_life_days
        total = float(row.w_d or 0.0) if row is not None else 0.0
        furthest = float(row.max_day) if row is not None and row.max_day is not None else -math.inf
        own = float(enter.day)
    total += float(enter.value) * math.exp2((own - ref) / h)
    furthest = max(furthest, own)
    last_tau = to_datetime(row.last_tau) if row is not None else None
    last_seq = max(int(enter.id), int(row.max_id) if row is not None else 0)
    for use in pair.loose_uses:
        pos = float(place(axis, anchors, None, use.execution_id, as_utc(use.at)))
        a = pos if track == "session" else float(use.day)
        total += float(use.value) * math.exp2((a - ref) / h)
        furthest = max(furthest, a)
        last_seq = max(last_seq, int(use.id))
        if float(use.value) > 0:
            t = tau(anchors, None, use.execution_id, as_utc(use.at))
            last_tau = t if last_tau is None or t > last_tau else last_tau
    w_ref = total * math.exp2((ref - furthest) / h)
    n_uses = (int(row.n_used) if row is not None else 0) + len(pair.loose_uses)
    return PairState(
        member=key[0],
        skill=key[1],
        track=track,
        status=pair.status or "active",
        native=native,
        w_ref=w_ref,
        a_ref=furthest,
        epoch_seq=int(enter.id),
        last_seq=last_seq,
        uses=n_uses,
        entered_pos=enter_pos,
        entered_day=float(enter.day),
        last_used_at=last_tau,
    )


def load_pair_events(conn: Connection, member: str, skill: str, axis: Axis) -> list[PlacedEvent]:
    """One pair's weight events, placed on the member's current axis."""
    rows = list(
        conn.execute(
            select(
                SE.c.id,
                SE.c.kind,
                SE.c.value,
                SE.c.session_id,
                SE.c.execution_id,
                SE.c.target_id,
                SE.c.day,
                SE.c.at,
            )
            .where(SE.c.member == member, SE.c.skill == skill, SE.c.kind.in_(WEIGHT_KINDS))
            .order_by(SE.c.id)
        )
    )
    anchors = load_anchors(
        conn,
        [r.session_id for r in rows if r.session_id],
        [r.execution_id for r in rows if r.execution_id],
    )
    return [
        PlacedEvent(
            seq=int(r.id),
            kind=WEIGHT_KIND[r.kind],
            value=float(r.value or 0.0),
            session_pos=float(place(axis, anchors, r.session_id, r.execution_id, as_utc(r.at))),
            day=float(r.day),
            tau=tau(anchors, r.session_id, r.execution_id, as_utc(r.at)),
            target_seq=r.target_id,
        )
        for r in rows
    ]


def pair_facts(conn: Connection, member: str, skill: str) -> tuple[Track, str | None]:
    """A pair's track and status (active / forgotten / None: never in the set), from the log."""
    track: Track = "session"
    status: str | None = None
    rows = conn.execute(
        select(SE.c.kind, SE.c.track)
        .where(
            SE.c.member == member,
            SE.c.skill == skill,
            SE.c.kind.in_((*STATUS_KINDS, "track_changed")),
        )
        .order_by(SE.c.id)
    )
    for kind, new_track in rows:
        if kind == "track_changed" and new_track in ("session", "time"):
            track = new_track
        elif kind in STATUS_KINDS:
            status = "forgotten" if kind == "forgotten" else "active"
    return track, status


def rebuild_pair(
    conn: Connection, params: SkillParams, member: str, skill: str, axis: Axis, now: datetime
) -> PairState | None:
    """Rebuild one pair from its events and store it in the cache."""
    track, status = pair_facts(conn, member, skill)
    natives = members_natives(conn, [member]).get(member, set())
    events = load_pair_events(conn, member, skill, axis)
    state = state_from_events(
        member, skill, events, track, status or "active", skill in natives, params
    )
    conn.execute(delete(MS).where(MS.c.member == member, MS.c.skill == skill))
    if state is not None:
        conn.execute(insert(MS).values(**state.values(), updated_at=now))
    return state


def write_states(
    conn: Connection,
    members: Iterable[str],
    states: dict[Key, PairState],
    axes: dict[str, Axis],
    now: datetime,
) -> None:
    """Replace the cache rows and the axis counts of ``members`` with a rebuild's."""
    names = sorted(set(members))
    for part in chunks(names):
        conn.execute(delete(MS).where(MS.c.member.in_(part)))
    rows = [{**s.values(), "updated_at": now} for k, s in states.items() if k[0] in set(names)]
    for part in chunks(rows, 2000):
        conn.execute(insert(MS), list(part))
    for name in names:
        save_count(conn, name, axes[name].now if name in axes else 0)


def rebuild_members(
    conn: Connection, params: SkillParams, now: datetime, members: Iterable[str] | None = None
) -> dict[Key, PairState]:
    """Rebuild the cache of ``members`` (all when None) from the log, in this transaction."""
    states, axes = compute_states(conn, params, now, members)
    write_states(conn, axes.keys(), states, axes, now)
    return states


def read_cache(conn: Connection, members: Iterable[str] | None = None) -> dict[Key, PairState]:
    """The cached states (for comparison with a rebuild, and for readers)."""
    query = select(MS)
    if members is not None:
        query = query.where(MS.c.member.in_(sorted(set(members))))
    return {(r.member, r.skill): PairState.from_row(r) for r in conn.execute(query)}


def same_state(a: PairState, b: PairState, rel: float = 1e-9) -> bool:
    """Equal up to floating-point rounding of the weights (everything else exactly)."""
    close = math.isclose(a.w_ref, b.w_ref, rel_tol=rel, abs_tol=1e-12) and math.isclose(
        a.a_ref, b.a_ref, rel_tol=rel, abs_tol=1e-9
    )
    return close and replace(a, w_ref=0.0, a_ref=0.0) == replace(b, w_ref=0.0, a_ref=0.0)
