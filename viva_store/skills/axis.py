"""A member's session axis (DESIGN §3): what positions on the session track count.

The axis is the member's attributed sessions (``attribution.status = 'attributed'``),
sub-agent sessions excluded (they run inside their parent session and would count one
piece of work many times), sessions without a start time excluded, ordered by
``(started_at, id)``; :func:`live_rows` is that definition in SQL. It is kept as rows of
``skill_axis`` (member, session, start, 1-based ordinal), written by :func:`refresh_axes`
wherever the axis can change — an attribution change, which rebuilds those members'
weights right after, and the owner's rebuild — so the rows are exactly as fresh as the
weight cache built from them (``viva skill rebuild --check`` compares them with
:func:`live_rows`). Every reader uses the rows; the rebuild joins them with the log (a
plain table: a parallel hash join on PostgreSQL). Positions on the axis:

* an event tied to a session on the axis sits at that session's ordinal;
* an event tied to an execution whose session is on the axis sits at that session;
* any other event sits at the number of axis sessions started at or before its
  instant ``τ`` — the session's start, else the execution's start, else the event's
  ``at``;
* "now" is the number of sessions on the axis.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    bindparam,
    delete,
    func,
    insert,
    or_,
    select,
)

from viva_store.clock import as_utc
from viva_store.db.schema import (
    ATTRIBUTION,
    CLASSIFICATION,
    EXECUTION,
    INSTANT,
    SESSION,
    SKILL_AXIS,
)
from viva_store.skills.events import chunks

Instant = tuple[str, datetime]
"""A member and an instant: where :func:`counts_at` places something."""
_COLUMNS = ("member", "session_id", "started_at", "ordinal")
_PROBES = 400
"""Up to this many instants (or sessions) of one member are looked up one by one (a
hundred probes a statement); more load the member's rows once."""


def on_axis() -> list[ColumnElement[bool]]:
    """The SQL conditions that put an attributed session on its member's axis."""
    return [
        ATTRIBUTION.c.status == "attributed",
        SESSION.c.started_at.is_not(None),
        or_(SESSION.c.relation.is_(None), SESSION.c.relation != "subagent"),
    ]


def live_rows(members: Sequence[str] | None) -> Select[Any]:
    """The axis rows as derived from attribution and sessions (members: all if None)."""
    query = (
        select(
            ATTRIBUTION.c.member,
            SESSION.c.id,
            SESSION.c.started_at,
            func.row_number()
            .over(partition_by=ATTRIBUTION.c.member, order_by=(SESSION.c.started_at, SESSION.c.id))
            .label("ordinal"),
        )
        .join_from(ATTRIBUTION, SESSION, SESSION.c.id == ATTRIBUTION.c.session_id)
        .where(*on_axis())
    )
    return query if members is None else query.where(ATTRIBUTION.c.member.in_(members))


def refresh_axes(conn: Connection, members: Iterable[str] | None = None) -> None:
    """Replace the ``skill_axis`` rows of ``members`` (all when None) with the live axis."""
    if members is None:
        conn.execute(delete(SKILL_AXIS))
        conn.execute(insert(SKILL_AXIS).from_select(_COLUMNS, live_rows(None)))
        return
    for part in chunks(sorted(set(members))):
        conn.execute(delete(SKILL_AXIS).where(SKILL_AXIS.c.member.in_(part)))
        conn.execute(insert(SKILL_AXIS).from_select(_COLUMNS, live_rows(part)))


def stale_axes(conn: Connection, members: Sequence[str]) -> list[str]:
    """The members whose ``skill_axis`` rows differ from their live axes."""
    stored: dict[str, set[tuple[str, int]]] = defaultdict(set)
    live: dict[str, set[tuple[str, int]]] = defaultdict(set)
    for part in chunks(sorted(set(members))):
        rows = select(SKILL_AXIS.c.member, SKILL_AXIS.c.session_id, SKILL_AXIS.c.ordinal)
        for member, sid, n in conn.execute(rows.where(SKILL_AXIS.c.member.in_(part))):
            stored[member].add((sid, int(n)))
        for member, sid, _, n in conn.execute(live_rows(part)):
            live[member].add((sid, int(n)))
    return [m for m in members if stored.get(m, set()) != live.get(m, set())]


def latest_ordinal(member: Any, at: Any = None) -> Any:
    """The ordinal of ``member``'s last axis session started at or before ``at`` (None:
    ever) — the number of its sessions by then, NULL for none — as a scalar subquery, one
    probe of the start index. ``member`` and ``at`` are values or columns of an outer
    query (which may join the axis itself: the probe reads its own alias)."""
    x = SKILL_AXIS.alias("x")
    query = select(x.c.ordinal).where(x.c.member == member)
    if at is not None:
        query = query.where(x.c.started_at <= at)
    order = (x.c.member.desc(), x.c.started_at.desc(), x.c.session_id.desc())
    return query.order_by(*order).limit(1).scalar_subquery()


def count_at(member: Any, at: Any) -> Any:
    """The number of ``member``'s axis sessions started at or before ``at`` (values or
    columns of the outer query): one probe of the start index, 0 for none."""
    return func.coalesce(latest_ordinal(member, at), 0)


def axis_counts(conn: Connection, members: Sequence[str]) -> dict[str, int]:
    """The number of sessions on each member's axis — "now" on its session track — one
    probe of the start index per member."""
    out: dict[str, int] = {}
    for part in chunks(list(members), 100):
        found = conn.execute(select(*(latest_ordinal(m) for m in part))).one()
        for member, n in zip(part, found, strict=True):
            out[member] = 0 if n is None else int(n)
    return out


_COUNT = select(func.coalesce(latest_ordinal(bindparam("member")), 0))
_COUNT_AT = select(count_at(bindparam("member"), bindparam("at", type_=INSTANT)))


def session_count(conn: Connection, member: str) -> int:
    """The number of sessions on ``member``'s axis: "now" on its session track."""
    return int(conn.execute(_COUNT, {"member": member}).scalar_one())


def position_at(conn: Connection, member: str, at: datetime) -> int:
    """The number of ``member``'s axis sessions started at or before ``at``."""
    return int(conn.execute(_COUNT_AT, {"member": member, "at": as_utc(at)}).scalar_one())


_PROBE_SQL = (
    "(SELECT ordinal FROM skill_axis WHERE member = {p} AND started_at <= {p} "
    "ORDER BY member DESC, started_at DESC, session_id DESC LIMIT 1)"
)


def _run_probes(conn: Connection, probes: Sequence[tuple[str, datetime]]) -> list[int]:
    """:func:`count_at` for many instants in one statement, written as SQL text: building
    that many Core selects cost more than running them."""
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    sql = "SELECT " + ", ".join([_PROBE_SQL.format(p=mark)] * len(probes))
    process = INSTANT.dialect_impl(conn.dialect).bind_processor(conn.dialect)
    values: list[Any] = []
    for member, t in probes:
        values += [member, process(t) if process else t]
    row = conn.exec_driver_sql(sql, tuple(values)).one()
    return [0 if n is None else int(n) for n in row]


def counts_at(conn: Connection, instants: Mapping[str, Iterable[datetime]]) -> dict[Instant, int]:
    """:func:`position_at` for many (member, instant) pairs at once."""
    out: dict[Instant, int] = {}
    probes: list[tuple[str, datetime]] = []
    for member, wanted in instants.items():
        times = sorted({as_utc(t) for t in wanted})
        if len(times) <= _PROBES:
            probes += [(member, t) for t in times]
            continue
        starts = [
            as_utc(v)
            for v in conn.execute(
                select(SKILL_AXIS.c.started_at)
                .where(SKILL_AXIS.c.member == member)
                .order_by(SKILL_AXIS.c.started_at, SKILL_AXIS.c.session_id)
            ).scalars()
        ]
        for t in times:
            out[(member, t)] = bisect_right(starts, t)
    for part in chunks(probes, 100):  # a hundred probes a statement, members mixed
        for key, n in zip(part, _run_probes(conn, part), strict=True):
            out[key] = n
    return out


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


class Placer:
    """Positions of many events on their members' axes (the rules of the module): register
    each with :meth:`want`, then :meth:`resolve` once, then ask :meth:`position`."""

    def __init__(self, conn: Connection, anchors: Anchors) -> None:
        self.conn = conn
        self.anchors = anchors
        self._wanted: dict[str, set[tuple[str | None, datetime]]] = defaultdict(set)
        self._ordinal: dict[tuple[str, str], int] = {}
        self._count: dict[Instant, int] = {}

    def _key(
        self, session_id: str | None, execution_id: str | None, at: datetime
    ) -> tuple[str | None, datetime]:
        sid = session_id
        if sid is None and execution_id is not None:
            sid = self.anchors.exec_session.get(execution_id)
        return sid, tau(self.anchors, session_id, execution_id, as_utc(at))

    def want(
        self, member: str, session_id: str | None, execution_id: str | None, at: datetime
    ) -> None:
        self._wanted[member].add(self._key(session_id, execution_id, at))

    def resolve(self) -> None:
        instants: dict[str, set[datetime]] = defaultdict(set)
        for member, wanted in self._wanted.items():
            sids = sorted({sid for sid, _ in wanted if sid is not None})
            query = select(SKILL_AXIS.c.session_id, SKILL_AXIS.c.ordinal).where(
                SKILL_AXIS.c.member == member
            )
            parts = (
                [query]
                if len(sids) > _PROBES
                else [query.where(SKILL_AXIS.c.session_id.in_(part)) for part in chunks(sids)]
            )
            for part in parts:
                for sid, ordinal in self.conn.execute(part):
                    self._ordinal[(member, sid)] = int(ordinal)
            for sid, t in wanted:
                if sid is None or (member, sid) not in self._ordinal:
                    instants[member].add(t)
        self._count = counts_at(self.conn, instants)

    def position(
        self, member: str, session_id: str | None, execution_id: str | None, at: datetime
    ) -> int:
        sid, t = self._key(session_id, execution_id, at)
        if sid is not None and (member, sid) in self._ordinal:
            return self._ordinal[(member, sid)]
        return self._count[(member, t)]
