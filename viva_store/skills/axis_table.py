"""The members' session axes kept as rows: ``skill_axis`` (member, session, start, ordinal).

The axis (see :mod:`viva_store.skills.axis`) is derived from ``attribution`` and
``session``. A rebuild needs every axis session's ordinal; computing them on the fly is a
window over all of the members' sessions, which PostgreSQL runs single-threaded and which
kept the rebuild's join with the log from running in parallel. The table holds them
instead: the rebuild joins a plain table (a parallel hash join on PostgreSQL), and places
other events by one index probe each.

The rows are refreshed, in the same transaction, wherever the axis can change — an
attribution change (:func:`viva_store.skills.derive.after_attribution`, which
rebuilds those members' weights right after) and the owner's on-demand rebuild — so they
are exactly as fresh as the weight cache built from them; the cache check behind
``viva skill rebuild`` (:func:`viva_store.skills.skillset.check_cache`) compares them
with the live axis.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Select, delete, func, insert, select

from viva_store.clock import as_utc
from viva_store.db.schema import ATTRIBUTION, SESSION, SKILL_AXIS
from viva_store.skills.axis import Anchors, Axis, on_axis, tau
from viva_store.skills.events import chunks, db_instant

_COLUMNS = ("member", "session_id", "started_at", "ordinal")
_PROBES = 400
"""Up to this many instants of one member are placed by an index probe each (a hundred
probes a statement); more load the member's start times once."""


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


def axis_counts(conn: Connection, members: Sequence[str]) -> dict[str, int]:
    """The number of sessions on each member's axis (0 for a member without any): the
    ordinal of its latest session, one probe of the start index per member."""
    out: dict[str, int] = {}
    for part in chunks(list(members), 100):
        found = conn.execute(select(*(latest_ordinal(m) for m in part))).one()
        for member, n in zip(part, found, strict=True):
            out[member] = 0 if n is None else int(n)
    return out


def stale_axes(conn: Connection, members: Sequence[str], axes: dict[str, Axis]) -> list[str]:
    """The members whose ``skill_axis`` rows differ from their live axes (``axes``)."""
    stored: dict[str, dict[str, int]] = defaultdict(dict)
    for member, sid, ordinal in conn.execute(
        select(SKILL_AXIS.c.member, SKILL_AXIS.c.session_id, SKILL_AXIS.c.ordinal).where(
            SKILL_AXIS.c.member.in_(members)
        )
    ):
        stored[member][sid] = int(ordinal)
    return [m for m in members if stored.get(m, {}) != (axes[m].ordinal if m in axes else {})]


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


_PROBE_SQL = (
    "(SELECT ordinal FROM skill_axis WHERE member = {p} AND started_at <= {p} "
    "ORDER BY member DESC, started_at DESC, session_id DESC LIMIT 1)"
)


def _run_probes(conn: Connection, probes: Sequence[tuple[str, datetime]]) -> list[int]:
    """:func:`latest_ordinal` for many instants in one statement, written as SQL text: building
    that many Core selects cost more than running them (~10 ms for 50)."""
    mark = "?" if conn.dialect.paramstyle == "qmark" else "%s"
    sql = "SELECT " + ", ".join([_PROBE_SQL.format(p=mark)] * len(probes))
    values: list[Any] = []
    for member, t in probes:
        values += [member, db_instant(conn.dialect, t)]
    row = conn.exec_driver_sql(sql, tuple(values)).one()
    return [0 if n is None else int(n) for n in row]


class Placer:
    """Positions of events on members' axes, read from ``skill_axis`` (the rules of
    :func:`viva_store.skills.axis.place`): register with :meth:`want`, then
    :meth:`resolve` once, then :meth:`position`."""

    def __init__(self, conn: Connection, anchors: Anchors) -> None:
        self.conn = conn
        self.anchors = anchors
        self._sids: dict[str, set[str]] = defaultdict(set)
        self._instants: dict[str, set[datetime]] = defaultdict(set)
        self._ordinal: dict[tuple[str, str], int] = {}
        self._count: dict[tuple[str, datetime], int] = {}

    def _session(self, session_id: str | None, execution_id: str | None) -> str | None:
        if session_id is None and execution_id is not None:
            return self.anchors.exec_session.get(execution_id)
        return session_id

    def want(
        self, member: str, session_id: str | None, execution_id: str | None, at: datetime
    ) -> None:
        sid = self._session(session_id, execution_id)
        if sid is not None:
            self._sids[member].add(sid)
        self._instants[member].add(tau(self.anchors, session_id, execution_id, as_utc(at)))

    def resolve(self) -> None:
        for member, sids in self._sids.items():
            for part in chunks(sorted(sids)):
                rows = self.conn.execute(
                    select(SKILL_AXIS.c.session_id, SKILL_AXIS.c.ordinal).where(
                        SKILL_AXIS.c.member == member, SKILL_AXIS.c.session_id.in_(part)
                    )
                )
                for sid, ordinal in rows:
                    self._ordinal[(member, sid)] = int(ordinal)
        probes: list[tuple[str, datetime]] = []
        for member, instants in self._instants.items():
            wanted = sorted(instants)
            if len(wanted) <= _PROBES:
                probes += [(member, t) for t in wanted]
                continue
            starts = [
                as_utc(v)
                for v in self.conn.execute(
                    select(SKILL_AXIS.c.started_at)
                    .where(SKILL_AXIS.c.member == member)
                    .order_by(SKILL_AXIS.c.started_at, SKILL_AXIS.c.session_id)
                ).scalars()
            ]
            for t in wanted:
                self._count[(member, t)] = bisect_right(starts, t)
        for part in chunks(probes, 100):  # a hundred probes a statement, members mixed
            for key, n in zip(part, _run_probes(self.conn, part), strict=True):
                self._count[key] = n

    def position(
        self, member: str, session_id: str | None, execution_id: str | None, at: datetime
    ) -> int:
        sid = self._session(session_id, execution_id)
        if sid is not None and (member, sid) in self._ordinal:
            return self._ordinal[(member, sid)]
        return self._count[(member, tau(self.anchors, session_id, execution_id, as_utc(at)))]


__all__ = [
    "Placer",
    "axis_counts",
    "latest_ordinal",
    "live_rows",
    "refresh_axes",
    "stale_axes",
]
