"""Opening a store: migrations, the SQLite file's mode, the schema matching the models;
what a read transaction guarantees, and a write one: writers run one at a time on both
engines (SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's advisory lock ``PG_WRITE_LOCK``), and
a writer kept waiting too long is tried again."""

from __future__ import annotations

import stat
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

import pytest
from sqlalchemy import BigInteger, Connection, func, insert, inspect, select
from sqlalchemy.exc import InternalError

from tests.conftest import PG_URL
from viva_store.config import Config
from viva_store.db import engine as engine_module
from viva_store.db.migrate import current_revision, head_revision
from viva_store.db.schema import METADATA, STORE_META
from viva_store.store import Store

pytestmark = pytest.mark.fresh_store  # each test's store is made here, from nothing

HELD = 0.3  # seconds a first writer keeps its transaction open
T = TypeVar("T")


def _keys(conn: Connection) -> int:
    return int(conn.execute(select(func.count()).select_from(STORE_META)).scalar_one())


def _add_key(conn: Connection) -> None:
    conn.execute(insert(STORE_META).values(key="probe", value="x"))


def test_a_new_store_is_migrated_to_head(store: Store) -> None:
    assert store.read(current_revision) == head_revision()


def test_reopening_is_idempotent(config: Config) -> None:
    Store.open(config).close()
    again = Store.open(config)
    assert again.read(current_revision) == head_revision()
    again.close()


def test_migrations_build_what_the_schema_describes(store: Store) -> None:
    """Same tables, same columns, the same NULLs allowed, 64-bit integers where the schema
    says so, and the same foreign keys."""
    inspector = inspect(store.engine)
    assert set(METADATA.tables) <= set(inspector.get_table_names())
    for name, table in METADATA.tables.items():
        built = {col["name"]: col for col in inspector.get_columns(name)}
        assert set(built) == {col.name for col in table.columns}, name
        for col in table.columns:
            where = f"{name}.{col.name}"
            wide = isinstance(col.type, BigInteger)
            assert isinstance(built[col.name]["type"], BigInteger) == wide, where
            assert bool(built[col.name]["nullable"]) == (col.nullable and not col.primary_key), (
                where
            )
        keys = {
            (tuple(fk["constrained_columns"]), fk["referred_table"])
            for fk in inspector.get_foreign_keys(name)
        }
        declared = {((fk.parent.name,), fk.column.table.name) for fk in table.foreign_keys}
        assert keys == declared, name


def test_sqlite_file_and_wal_are_private(config: Config) -> None:
    if not config.is_sqlite:
        pytest.skip("file modes concern the SQLite store")
    store = Store.open(config)
    store.write(lambda c: c.exec_driver_sql("CREATE TABLE probe (x INTEGER)"))
    db = config.home / "viva.db"
    for path in (db, db.with_name("viva.db-wal")):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    mode = store.read(lambda c: c.exec_driver_sql("PRAGMA journal_mode").scalar())
    assert mode == "wal"
    assert int(store.read(lambda c: c.exec_driver_sql("PRAGMA busy_timeout").scalar_one())) >= 5000
    assert store.read(lambda c: c.exec_driver_sql("PRAGMA foreign_keys").scalar()) == 1
    assert store.read(lambda c: c.exec_driver_sql("PRAGMA recursive_triggers").scalar()) == 1
    store.close()


def test_a_read_is_one_snapshot_while_another_process_writes(store: Store, config: Config) -> None:
    other = Store.open(config)

    def work(conn: Connection) -> tuple[int, int]:
        before = _keys(conn)
        other.write(_add_key)  # commits while the read is open
        return before, _keys(conn)

    try:
        before, after = store.read(work)
    finally:
        other.close()
    assert after == before
    assert store.read(_keys) == before + 1


def test_a_write_slipped_into_a_read_fails_on_postgresql(store: Store) -> None:
    if not PG_URL:
        pytest.skip("SQLite has no read-only transactions: its reads are kept by review")
    with pytest.raises(InternalError, match="read-only transaction"):
        store.read(_add_key)
    probe = select(STORE_META.c.key).where(STORE_META.c.key == "probe")
    assert store.read(lambda conn: conn.execute(probe).first()) is None


def _sees_core(conn: Connection) -> bool:
    return (
        conn.execute(select(STORE_META.c.key).where(STORE_META.c.key == "first")).first()
        is not None
    )


def while_another_writes(writer: Store, action: Callable[[], T]) -> T:
    """``action()``, run while ``writer`` holds a write transaction open — one that has
    added the key "first" and stays open for :data:`HELD` seconds."""
    inside = threading.Event()

    def work(conn: Connection) -> None:
        conn.execute(insert(STORE_META).values(key="first", value="x"))
        inside.set()
        time.sleep(HELD)

    with ThreadPoolExecutor(1) as pool:
        first = pool.submit(writer.write, work)
        assert inside.wait(5)
        out = action()
        first.result()
    return out


def test_a_second_writer_runs_after_the_first_has_committed(store: Store, config: Config) -> None:
    other = Store.open(config)

    def second() -> bool:
        # Its work must not start before the first has committed: it sees the first's key.
        return other.write(_sees_core)

    try:
        seen = while_another_writes(store, second)
    finally:
        other.close()
    assert seen


def test_a_writer_kept_waiting_past_the_lock_timeout_is_tried_again(
    store: Store, config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    if not PG_URL:
        pytest.skip("PostgreSQL's lock timeout; SQLite's busy timeout waits in the driver")
    timeout = f"'{engine_module.BUSY_TIMEOUT_MS}ms'"
    assert timeout in engine_module.PG_WRITE_LOCK
    monkeypatch.setattr(
        engine_module, "PG_WRITE_LOCK", engine_module.PG_WRITE_LOCK.replace(timeout, "'50ms'")
    )
    busy: list[BaseException] = []
    original = engine_module.is_busy

    def counted(exc: BaseException) -> Any:
        if original(exc):
            busy.append(exc)
            return True
        return False

    monkeypatch.setattr(engine_module, "is_busy", counted)
    other = Store.open(config)
    try:
        assert while_another_writes(other, lambda: store.write(_sees_core))
    finally:
        other.close()
    assert busy, "the write never timed out waiting for the lock"
    assert all(getattr(getattr(e, "orig", e), "sqlstate", None) == "55P03" for e in busy)
