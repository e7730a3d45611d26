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
that a full ``Connection.execute`` takes. They run in a Core transaction (a
``Connection``) or in a :class:`~viva_store.db.raw.RawTx`, the DBAPI transaction of the
hot path.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast

from sqlalchemy import Connection, Float, String, func
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from viva_store.clock import as_utc
from viva_store.db.raw import RawTx
from viva_store.errors import InvalidInput
from viva_store.skills.params import SkillParams

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


Tx = Connection | RawTx
"""A transaction :class:`Prepared` statements run in: Core's, or the DBAPI one."""

_SQLITE_FORMAT = (
    "%(year)04d-%(month)02d-%(day)02d %(hour)02d:%(minute)02d:%(second)02d.%(microsecond)06d"
)


_NAMED: dict[type[Dialect], Dialect] = {}


def _named(dialect: Dialect) -> Dialect:
    """The same dialect with the ``named`` parameter style (``:name``)."""
    kind = type(dialect)
    if kind not in _NAMED:
        _NAMED[kind] = kind(paramstyle="named")  # type: ignore[call-arg]
    return _NAMED[kind]


def _sqlite_datetime(general: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """SQLite's datetime text as SQLAlchemy writes it (its default storage format: the
    fields as given, zone ignored), made by ``isoformat`` for a datetime — the same text
    in a third of the time; anything else goes to SQLAlchemy's own processor."""

    def process(value: Any) -> Any:
        if type(value) is datetime:
            return value.isoformat(" ", "microseconds")[:26]
        return general(value)

    return process


def db_instant(dialect: Dialect, at: datetime) -> Any:
    """An instant as the database hands a timestamp column back, for comparing with one
    fetched raw: on SQLite its fixed-width text (which sorts as time does), elsewhere the
    aware datetime itself."""
    if dialect.name != "sqlite":
        return at
    return as_utc(at).isoformat(" ", "microseconds")[:26]


@dataclass(frozen=True, slots=True)
class _Plan:
    sql: str
    # Positional dialects (SQLite): per placeholder, its name, whether the caller must give
    # it and its default (a literal of the statement); then, per parameter to process, its
    # processor and its placeholders (a parameter may appear more than once).
    slots: tuple[tuple[str, bool, Any], ...] | None
    slot_processors: tuple[tuple[Callable[..., Any], tuple[int, ...]], ...]
    processors: dict[str, Callable[..., Any]]
    constants: dict[str, Any]
    process: tuple[tuple[str, Callable[..., Any]], ...]  # processors.items(), held


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
            # SQLite takes named parameters too: then a parameter used twice is bound once,
            # and the values go over as the mapping given, with no per-placeholder list.
            target = _named(dialect) if dialect.name == "sqlite" else dialect
            compiled = cast(SQLCompiler, self.statement.compile(dialect=target))
            processors: dict[str, Callable[..., Any]] = {}
            constants: dict[str, Any] = {}
            for bind, name in compiled.bind_names.items():
                impl = bind.type.dialect_impl(dialect)
                proc: Callable[..., Any] | None = impl.bind_processor(dialect)
                if proc is not None and getattr(impl, "_storage_format", None) == _SQLITE_FORMAT:
                    proc = _sqlite_datetime(proc)
                if proc is not None:
                    processors[name] = proc
                if not bind.required:  # a literal of the statement, e.g. a status name
                    constants[name] = bind.effective_value
            slots = None
            slot_processors: tuple[tuple[Callable[..., Any], tuple[int, ...]], ...] = ()
            if compiled.positional:
                names = compiled.positiontup or ()
                slots = tuple((n, n not in constants, constants.get(n)) for n in names)
                slot_processors = tuple(
                    (proc, tuple(i for i, n in enumerate(names) if n == name))
                    for name, proc in processors.items()
                    if name in names
                )
            plan = _Plan(
                compiled.string,
                slots,
                slot_processors,
                processors,
                constants,
                tuple(processors.items()),
            )
            self._plans[dialect.name] = plan
        return plan

    def _execute(self, conn: Tx, params: Mapping[str, Any]) -> Any:
        dialect = conn.dialect
        plan = self._plans.get(dialect.name) or self._plan(dialect)
        if isinstance(conn, RawTx):
            cursor = conn.cursor
        else:
            cursor = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        if plan.slots is not None:
            get = params.get
            values = [params[n] if required else get(n, c) for n, required, c in plan.slots]
            for proc, places in plan.slot_processors:
                value = values[places[0]]
                if value is not None:
                    value = proc(value)
                    for i in places:
                        values[i] = value
            cursor.execute(plan.sql, values)
            return cursor
        named = {**plan.constants, **params} if plan.constants else dict(params)
        for name, proc in plan.process:
            value = named.get(name)
            if value is not None:
                named[name] = proc(value)
        cursor.execute(plan.sql, named)
        return cursor

    @staticmethod
    def _done(conn: Tx, cursor: Any) -> None:
        if not isinstance(conn, RawTx):  # the DBAPI transaction keeps its one cursor
            cursor.close()

    def rows(self, conn: Tx, params: Mapping[str, Any]) -> list[tuple[Any, ...]]:
        """All result rows."""
        cursor = self._execute(conn, params)
        try:
            return list(cursor.fetchall())
        finally:
            self._done(conn, cursor)

    def first(self, conn: Tx, params: Mapping[str, Any]) -> tuple[Any, ...] | None:
        """The first result row, or None."""
        cursor = self._execute(conn, params)
        try:
            row = cursor.fetchone()
            return None if row is None else tuple(row)
        finally:
            self._done(conn, cursor)

    def insert_id(self, conn: Tx, params: Mapping[str, Any]) -> int:
        """Execute an INSERT; the new row's id from the cursor (SQLite)."""
        cursor = self._execute(conn, params)
        try:
            return int(cursor.lastrowid)
        finally:
            self._done(conn, cursor)

    def run(self, conn: Tx, params: Mapping[str, Any]) -> int:
        """Execute a statement without results; returns the row count."""
        cursor = self._execute(conn, params)
        try:
            return int(cursor.rowcount)
        finally:
            self._done(conn, cursor)


class sqlite_unindexed(FunctionElement[str]):
    """A text column SQLite must not drive a query by (``col || ''``, which hides its
    index from SQLite's planner); other engines get the column itself, whose index their
    planners weigh by statistics."""

    type = String()
    inherit_cache = True


@compiles(sqlite_unindexed)
def _plain(element: sqlite_unindexed, compiler: SQLCompiler, **kw: Any) -> str:
    return compiler.process(element.clauses, **kw)


@compiles(sqlite_unindexed, "sqlite")
def _hidden(element: sqlite_unindexed, compiler: SQLCompiler, **kw: Any) -> str:
    return f"({compiler.process(element.clauses, **kw)} || '')"


class greatest(FunctionElement[float]):
    """The larger of two numbers, neither NULL: ``GREATEST`` (PostgreSQL, which would
    ignore a NULL), SQLite's two-argument ``max`` (which would return NULL)."""

    type = Float()
    inherit_cache = True


@compiles(greatest)
def _greatest(element: greatest, compiler: SQLCompiler, **kw: Any) -> str:
    return f"GREATEST({compiler.process(element.clauses, **kw)})"


@compiles(greatest, "sqlite")
def _sqlite_max(element: greatest, compiler: SQLCompiler, **kw: Any) -> str:
    return f"max({compiler.process(element.clauses, **kw)})"


EXP_FLOOR = -700.0
"""Where :func:`decay` stops: PostgreSQL's ``exp`` raises an error on underflow (below
about -745) where C's returns 0; ``e^-700`` is as good as 0 beside any term that counts."""


def decay(exponent: Any) -> Any:
    """``exp(exponent)`` in SQL, the exponent held at or above :data:`EXP_FLOOR`.

    The exponent must not be NULL: the engines' ``GREATEST`` differ there (PostgreSQL's
    would give a NULL the floor, and a row that should add nothing a term), so an
    aggregate over rows where it can be NULL filters them out (``FILTER``)."""
    return func.exp(greatest(exponent, EXP_FLOOR))


def chunks(values: Sequence[Any], size: int = 500) -> list[Sequence[Any]]:
    """``values`` cut in pieces small enough for an ``IN (...)`` list."""
    return [values[i : i + size] for i in range(0, len(values), size)]


_PARAMS: dict[tuple[tuple[str, type, Any], ...], SkillParams] = {}
_LAST: tuple[Mapping[str, Any], dict[str, Any], SkillParams] | None = None


def skill_params(config_section: Mapping[str, Any]) -> SkillParams:
    """:class:`SkillParams` from the ``[skills]`` section of ``config.toml``.

    A bad value is reported as :class:`~viva_store.errors.InvalidInput` naming the key.
    Parameters are validated once per distinct section (every use asks for them); the
    section asked for last (the same object, or like it empty: no ``[skills]`` at all) is
    recognised by equality, without a key built.
    """
    global _LAST
    last = _LAST
    if (
        last is not None
        and (last[0] is config_section or not last[1])
        and last[1] == config_section
    ):
        return last[2]
    try:
        key = tuple(sorted((str(k), type(v), v) for k, v in config_section.items()))
        cached = _PARAMS.get(key)
    except TypeError:  # an unhashable value: no cache, the validation reports it
        key, cached = None, None
    if cached is not None:
        _LAST = (config_section, dict(config_section), cached)
        return cached
    try:
        params = SkillParams.from_mapping(config_section)
    except ValueError as exc:
        raise InvalidInput(f"config.toml [skills]: {exc}") from exc
    if key is not None and len(_PARAMS) < 64:
        _PARAMS[key] = params
    if key is not None:
        _LAST = (config_section, dict(config_section), params)
    return params
