"""The engine factory and the write-transaction helper.

One engine per process, made by :func:`make_engine` when a store is opened,
never at import time. On SQLite every connection gets WAL, foreign keys, a
busy timeout and recursive triggers (the append-only guards refuse a REPLACE
with or without them, see :mod:`viva_store.db.guards`); write transactions start
with ``BEGIN IMMEDIATE`` so the write lock is taken up front rather than upgraded
half-way, which is what makes "database is locked" retryable.

On PostgreSQL a write transaction takes the same one lock up front: a
transaction-scoped advisory lock of the store (:data:`PG_WRITE_LOCK`), so
writers run one at a time there too. The services read, then write on what they
read — a use checks for a credit and folds into the cached state, a rebuild
recomputes the cache from the log and the axis — and at PostgreSQL's default
isolation two writers could otherwise both act on the same state: two credited
uses of one session, a cache that lost a use. Readers never wait for it.
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
from sqlalchemy.exc import DatabaseError, OperationalError
from sqlalchemy.pool import StaticPool

from viva_store.errors import StoreError

T = TypeVar("T")

BUSY_TIMEOUT_MS = 10_000
WRITE_RETRIES = 8
_WRITE = "viva_write"
PG_WRITE_LOCK = (
    # Keyed by ("viva", the store's schema): stores in one database do not wait for each
    # other. Waited for up to the busy timeout, then retried as SQLite's busy store is.
    f"SELECT set_config('lock_timeout', '{BUSY_TIMEOUT_MS}ms', true), "
    "pg_advisory_xact_lock(1986622561, current_schema()::regnamespace::oid::int4)"
)
"""The statement a PostgreSQL write transaction begins with (see the module)."""
_RETRY_STATES = {
    "40001",  # serialization failure
    "40P01",  # deadlock detected
    "55P03",  # lock not available: the write lock's timeout
}


def _sqlite_file(url: str) -> Path | None:
    database = make_url(url).database
    if not database or database == ":memory:" or database.startswith("file:"):
        return None
    return Path(database)


def _create_private_file(path: Path) -> None:
    """Create the database file 0600 before SQLite does (its WAL inherits the mode)."""
    if not path.exists():
        fd = os.open(path, os.O_CREAT | os.O_WRONLY, 0o600)
        os.close(fd)
    os.chmod(path, 0o600)


def _writable(path: Path) -> bool:
    """Whether SQLite can write the store at ``path`` and its journal beside it."""
    folder_ok = os.access(path.parent, os.W_OK)
    return folder_ok and (not path.exists() or os.access(path, os.W_OK))


def make_engine(url: str) -> Engine:
    """Make the process's engine for ``url`` (any SQLAlchemy URL).

    A SQLite file is never created in a folder that does not exist (a mistyped
    ``VIVA_DB_URL`` is an error, not a new empty store). A store whose file or folder
    cannot be written (a read-only mount, a read-only copy) is opened read-only and
    immutable: it serves reads, and a write fails with a one-line :class:`StoreError`.
    """
    if not url.startswith("sqlite"):
        engine = create_engine(url, pool_pre_ping=True, future=True)
        _install_write_lock(engine)
        return engine
    path = _sqlite_file(url)
    if path is None:
        engine = create_engine(url, connect_args={"check_same_thread": False}, poolclass=StaticPool)
        _install_sqlite_hooks(engine, wal=False)
        return engine
    if not path.parent.is_dir():
        raise StoreError(f"the store's folder does not exist: {path.parent}")
    args: dict[str, Any] = {"check_same_thread": False, "timeout": BUSY_TIMEOUT_MS / 1000}
    if _writable(path):
        _create_private_file(path)
        engine = create_engine(url, connect_args=args)
        _install_sqlite_hooks(engine, wal=True)
        return engine
    if not path.exists():
        raise StoreError(f"no store at {path}, and its folder is read-only")
    args["uri"] = True
    readonly = f"sqlite:///file:{path}?mode=ro&immutable=1&uri=true"
    engine = create_engine(readonly, connect_args=args)
    _install_sqlite_hooks(engine, wal=False)
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


def _install_write_lock(engine: Engine) -> None:
    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(_WRITE):
            conn.exec_driver_sql(PG_WRITE_LOCK)


def is_busy(exc: OperationalError) -> bool:
    """Whether ``exc`` says the store is busy — another writer holds it — so that the
    transaction may be tried again."""
    orig = exc.orig
    if getattr(orig, "sqlstate", None) in _RETRY_STATES:
        return True
    text = str(orig).lower()
    return type(orig).__name__ == "OperationalError" and ("locked" in text or "busy" in text)


def damage(exc: DatabaseError) -> StoreError | None:
    """What to tell the user when ``exc`` says the store itself is unusable — not a
    database, damaged, or read-only — as one line (None for any other failure)."""
    reason = str(exc.orig).splitlines()[0] if exc.orig is not None else str(exc)
    text = reason.lower()
    if "not a database" in text or "malformed" in text or "corrupt" in text:
        return StoreError(
            f"the store is damaged ({reason}): restore a backup, or move the file away"
            " to start a new store"
        )
    if "readonly database" in text:  # SQLite's; a read-only transaction is a bug, not this
        return StoreError(f"the store is read-only ({reason}): it can be read, not changed")
    return None


def write(engine: Engine, work: Callable[[Connection], T]) -> T:
    """Run ``work`` in one short write transaction, retrying with a growing random
    back-off while the store is busy; a failure that is not, or the last busy one,
    becomes a :class:`StoreError`.

    Do slow work (parsing, redaction) *before* calling this: the write lock is
    held for the whole of ``work``.
    """
    delay = 0.02
    for attempt in range(WRITE_RETRIES):
        try:
            with engine.connect().execution_options(**{_WRITE: True}) as conn, conn.begin():
                return work(conn)
        except OperationalError as exc:
            if (unusable := damage(exc)) is not None:
                raise unusable from exc
            if not is_busy(exc) or attempt == WRITE_RETRIES - 1:
                raise StoreError(f"cannot write the store: {exc.orig}") from exc
            time.sleep(delay * (1 + random.random()))
            delay = min(delay * 2, 1.0)
        except DatabaseError as exc:
            if (unusable := damage(exc)) is not None:
                raise unusable from exc
            raise
    raise AssertionError("unreachable")


_PG_READ = {"isolation_level": "REPEATABLE READ", "postgresql_readonly": True}


def read(engine: Engine, work: Callable[[Connection], T]) -> T:
    """Run ``work`` in one read transaction: one consistent snapshot of the store, whatever
    commits meanwhile. SQLite's deferred transaction in WAL mode is one; PostgreSQL's
    default isolation takes a snapshot per statement, so there the transaction is
    ``REPEATABLE READ`` (which a reader never fails at) and ``READ ONLY``: a write slipped
    into a read fails at once instead of going round the write lock."""
    try:
        with engine.connect() as conn:
            if engine.dialect.name != "sqlite":
                conn = conn.execution_options(**_PG_READ)
            with conn.begin():
                return work(conn)
    except DatabaseError as exc:
        if (unusable := damage(exc)) is not None:
            raise unusable from exc
        raise
