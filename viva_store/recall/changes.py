"""ENGINE-SPECIFIC ADAPTER: "has anything been committed since?", per database connection.

:func:`remembered` keeps a value computed from the database with the
connection it was computed on, next to a **stamp** of the database's state,
and hands it back only while the stamp is unchanged — so a long-lived
process (the app, a benchmark, a member calling recall repeatedly) does not
recount what cannot have moved. The stamp changes whenever anything may have
been committed:

SQLite
    ``PRAGMA data_version`` (changes when another connection commits) with
    the connection's own ``total_changes`` (its own writes).
PostgreSQL
    ``pg_current_snapshot()``: its ``xmax`` moves when a writing transaction
    takes an id, and its list of running ones changes when one ends.

Both are conservative (unrelated writes change them too) and cost one cheap
statement. A fresh connection has nothing remembered.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from sqlalchemy import Connection

T = TypeVar("T")
_SLOT = "viva_remembered"
MAX_ENTRIES = 64


def stamp(conn: Connection) -> Hashable | None:
    """The database's change stamp as this connection sees it (None: no such thing)."""
    if conn.dialect.name == "sqlite":
        version = conn.exec_driver_sql("PRAGMA data_version").scalar()
        raw: Any = conn.connection.driver_connection
        return (version, getattr(raw, "total_changes", None))
    if conn.dialect.name == "postgresql":
        return str(conn.exec_driver_sql("SELECT pg_current_snapshot()::text").scalar())
    return None


def remembered(
    conn: Connection, key: Hashable, compute: Callable[[], T], now: Hashable | None = None
) -> T:
    """``compute()``, or the value it gave on this connection while nothing was committed.

    ``now``: the stamp, when the caller has just taken it (saves a statement).
    """
    current = stamp(conn) if now is None else now
    if current is None:
        return compute()
    memo: dict[Hashable, tuple[Hashable, Any]] = conn.connection.info.setdefault(_SLOT, {})
    hit = memo.get(key)
    if hit is not None and hit[0] == current:
        return hit[1]  # type: ignore[no-any-return]
    value = compute()
    if len(memo) >= MAX_ENTRIES:
        memo.clear()
    memo[key] = (current, value)
    return value
