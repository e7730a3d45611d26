"""Plumbing shared by the skill services: tables, event kinds, hot-path statements.

The skill event log (``skill_event``) is append-only; each row has a ``kind``:

* ``added``, ``synced``, ``reclaimed`` — the skill enters the member's set (weight 1.0);
  a native skill enters as ``added`` with reason ``native``;
* ``read`` — the skill's body was read (evidence; a read is not a weight event);
* ``used`` — one credited use, ``value`` from the outcome (success 1.0, failure 0.25);
* ``revalued`` — the owner's correction of the use ``target_id`` (``value`` 0.0);
* ``track_changed`` — the skill moved to ``track`` (session or time);
* ``forgotten`` / ``would_forget`` — forgetting applied, or due during the trial month;
* ``projected`` — the skill was put into a session's projection (never a use).

Most statements go through SQLAlchemy Core as usual. The few on the path of a single use
are :class:`Prepared`: a Core statement compiled once per dialect and run on the DBAPI
cursor of the caller's transaction, which costs a few microseconds instead of the tens
that a full ``Connection.execute`` takes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Connection
from sqlalchemy.engine import Dialect
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler

from viva_store.clock import as_utc
from viva_store.db.tables import (
    Attribution,
    Classification,
    Execution,
    Member,
    MemberSkill,
    Message,
    Session,
    Skill,
    SkillEvent,
    StoreMeta,
)
from viva_store.errors import InvalidInput
from viva_store.skills.params import SkillParams

SE = SkillEvent.__table__  # type: ignore[attr-defined]
MS = MemberSkill.__table__  # type: ignore[attr-defined]
META = StoreMeta.__table__  # type: ignore[attr-defined]
A = Attribution.__table__  # type: ignore[attr-defined]
S = Session.__table__  # type: ignore[attr-defined]
C = Classification.__table__  # type: ignore[attr-defined]
E = Execution.__table__  # type: ignore[attr-defined]
M = Member.__table__  # type: ignore[attr-defined]
MSG = Message.__table__  # type: ignore[attr-defined]
SK = Skill.__table__  # type: ignore[attr-defined]

ENTER_KINDS = ("added", "synced", "reclaimed")
WEIGHT_KINDS = (*ENTER_KINDS, "used", "revalued")
STATUS_KINDS = (*ENTER_KINDS, "forgotten")
KINDS = (
    *ENTER_KINDS,
    "read",
    "used",
    "revalued",
    "track_changed",
    "forgotten",
    "would_forget",
    "projected",
)
VIVA = "viva"
"""The actor recorded for what Viva itself decides (natives, forgetting, transcript uses)."""

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def day_of(at: datetime) -> float:
    """Days since the Unix epoch, fractional: an instant's coordinate on the time track."""
    return (as_utc(at) - EPOCH).total_seconds() / 86400.0


def actor_name(member: str | None) -> str:
    """How an actor is recorded in the log: ``owner`` or the member's name."""
    return "owner" if member is None else member


def to_datetime(value: Any) -> datetime | None:
    """A timestamp as the DBAPI returned it (SQLite: text) as an aware UTC datetime."""
    if value is None:
        return None
    if isinstance(value, datetime):
        return as_utc(value)
    return as_utc(datetime.fromisoformat(str(value)))


def finite(value: float) -> float:
    """Guard against a NaN or infinity reaching the store (they would poison a rebuild)."""
    if not math.isfinite(value):
        raise ValueError(f"not a finite number: {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class _Plan:
    sql: str
    # Positional dialects (SQLite): per placeholder, its name, bind processor and default.
    slots: tuple[tuple[str, Callable[..., Any] | None, Any], ...] | None
    processors: dict[str, Callable[..., Any]]
    constants: dict[str, Any]


_REQUIRED = object()


class Prepared:
    """A Core statement compiled once per dialect, run on the current transaction's cursor.

    Parameters are given by the names of the statement's ``bindparam``s; each is passed
    through its type's bind processor (e.g. SQLite's datetime format), so values land
    exactly as ``Connection.execute`` would store them. Rows come back as raw DBAPI
    tuples: timestamps need :func:`to_datetime`.
    """

    def __init__(self, statement: ClauseElement) -> None:
        self.statement = statement
        self._plans: dict[str, _Plan] = {}

    def _plan(self, dialect: Dialect) -> _Plan:
        plan = self._plans.get(dialect.name)
        if plan is None:
            compiled = cast(SQLCompiler, self.statement.compile(dialect=dialect))
            processors: dict[str, Callable[..., Any]] = {}
            constants: dict[str, Any] = {}
            for name, bind in compiled.binds.items():
                proc = bind.type.dialect_impl(dialect).bind_processor(dialect)
                if proc is not None:
                    processors[name] = proc
                if not bind.required:  # a literal of the statement, e.g. a status name
                    constants[name] = bind.effective_value
            slots = None
            if compiled.positional:
                slots = tuple(
                    (name, processors.get(name), constants.get(name, _REQUIRED))
                    for name in compiled.positiontup or ()
                )
            plan = _Plan(compiled.string, slots, processors, constants)
            self._plans[dialect.name] = plan
        return plan

    def _execute(self, conn: Connection, params: Mapping[str, Any]) -> Any:
        plan = self._plan(conn.dialect)
        cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        if plan.slots is not None:
            values = []
            for name, proc, default in plan.slots:
                value = params[name] if default is _REQUIRED else params.get(name, default)
                values.append(proc(value) if proc is not None and value is not None else value)
            cursor.execute(plan.sql, values)
            return cursor
        named = {**plan.constants, **params}
        for name, proc in plan.processors.items():
            value = named.get(name)
            if value is not None:
                named[name] = proc(value)
        cursor.execute(plan.sql, named)
        return cursor

    def rows(self, conn: Connection, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """All result rows."""
        cursor = self._execute(conn, params)
        try:
            return list(cursor.fetchall())
        finally:
            cursor.close()

    def first(self, conn: Connection, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first result row, or None."""
        cursor = self._execute(conn, params)
        try:
            row = cursor.fetchone()
            return None if row is None else tuple(row)
        finally:
            cursor.close()

    def insert_id(self, conn: Connection, params: Mapping[str, Any]) -> int:
        """Execute an INSERT; the new row's id from the cursor (SQLite)."""
        cursor = self._execute(conn, params)
        try:
            return int(cursor.lastrowid)
        finally:
            cursor.close()

    def run(self, conn: Connection, params: Mapping[str, Any]) -> int:
        """Execute a statement without results; returns the row count."""
        cursor = self._execute(conn, params)
        try:
            return int(cursor.rowcount)
        finally:
            cursor.close()


def chunks(values: Sequence[Any], size: int = 500) -> list[Sequence[Any]]:
    """``values`` cut in pieces small enough for an ``IN (...)`` list."""
    return [values[i : i + size] for i in range(0, len(values), size)]


def skill_params(config_section: Mapping[str, Any]) -> SkillParams:
    """:class:`SkillParams` from the ``[skills]`` section of ``config.toml``.

    A bad value is reported as :class:`~viva_store.errors.InvalidInput` naming the key.
    """
    try:
        return SkillParams.from_mapping(config_section)
    except ValueError as exc:
        raise InvalidInput(f"config.toml [skills]: {exc}") from exc
