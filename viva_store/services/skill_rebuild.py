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
Pairs with a richer history (uses from before a re-entry, owner corrections, uses in
sessions that left the axis) are rebuilt one by one from their events with the pure maths
(:func:`viva_store.services.skill_state.state_from_events`), the reference path the
tests compare everything with.
"""

from __future__ import annotations

import math
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select

from viva_store.clock import as_utc
from viva_store.services.skill_axis import load_anchors, load_axes, save_counts, tau
from viva_store.services.skill_axis_table import Placer, axis_counts
from viva_store.services.skill_pair import load_pair_events, members_natives
from viva_store.services.skill_scan import Group, Key, scan
from viva_store.services.skill_sql import (
    MS,
    SE,
    M,
    chunks,
    day_of,
    to_datetime,
)
from viva_store.services.skill_state import PairState, state_from_events
from viva_store.skills.params import SkillParams, Track


def ensure_exp(conn: Connection) -> None:
    """Make sure SQL has ``exp()``: PostgreSQL does; SQLite does from 3.35 when built with
    its math functions (Python's own builds are). Otherwise Python's ``math.exp`` is
    registered on the connection, slower but the same numbers."""
    if conn.dialect.name != "sqlite":
        return
    raw = conn.connection.driver_connection
    try:
        raw.execute("SELECT exp(0)").fetchone()  # type: ignore[union-attr]
    except sqlite3.OperationalError:
        raw.create_function("exp", 1, math.exp, deterministic=True)  # type: ignore[union-attr]


_ROW_COLUMNS = ("id", "value", "execution_id", "track", "day", "at")


def _rows_by_id(conn: Connection, ids: Iterable[int]) -> dict[int, Any]:
    """The few events the rebuild reads whole (entries, track changes, loose uses)."""
    out: dict[int, Any] = {}
    columns = [SE.c[c] for c in _ROW_COLUMNS]
    for part in chunks(sorted(set(ids))):
        for row in conn.execute(select(*columns).where(SE.c.id.in_(part))):
            out[int(row.id)] = row
    return out


def _loose_uses(
    conn: Connection, groups: dict[Key, Group], keys: list[Key]
) -> dict[Key, list[Any]]:
    """The uses tied to no session of these pairs, in log order: a single one by its id,
    several by a walk of the pair's index from the first one's id."""
    out: dict[Key, list[Any]] = defaultdict(list)
    first = {k: groups[k].loose_lo for k in keys}
    single = {k: i for k, i in first.items() if i is not None and groups[k].n_loose == 1}
    by_id = _rows_by_id(conn, single.values())  # the usual case: one, fetched by its id
    for key, i in single.items():
        out[key] = [by_id[i]]
    for member, skill in keys:
        g = groups[(member, skill)]
        if (member, skill) in single or g.loose_lo is None:
            continue
        rows = conn.execute(
            select(SE)
            .where(
                SE.c.member == member,
                SE.c.skill == skill,
                SE.c.id >= g.loose_lo,
                SE.c.kind == "used",
                SE.c.session_id.is_(None),
            )
            .order_by(SE.c.id)
        )
        out[(member, skill)] = list(rows)
    return out


def compute_states(
    conn: Connection,
    params: SkillParams,
    now: datetime,
    members: Iterable[str] | None = None,
    stats: dict[str, int] | None = None,
) -> tuple[dict[Key, PairState], dict[str, int]]:
    """Every pair's state derived from the log, and each member's number of axis sessions
    (members: all if None).

    ``stats``, when given, receives how many pairs took the aggregate ("fast") and the
    per-pair ("slow") path.
    """
    names = (
        sorted(set(members))
        if members is not None
        else sorted(conn.execute(select(M.c.name)).scalars())
    )
    chosen = None if members is None else names
    counts = axis_counts(conn, names)
    natives = members_natives(conn, names)
    ref_day = math.floor(day_of(now))
    ensure_exp(conn)
    scanned, rows = scan(conn, chosen, counts, params, ref_day)
    groups = {k: g for k, g in scanned.items() if k[0] in counts}
    fast: list[Key] = []
    slow: list[Key] = []
    entered: dict[Key, Any] = {}  # the latest entry of each pair in the set, once
    for key, g in groups.items():
        if g.enter_id is None:
            continue  # never in the set (reads, projections only)
        entered[key] = rows[g.enter_id]
        # Earlier stays (entries before the latest one) do not count; the aggregate is
        # right as long as every use came after the latest entry.
        simple = (
            g.n_revalued == 0
            and g.n_used - g.n_loose == g.n_axis  # every use in a session is on the axis
            and (g.min_used is None or g.min_used > int(entered[key].id))
        )
        (fast if simple else slow).append(key)
    loose = _loose_uses(conn, groups, [k for k in fast if groups[k].n_loose])
    anchors = load_anchors(
        conn,
        (),
        [r.execution_id for rs in loose.values() for r in rs if r.execution_id]
        + [entered[k].execution_id for k in fast if entered[k].execution_id],
    )
    placer = Placer(conn, anchors)
    for key in fast:
        enter = entered[key]
        placer.want(key[0], None, enter.execution_id, enter.at)
        for use in loose.get(key, []):
            placer.want(key[0], None, use.execution_id, use.at)
    placer.resolve()
    states: dict[Key, PairState] = {}
    for key in fast:
        g = groups[key]
        track = _track(rows, g.track_id)
        status = _status(g, entered[key])
        native = key[1] in natives.get(key[0], set())
        states[key] = _fast(
            key,
            g,
            entered[key],
            loose.get(key, []),
            (track, status, native),
            counts[key[0]],
            placer,
            params,
            ref_day,
        )
    if stats is not None:
        stats["fast"], stats["slow"] = len(fast), len(slow)
    # The few pairs with a richer history: one by one, on the whole axis of their member.
    axes = load_axes(conn, sorted({member for member, _ in slow}))
    for key in slow:
        member, skill = key
        g = groups[key]
        events = load_pair_events(conn, member, skill, axes[member])
        rebuilt = state_from_events(
            member,
            skill,
            events,
            _track(rows, g.track_id),
            _status(g, entered[key]),
            skill in natives.get(member, set()),
            params,
        )
        if rebuilt is not None:
            states[key] = rebuilt
    return states, counts


def _status(g: Group, enter: Any) -> str:
    """Forgotten when forgotten after the latest entry."""
    return "forgotten" if (g.forgot_id or 0) > int(enter.id) else "active"


def _track(rows: dict[int, Any], track_id: int | None) -> Track:
    if track_id is None:
        return "session"
    track = rows[track_id].track
    return "time" if track == "time" else "session"


def _fast(
    key: Key,
    g: Group,
    enter: Any,
    loose_uses: list[Any],
    facts: tuple[Track, str, bool],
    now_pos: int,
    placer: Placer,
    params: SkillParams,
    ref_day: float,
) -> PairState:
    track, status, native = facts
    member = key[0]
    enter_pos = float(placer.position(member, None, enter.execution_id, enter.at))
    if track == "session":
        ref, h = float(now_pos), params.half_life_sessions
        total = float(g.w_s or 0.0)
        furthest = float(g.max_ord) if g.max_ord is not None else -math.inf
        own = enter_pos
    else:
        ref, h = float(ref_day), params.half_life_days
        total = float(g.w_d or 0.0)
        furthest = float(g.max_day) if g.max_day is not None else -math.inf
        own = float(enter.day)
    total += float(enter.value) * math.exp2((own - ref) / h)
    furthest = max(furthest, own)
    last_tau = to_datetime(g.last_tau)
    for use in loose_uses:
        pos = float(placer.position(member, None, use.execution_id, use.at))
        a = pos if track == "session" else float(use.day)
        total += float(use.value) * math.exp2((a - ref) / h)
        furthest = max(furthest, a)
        if float(use.value) > 0:
            t = tau(placer.anchors, None, use.execution_id, as_utc(use.at))
            last_tau = t if last_tau is None or t > last_tau else last_tau
    return PairState(
        member=member,
        skill=key[1],
        track=track,
        status=status,
        native=native,
        w_ref=total * math.exp2((ref - furthest) / h),
        a_ref=furthest,
        epoch_seq=int(enter.id),
        last_seq=max(int(enter.id), int(g.max_used or 0)),
        uses=int(g.n_used),
        entered_pos=enter_pos,
        entered_day=float(enter.day),
        last_used_at=last_tau,
    )


def _insert_cache(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Insert cache rows: on PostgreSQL (psycopg 3) one COPY, a tenth of the time of an
    ``executemany`` of as many INSERTs; elsewhere the ``executemany``."""
    if conn.dialect.driver != "psycopg" or not rows:
        for part in chunks(rows, 2000):
            conn.execute(insert(MS), list(part))
        return
    columns = list(rows[0])
    cursor: Any = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    with cursor, cursor.copy(f"COPY {MS.name} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([row[c] for c in columns])


def write_states(
    conn: Connection,
    members: Iterable[str],
    states: dict[Key, PairState],
    counts: dict[str, int],
    now: datetime,
) -> None:
    """Replace the cache rows and the axis counts of ``members`` with a rebuild's."""
    names = sorted(set(members))
    for part in chunks(names):
        conn.execute(delete(MS).where(MS.c.member.in_(part)))
    chosen = set(names)
    rows = [{**s.values(), "updated_at": now} for k, s in states.items() if k[0] in chosen]
    _insert_cache(conn, rows)
    save_counts(conn, {name: counts.get(name, 0) for name in names})


def rebuild_members(
    conn: Connection, params: SkillParams, now: datetime, members: Iterable[str] | None = None
) -> dict[Key, PairState]:
    """Rebuild the cache of ``members`` (all when None) from the log, in this transaction."""
    states, counts = compute_states(conn, params, now, members)
    write_states(conn, counts.keys(), states, counts, now)
    return states
