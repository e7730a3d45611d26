"""A member's session axis: where each skill event sits on the session track.

The axis is the member's attributed sessions (``attribution.status = 'attributed'``),
sub-agent sessions excluded (they run inside their parent session and would count one
piece of work many times), sessions without a start time excluded, ordered by
``(started_at, id)``. Positions on it:

* an event tied to a session on the axis sits at that session's 1-based ordinal;
* an event tied to an execution whose session is on the axis sits at that session;
* any other event sits at the number of axis sessions started at or before its
  instant ``τ`` — the session's start, else the execution's start, else the event's
  ``at``;
* "now" is the number of sessions on the axis.

Classifying or unclassifying a session changes the axis, so positions are recomputed
from it on every rebuild (the stored ``session_pos`` is the position when recorded). The
number of sessions is cached per member in ``store_meta`` (key ``skill_axis:<member>``),
refreshed by every rebuild, so that a single use does not count thousands of sessions.
The ordinals themselves are kept as rows, refreshed with every attribution change
(:mod:`viva_store.skills.axis_table`): the rebuild and a use read them there;
this module derives the axis live (the reference, and the per-pair path).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Connection,
    DateTime,
    and_,
    bindparam,
    cast,
    delete,
    func,
    insert,
    or_,
    select,
)

from viva_store.clock import as_utc
from viva_store.db.raw import NeedsCore, RawTx
from viva_store.db.schema import ATTRIBUTION, CLASSIFICATION, EXECUTION, SESSION, STORE_META
from viva_store.skills.events import Prepared, Tx, chunks, sqlite_unindexed, to_datetime

AXIS_KEY = "skill_axis:"
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICRO = timedelta(microseconds=1)


def on_axis() -> list[ColumnElement[bool]]:
    """The SQL conditions that put an attributed session on its member's axis."""
    return [
        ATTRIBUTION.c.status == "attributed",
        SESSION.c.started_at.is_not(None),
        or_(SESSION.c.relation.is_(None), SESSION.c.relation != "subagent"),
    ]


def _identity(value: Any) -> Any:
    return value


@dataclass(slots=True)
class Axis:
    """One member's axis, loaded whole: start times in order and each session's ordinal.

    ``starts`` hold the start times as the database returned them (SQLite: its fixed-width
    text, which sorts as time does; PostgreSQL: datetimes), so loading 100,000 sessions
    parses nothing; ``key`` turns an instant into that form for comparisons.
    """

    member: str
    key: Callable[[datetime], Any] = _identity
    starts: list[Any] = field(default_factory=list)
    ordinal: dict[str, int] = field(default_factory=dict)

    @property
    def now(self) -> int:
        """The number of sessions on the axis: "now" on the session track."""
        return len(self.starts)

    def count_at(self, at: datetime) -> int:
        """Sessions on the axis started at or before ``at``."""
        return bisect_right(self.starts, self.key(as_utc(at)))


def _micros(at: datetime) -> int:
    return (as_utc(at) - _EPOCH) // _MICRO


def instant_key(conn: Connection) -> Callable[[datetime], Any]:
    """How an instant compares with start times loaded raw (see :class:`Axis`)."""
    if conn.dialect.name != "sqlite":
        return _micros
    process = DateTime(timezone=True).dialect_impl(conn.dialect).bind_processor(conn.dialect)
    assert process is not None
    return lambda at: process(as_utc(at))


def _axis_rows(started: Any, many: bool) -> Prepared:
    query = select(ATTRIBUTION.c.member, SESSION.c.id, started).join_from(
        ATTRIBUTION, SESSION, SESSION.c.id == ATTRIBUTION.c.session_id
    )
    if many:
        query = query.where(*on_axis()).order_by(
            ATTRIBUTION.c.member, SESSION.c.started_at, SESSION.c.id
        )
    else:
        query = query.where(ATTRIBUTION.c.member == bindparam("member"), *on_axis()).order_by(
            SESSION.c.started_at, SESSION.c.id
        )
    return Prepared(query)


# SQLite hands its timestamps over as text that sorts as time does; elsewhere the start is
# fetched as whole microseconds since the epoch (exact, and no datetime built per row).
_MICROS = cast(func.floor(func.extract("epoch", SESSION.c.started_at) * 1_000_000), BigInteger)
_ONE = {"sqlite": _axis_rows(SESSION.c.started_at, False), "other": _axis_rows(_MICROS, False)}
_ALL = {"sqlite": _axis_rows(SESSION.c.started_at, True), "other": _axis_rows(_MICROS, True)}


def load_axes(conn: Connection, members: Iterable[str]) -> dict[str, Axis]:
    """The whole axis of each of ``members`` (rows fetched raw: nothing is parsed).

    One query per member when there are few (an index walk each), one for everyone
    otherwise (a single join), keeping the members asked for.
    """
    key = instant_key(conn)
    names = sorted(set(members))
    axes = {name: Axis(name, key) for name in names}
    engine = "sqlite" if conn.dialect.name == "sqlite" else "other"
    if len(names) > 2:
        batches = [_ALL[engine].rows(conn, {})]
    else:
        batches = [_ONE[engine].rows(conn, {"member": name}) for name in names]
    for rows in batches:
        for member, sid, started in rows:
            axis = axes.get(member)
            if axis is not None:
                axis.starts.append(started)
                axis.ordinal[sid] = len(axis.starts)
    return axes


@dataclass(slots=True)
class Anchors:
    """Where events tied to sessions or executions sit in time, for placing them."""

    session_start: dict[str, datetime | None] = field(default_factory=dict)
    exec_session: dict[str, str] = field(default_factory=dict)
    exec_start: dict[str, datetime] = field(default_factory=dict)


def load_anchors(
    conn: Connection, session_ids: Iterable[str], execution_ids: Iterable[str]
) -> Anchors:
    """Start times of these sessions; the session and start of these executions."""
    anchors = Anchors()
    for part in chunks(sorted(set(session_ids))):
        for sid, started in conn.execute(
            select(SESSION.c.id, SESSION.c.started_at).where(SESSION.c.id.in_(part))
        ):
            anchors.session_start[sid] = as_utc(started) if started is not None else None
    for part in chunks(sorted(set(execution_ids))):
        for xid, started in conn.execute(
            select(EXECUTION.c.id, EXECUTION.c.started_at).where(EXECUTION.c.id.in_(part))
        ):
            anchors.exec_start[xid] = as_utc(started)
        rows = conn.execute(
            select(CLASSIFICATION.c.execution_id, CLASSIFICATION.c.session_id)
            .where(CLASSIFICATION.c.action == "execution", CLASSIFICATION.c.execution_id.in_(part))
            .order_by(CLASSIFICATION.c.id)
        )
        for xid, sid in rows:
            anchors.exec_session[xid] = sid
    return anchors


def tau(
    anchors: Anchors, session_id: str | None, execution_id: str | None, at: datetime
) -> datetime:
    """The instant an event stands for: its session's start, its execution's, or ``at``."""
    started = anchors.session_start.get(session_id) if session_id is not None else None
    if started is not None:
        return started
    if execution_id is not None and execution_id in anchors.exec_start:
        return anchors.exec_start[execution_id]
    return as_utc(at)


def place(
    axis: Axis, anchors: Anchors, session_id: str | None, execution_id: str | None, at: datetime
) -> int:
    """An event's position on ``axis`` (see the module's rules)."""
    sid = session_id
    if sid is None and execution_id is not None:
        sid = anchors.exec_session.get(execution_id)
    if sid is not None and sid in axis.ordinal:
        return axis.ordinal[sid]
    return axis.count_at(tau(anchors, session_id, execution_id, at))


# --- the cached session count, and positions without loading the whole axis ---------

_GET_COUNT = Prepared(select(STORE_META.c.value).where(STORE_META.c.key == bindparam("key")))
# Sessions of one member started after an instant, walked from the session.started_at
# index. `member || ''` keeps SQLite from driving the query by attribution.member
# instead, which would visit every session the member ever had (PostgreSQL, by
# statistics, walks the started_at range; hiding the index there made it scan the table).
_AFTER = (
    select(func.count())
    .select_from(SESSION.join(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id))
    .where(sqlite_unindexed(ATTRIBUTION.c.member) == bindparam("member"), *on_axis())
)
_COUNT_AFTER_TIME = Prepared(_AFTER.where(SESSION.c.started_at > bindparam("t")))
COUNT_AFTER_SESSION = _AFTER.where(
    SESSION.c.started_at >= bindparam("t"),
    or_(
        SESSION.c.started_at > bindparam("t"),
        and_(SESSION.c.started_at == bindparam("t"), SESSION.c.id > bindparam("sid")),
    ),
)
"""Sessions of ``member``'s axis after session ``sid`` started at ``t``."""
_COUNT_AFTER_SESSION = Prepared(COUNT_AFTER_SESSION)


def count_sessions(conn: Connection, member: str) -> int:
    """The number of sessions on ``member``'s axis, counted (not cached)."""
    return int(
        conn.execute(
            select(func.count())
            .select_from(ATTRIBUTION.join(SESSION, SESSION.c.id == ATTRIBUTION.c.session_id))
            .where(ATTRIBUTION.c.member == member, *on_axis())
        ).scalar_one()
    )


def save_count(conn: Connection, member: str, n: int) -> None:
    """Cache the number of sessions on ``member``'s axis."""
    key = AXIS_KEY + member
    conn.execute(delete(STORE_META).where(STORE_META.c.key == key))
    conn.execute(insert(STORE_META).values(key=key, value=str(n)))


def save_counts(conn: Connection, counts: dict[str, int]) -> None:
    """Cache the number of sessions on the axes of several members (two statements a
    chunk, not two a member)."""
    for part in chunks(sorted(counts)):
        keys = [AXIS_KEY + name for name in part]
        conn.execute(delete(STORE_META).where(STORE_META.c.key.in_(keys)))
        conn.execute(
            insert(STORE_META), [{"key": AXIS_KEY + n, "value": str(counts[n])} for n in part]
        )


def cached_count(conn: Tx, member: str) -> int | None:
    """The cached number of sessions on ``member``'s axis (None: not cached yet)."""
    row = _GET_COUNT.first(conn, {"key": AXIS_KEY + member})
    return None if row is None else int(row[0])


def axis_now(conn: Tx, member: str) -> int:
    """ "Now" on ``member``'s session track: its cached number of sessions (write transaction)."""
    cached = cached_count(conn, member)
    if cached is not None:
        return cached
    if isinstance(conn, RawTx):
        raise NeedsCore("the member's session count is not cached yet")
    n = count_sessions(conn, member)
    save_count(conn, member, n)
    return n


def position_at(conn: Tx, member: str, now: int, at: datetime) -> int:
    """Axis sessions started at or before ``at``: ``now`` minus those started after."""
    t = as_utc(at)
    row = _COUNT_AFTER_TIME.first(conn, {"t": t, "member": member})
    return now - int(row[0] if row else 0)


def position_of_session(
    conn: Tx, member: str, now: int, session_id: str, started_at: datetime
) -> int:
    """The ordinal of a session on ``member``'s axis (it must be on it)."""
    t = as_utc(started_at)
    row = _COUNT_AFTER_SESSION.first(conn, {"t": t, "member": member, "sid": session_id})
    return now - int(row[0] if row else 0)


def starts_after(conn: Connection, member: str, at: datetime) -> list[datetime]:
    """Start times of ``member``'s axis sessions started after ``at``, in order."""
    t = as_utc(at)
    rows = conn.execute(
        select(SESSION.c.started_at)
        .select_from(SESSION.join(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id))
        .where(
            SESSION.c.started_at > t, sqlite_unindexed(ATTRIBUTION.c.member) == member, *on_axis()
        )
        .order_by(SESSION.c.started_at)
    )
    return [as_utc(v) for (v,) in rows]


def counter(
    conn: Connection, member: str, now: int, instants: Iterable[datetime]
) -> dict[datetime, int]:
    """Positions of many instants at once (one query from the earliest of them)."""
    wanted = sorted({as_utc(t) for t in instants})
    if not wanted:
        return {}
    later = starts_after(conn, member, wanted[0])
    return {t: now - (len(later) - bisect_right(later, t)) for t in wanted}


__all__ = [
    "AXIS_KEY",
    "COUNT_AFTER_SESSION",
    "Anchors",
    "Axis",
    "axis_now",
    "cached_count",
    "count_sessions",
    "counter",
    "load_anchors",
    "load_axes",
    "on_axis",
    "place",
    "position_at",
    "position_of_session",
    "save_count",
    "save_counts",
    "starts_after",
    "tau",
    "to_datetime",
]
