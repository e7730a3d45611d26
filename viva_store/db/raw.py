"""Short write transactions on the DBAPI connection, below SQLAlchemy's ``Connection``.

A hot path (one skill use) is a handful of prepared statements; SQLAlchemy's write
transaction around them (``Connection`` set-up, ``BEGIN`` through ``exec_driver_sql``,
events, commit, pool reset) costs more than the statements. :class:`RawWriter` runs the
work on a DBAPI connection of the engine's pool instead, with the guarantees of
:func:`viva_store.db.engine.write`: the connection is set up by the engine's ``connect``
hook (on SQLite: WAL, busy timeout, foreign keys), the write lock is taken up front
(``BEGIN IMMEDIATE`` on SQLite, :data:`~viva_store.db.engine.PG_WRITE_LOCK` on
PostgreSQL), a busy store is retried with the same back-off, and
anything raised rolls the transaction back. The append-only guards are triggers in the
database, so they hold whichever way a statement arrives.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, TypeVar

from sqlalchemy import Engine
from sqlalchemy.engine import Dialect
from sqlalchemy.pool import PoolProxiedConnection

from viva_store.db.engine import PG_WRITE_LOCK, is_busy, with_retries

T = TypeVar("T")


class RawTx:
    """One open write transaction on a DBAPI connection: its dialect and one cursor."""

    __slots__ = ("cursor", "dbapi", "dialect")

    def __init__(self, dbapi: Any, dialect: Dialect) -> None:
        self.dbapi = dbapi
        self.dialect = dialect
        self.cursor: Any = dbapi.cursor()


class NeedsCore(Exception):
    """Raised by work in a :class:`RawTx` that meets a case only the Core path handles; the
    transaction is rolled back (nothing was written) and the caller takes that path."""


def _broken(fairy: PoolProxiedConnection) -> bool:
    dbapi: Any = fairy.driver_connection
    return bool(getattr(dbapi, "closed", False) or getattr(dbapi, "broken", False))


def _run(fairy: PoolProxiedConnection, dialect: Dialect, work: Callable[[RawTx], T]) -> T:
    dbapi: Any = fairy.driver_connection
    tx = RawTx(dbapi, dialect)
    try:
        tx.cursor.execute("BEGIN IMMEDIATE" if dialect.name == "sqlite" else PG_WRITE_LOCK)
        result = work(tx)
        dbapi.commit()
        return result
    except BaseException:
        if not _broken(fairy):
            dbapi.rollback()
        raise
    finally:
        tx.cursor.close()


class RawWriter:
    """Write transactions on the DBAPI connection of one engine (see the module).

    The writer keeps one pooled connection checked out for itself, so a transaction costs
    no pool checkout, reset or ping; another thread writing meanwhile takes a connection
    from the pool as usual. A held connection found broken (a database server restarted)
    is thrown away and the transaction run once more on a fresh one. :meth:`close` gives
    the connection back.
    """

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self._lock = threading.Lock()
        self._held: PoolProxiedConnection | None = None

    def _attempt(self, work: Callable[[RawTx], T]) -> T:
        dialect = self.engine.dialect
        if not self._lock.acquire(blocking=False):
            fairy = self.engine.raw_connection()
            try:
                return _run(fairy, dialect, work)
            finally:
                fairy.close()
        try:
            fresh = self._held is None
            if self._held is None:
                self._held = self.engine.raw_connection()
            try:
                return _run(self._held, dialect, work)
            except Exception:
                if fresh or not _broken(self._held):
                    raise
            self._held.invalidate()
            self._held = self.engine.raw_connection()
            return _run(self._held, dialect, work)
        finally:
            self._lock.release()

    def write(self, work: Callable[[RawTx], T]) -> T:
        """Run ``work`` in one write transaction, retrying while the store is busy."""
        return with_retries(lambda: self._attempt(work), is_busy)

    def close(self) -> None:
        """Give the held connection back to the pool."""
        with self._lock:
            if self._held is not None:
                self._held.close()
                self._held = None
