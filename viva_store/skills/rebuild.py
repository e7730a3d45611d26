"""Rebuilding the ``member_skill`` cache from the skill event log (DESIGN I3, §3).

A rebuild recomputes every position from the member's current session axis, then the
weights, set membership, tracks and use counts from the log. It runs when a member's
axis changes (a session classified, unclassified or attributed by an execution) and on
demand. Its states never come from the cache it replaces;
writing them, it compares with the cache to leave equal rows alone.

Most (member, skill) pairs have a simple history — one entry into the set, then uses —
and their weight is the closed form ``W(A) = Σ v_j · 2^(−(A − a_j)/h)``, kept as its
value at the furthest position folded in. The uses in sessions of the member's axis are
summed by one SQL aggregate joined to the axis (:mod:`viva_store.skills.scan`);
the latest entry comes from a second read, of the control events, already placed on the
axis; the few uses tied to no session are fetched with their positions and added here,
as are entries and uses tied to executions, which Python places. Pairs with a richer
history (uses from before a re-entry, owner corrections, uses in sessions that left the
axis, sums out of a double's range) are rebuilt one by one from their events with the
pure maths (:mod:`viva_store.skills.pair`).
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, case, delete, insert, select, tuple_

from viva_store.clock import as_utc
from viva_store.db.schema import MEMBER, MEMBER_SKILL, SKILL_EVENT
from viva_store.skills.axis import Placer, axis_counts, count_at, load_anchors, tau
from viva_store.skills.events import chunks, day_of
from viva_store.skills.pair import load_events, members_natives
from viva_store.skills.params import SkillParams, Track
from viva_store.skills.scan import Control, Key, Uses, fits, scan, shifts
from viva_store.skills.state import COLUMNS, PairState, same_state, state_from_events


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


_ROW_COLUMNS = ("id", "value", "execution_id", "day", "at")


def _loose_uses(conn: Connection, uses: dict[Key, Uses], keys: list[Key]) -> dict[Key, list[Any]]:
    """The uses tied to no session of these pairs, in log order: a single one by its id,
    several by a walk of the pair's index from the first one's id. Each comes with its
    position (``pos``) when tied to no execution either: one probe of the axis."""
    out: dict[Key, list[Any]] = {}
    single = {k: uses[k].loose_lo for k in keys if uses[k].n_loose == 1}
    pos = case(
        (SKILL_EVENT.c.execution_id.is_(None), count_at(SKILL_EVENT.c.member, SKILL_EVENT.c.at))
    ).label("pos")
    columns = [*(SKILL_EVENT.c[c] for c in _ROW_COLUMNS), pos]
    by_id: dict[int, Any] = {}
    for part in chunks(sorted(i for i in single.values() if i is not None)):
        for row in conn.execute(select(*columns).where(SKILL_EVENT.c.id.in_(part))).all():
            by_id[int(row.id)] = row
    for key in keys:
        first = uses[key].loose_lo
        if key in single and first is not None:
            out[key] = [by_id[first]]
            continue
        member, skill = key
        out[key] = list(
            conn.execute(
                select(*columns)
                .where(
                    SKILL_EVENT.c.member == member,
                    SKILL_EVENT.c.skill == skill,
                    SKILL_EVENT.c.id >= first,
                    SKILL_EVENT.c.kind == "used",
                    SKILL_EVENT.c.session_id.is_(None),
                )
                .order_by(SKILL_EVENT.c.id)
            )
        )
    return out


def member_names(conn: Connection, members: Iterable[str] | None) -> list[str]:
    """``members`` sorted, or every member's name when None."""
    if members is not None:
        return sorted(set(members))
    return sorted(conn.execute(select(MEMBER.c.name)).scalars())


def compute_states(
    conn: Connection,
    params: SkillParams,
    now: datetime,
    members: Iterable[str] | None = None,
    stats: dict[str, int] | None = None,
) -> dict[Key, PairState]:
    """Every pair's state derived from the log (members: all if None).

    ``stats``, when given, receives how many pairs took the aggregate ("fast") and the
    per-pair ("slow") path.
    """
    names = member_names(conn, members)
    chosen = None if members is None else names
    counts = axis_counts(conn, names)
    natives = members_natives(conn, names)
    shift = shifts(counts, params)
    ref_day = math.floor(day_of(now))
    ensure_exp(conn)
    uses, control = scan(conn, chosen, shift, params, ref_day)
    fast: list[Key] = []
    slow: list[Key] = []
    for key, c in control.items():
        if key[0] not in counts or c.enter_id is None:
            continue  # never in the set (reads, projections only)
        u = uses.get(key)
        # Earlier stays (entries before the latest one) do not count; the aggregate is
        # right as long as every use came after the latest entry, and every use tied to
        # a session is on the axis.
        simple = u is None or (
            u.min_used > c.enter_id
            and u.n_used - u.n_loose == u.n_axis
            and fits(u, shift[key[0]], params, ref_day)
        )
        (fast if simple and c.n_revalued == 0 else slow).append(key)
    extra = _loose_uses(conn, uses, [k for k in fast if k in uses and uses[k].n_loose])
    placer = _placer(conn, control, extra, [k for k in fast if control[k].enter_pos is None])
    states: dict[Key, PairState] = {}
    for key in fast:
        u, c = uses.get(key), control[key]
        states[key] = _fast(
            key,
            u,
            c,
            extra.get(key, []),
            key[1] in natives.get(key[0], set()),
            (shift[key[0]], ref_day),
            placer,
            params,
        )
    if stats is not None:
        stats["fast"], stats["slow"] = len(fast), len(slow)
    # The few pairs with a richer history: one by one from their events.
    slow_events = load_events(conn, slow)
    for key in slow:
        member, skill = key
        c = control[key]
        rebuilt = state_from_events(
            member,
            skill,
            slow_events[key],
            _track(c),
            _status(c),
            skill in natives.get(member, set()),
            params,
        )
        if rebuilt is not None:
            states[key] = rebuilt
    return states


def _placer(
    conn: Connection,
    control: dict[Key, Control],
    extra: dict[Key, list[Any]],
    entries: list[Key],
) -> Placer:
    """Positions of what SQL left to place: entries tied to executions, loose uses."""
    anchors = load_anchors(
        conn,
        (),
        [r.execution_id for rs in extra.values() for r in rs if r.execution_id]
        + [control[k].enter_execution for k in entries],
    )
    placer = Placer(conn, anchors)
    for key in entries:
        at = control[key].enter_at
        assert at is not None  # an entry's row
        placer.want(key[0], None, control[key].enter_execution, at)
    for key, rows in extra.items():
        for use in rows:
            if use.pos is None:
                placer.want(key[0], None, use.execution_id, use.at)
    placer.resolve()
    return placer


def _status(c: Control) -> str:
    """Forgotten when forgotten after the latest entry."""
    assert c.enter_id is not None
    return "forgotten" if (c.forgot_id or 0) > c.enter_id else "active"


def _track(c: Control) -> Track:
    return "time" if c.track == "time" else "session"


def _fast(
    key: Key,
    u: Uses | None,
    c: Control,
    extra: list[Any],
    native: bool,
    refs: tuple[int, float],
    placer: Placer,
    params: SkillParams,
) -> PairState:
    """A pair's state from its sums, its latest entry and the uses SQL left to place."""
    member = key[0]
    shift, ref_day = refs
    track = _track(c)
    assert c.enter_id is not None
    enter_pos = c.enter_pos
    if enter_pos is None:
        assert c.enter_at is not None
        enter_pos = placer.position(member, None, c.enter_execution, c.enter_at)
    last_tau = u.last_tau if u else None
    placed: list[tuple[float, float]] = []  # (position, value) of the loose uses
    for use in extra:
        at = (
            use.pos
            if use.pos is not None
            else placer.position(member, None, use.execution_id, use.at)
        )
        placed.append((at, use.value))
        if use.value > 0:
            t = tau(placer.anchors, None, use.execution_id, as_utc(use.at))
            last_tau = t if last_tau is None or t > last_tau else last_tau
    # The sum against ``ref``, the furthest position folded in, and the terms to add.
    total: float | None
    top: float | None
    if track == "session":
        ref, h = float(shift), params.half_life_sessions
        total, top = (u.w_s, u.max_ord) if u else (None, None)
        terms = [(float(enter_pos), c.enter_value), *placed]
    else:
        ref, h = ref_day, params.half_life_days
        total, top = (u.w_d, u.max_day) if u else (None, None)
        terms = [(c.enter_day, c.enter_value)]  # every use's day is in the sum already
    furthest = max(a for a, _ in terms) if top is None else max(float(top), *(a for a, _ in terms))
    w_ref = sum(float(v) * math.exp2((a - furthest) / h) for a, v in terms)
    if total:  # within range of ``furthest`` (see :func:`fits`)
        w_ref += float(total) * math.exp2((ref - furthest) / h)
    return PairState(
        member=member,
        skill=key[1],
        track=track,
        status=_status(c),
        native=native,
        w_ref=w_ref,
        a_ref=furthest,
        epoch_seq=c.enter_id,
        last_seq=max(c.enter_id, u.max_used) if u else c.enter_id,
        uses=u.n_used if u else 0,
        entered_pos=float(enter_pos),
        entered_day=c.enter_day,
        last_used_at=last_tau,
    )


def _insert_cache(conn: Connection, rows: list[dict[str, Any]]) -> None:
    """Insert cache rows: on PostgreSQL (psycopg 3) one COPY, a tenth of the time of an
    ``executemany`` of as many INSERTs; elsewhere the ``executemany``."""
    if conn.dialect.driver != "psycopg" or not rows:
        for part in chunks(rows, 2000):
            conn.execute(insert(MEMBER_SKILL), list(part))
        return
    columns = list(rows[0])
    cursor: Any = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    with cursor, cursor.copy(f"COPY {MEMBER_SKILL.name} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row([row[c] for c in columns])


def _cached(conn: Connection, members: list[str]) -> dict[Key, PairState]:
    """The cache rows of ``members`` as they stand."""
    query = select(*(MEMBER_SKILL.c[c] for c in COLUMNS))
    out: dict[Key, PairState] = {}
    for part in chunks(members):
        for row in conn.execute(query.where(MEMBER_SKILL.c.member.in_(part))).all():
            state = PairState.from_row(row)
            out[(state.member, state.skill)] = state
    return out


def write_states(
    conn: Connection, members: Iterable[str], states: dict[Key, PairState], now: datetime
) -> int:
    """Make the cache rows of ``members`` a rebuild's (``states``).

    Rows the rebuild left as they were — up to the rounding of the weights, as
    :func:`~viva_store.skills.state.same_state` compares them (a parallel sum
    adds in no fixed order) — are not written again: a rebuild after a session is filed
    changes the rows of the skills used in it, not the member's whole set. Returns how
    many rows were written.
    """
    names = sorted(set(members))
    chosen = set(names)
    new = {k: s for k, s in states.items() if k[0] in chosen}
    cached = _cached(conn, names)
    kept = {k for k, s in cached.items() if k in new and same_state(new[k], s)}
    stale = [k for k in cached if k not in kept]
    if len(stale) == len(cached):
        for part in chunks(names):
            conn.execute(delete(MEMBER_SKILL).where(MEMBER_SKILL.c.member.in_(part)))
    else:
        for keys in chunks(stale):
            conn.execute(
                delete(MEMBER_SKILL).where(
                    tuple_(MEMBER_SKILL.c.member, MEMBER_SKILL.c.skill).in_(keys)
                )
            )
    rows = [{**s.values(), "updated_at": now} for k, s in new.items() if k not in kept]
    _insert_cache(conn, rows)
    return len(rows)


def rebuild_members(
    conn: Connection, params: SkillParams, now: datetime, members: Iterable[str] | None = None
) -> dict[Key, PairState]:
    """Rebuild the cache of ``members`` (all when None) from the log, in this transaction."""
    states = compute_states(conn, params, now, members)
    write_states(conn, member_names(conn, members), states, now)
    return states
