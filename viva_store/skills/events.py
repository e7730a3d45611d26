"""The skill event log (``skill_event``): its kinds, appending to it, and SQL helpers.

The log is append-only; each row has a ``kind``:

* ``added``, ``synced``, ``reclaimed`` — the skill enters the member's set (weight 1.0);
  a native skill enters as ``added`` with reason ``native``;
* ``read`` — the skill's body was read (evidence; a read is not a weight event);
* ``used`` — one credited use, ``value`` from the outcome (success 1.0, failure 0.25);
* ``revalued`` — the owner's correction of the use ``target_id`` (``value`` 0.0);
* ``track_changed`` — the skill moved to ``track`` (session or time);
* ``forgotten`` / ``would_forget`` — forgetting applied, or due during the trial month;
* ``projected`` — the skill was put into a session's projection (never a use).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Float, String, func, insert
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.functions import FunctionElement

from viva_store.clock import as_utc
from viva_store.db.schema import SKILL_EVENT
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
EVENT_FIELDS = (
    "member",
    "skill",
    "kind",
    "value",
    "outcome",
    "session_id",
    "execution_id",
    "target_id",
    "track",
    "session_pos",
    "day",
    "at",
    "actor",
    "reason",
    "basis",
)
"""The columns of an event besides its id (every one is given, None where unset)."""


def skill_params(config_section: Mapping[str, Any]) -> SkillParams:
    """:class:`SkillParams` from the ``[skills]`` section of ``config.toml``; a bad value
    is reported as :class:`~viva_store.errors.InvalidInput` naming the key."""
    try:
        return SkillParams.from_mapping(config_section)
    except ValueError as exc:
        raise InvalidInput(f"config.toml [skills]: {exc}") from exc


def day_of(at: datetime) -> float:
    """Days since the Unix epoch, fractional: an instant's coordinate on the time track."""
    return (as_utc(at) - EPOCH).total_seconds() / 86400.0


def instant_of_day(day: float) -> datetime:
    """The instant at ``day`` on the time track (the inverse of :func:`day_of`), in UTC."""
    return EPOCH + timedelta(days=day)


def actor_name(member: str | None) -> str:
    """How an actor is recorded in the log: ``owner`` or the member's name."""
    return "owner" if member is None else member


def to_datetime(value: Any) -> datetime | None:
    """A timestamp from an aggregate (SQLite may hand it over as text) as aware UTC."""
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


_INSERT = insert(SKILL_EVENT)


def append_event(conn: Connection, **values: Any) -> int:
    """Append one skill event (fields of :data:`EVENT_FIELDS`); returns its id. A field
    not given, or None, is stored as SQL NULL (a ``basis`` too: not JSON ``null``)."""
    fields = {k: v for k, v in values.items() if v is not None}
    assert set(fields) <= set(EVENT_FIELDS), set(fields) - set(EVENT_FIELDS)
    at = fields["at"]
    assert isinstance(at, datetime), "an event needs its instant"
    fields["at"] = as_utc(at)
    fields.setdefault("reason", "")
    key = conn.execute(_INSERT, fields).inserted_primary_key
    assert key is not None
    return int(key[0])


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
