"""The engine factory and the write-transaction helper.

One engine per process, made by :func:`make_engine` when a store is opened,
never at import time. On SQLite every connection gets WAL, foreign keys, a
busy timeout and recursive triggers (so a REPLACE conflict clause fires the
append-only ``DELETE`` guards); write transactions start with
``BEGIN IMMEDIATE`` so the write lock is taken up front rather than upgraded
half-way, which is what makes "database is locked" retryable.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sqlalchemy import Connection, Engine, create_engine, event
from sqlalchemy.engine import make_url
from sqlalchemy.exc import OperationalError
from sqlalchemy.pool import StaticPool

from viva_store.errors import StoreError

T = TypeVar("T")

BUSY_TIMEOUT_MS = 10_000
WRITE_RETRIES = 8
_WRITE = "viva_write"


def _sqlite_file(url: str) -> Path | None:
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _create_private_file(path: Path) -> None:
    """Create the database file 0600 before SQLite does (its WAL inherits the mode)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    os.chmod(path, 0o600)


def make_engine(url: str) -> Engine:
    """Make the process's engine for ``url`` (any SQLAlchemy URL)."""
    if not url.startswith("sqlite"):
        return create_engine(url, pool_pre_ping=True, future=True)
    path = _sqlite_file(url)
    if path is None:
        engine = create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
    else:
        _create_private_file(path)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
        )
    _install_sqlite_hooks(engine, wal=path is not None)
    return engine


def _install_sqlite_hooks(engine: Engine, *, wal: bool) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # Take transaction control away from pysqlite: we issue BEGIN ourselves.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        if wal:
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA recursive_triggers=ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        mode = "IMMEDIATE" if conn.get_execution_options().get(_WRITE) else "DEFERRED"
        conn.exec_driver_sql(f"BEGIN {mode}")


def _is_busy(exc: OperationalError) -> bool:
    text = str(exc.orig).lower()
    return "locked" in text or "busy" in text or "could not serialize" in text


def with_retries(attempt: Callable[[], T], busy: Callable[[Exception], bool]) -> T:
    """``attempt()``, tried again with a growing random back-off while it fails with an
    exception ``busy`` recognises; the last such failure becomes a :class:`StoreError`.
    Any other exception propagates at once."""
    delay = 0.02
    for n in range(WRITE_RETRIES):
        try:
            return attempt()
        except Exception as exc:
            if not busy(exc):
                raise
            if n == WRITE_RETRIES - 1:
                raise StoreError(f"cannot write the store: {getattr(exc, 'orig', exc)}") from exc
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 1.0)
    raise AssertionError("unreachable")


def write(engine: Engine, work: Callable[[Connection], T]) -> T:
    """Run ``work`` in one short write transaction, retrying while the store is busy.

    Do slow work (parsing, redaction) *before* calling this: the write lock is
    held for the whole of ``work``.
    """

    def attempt() -> T:
        try:
            with engine.connect().execution_options(**{_WRITE: True}) as conn, conn.begin():
                return work(conn)
        except OperationalError as exc:
            if _is_busy(exc):
                raise
            raise StoreError(f"cannot write the store: {exc.orig}") from exc

    return with_retries(attempt, lambda exc: isinstance(exc, OperationalError) and _is_busy(exc))


def read(engine: Engine, work: Callable[[Connection], T]) -> T:
    """Run ``work`` in one read transaction (a consistent snapshot)."""
    with engine.connect() as conn, conn.begin():
        return work(conn)
