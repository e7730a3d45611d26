"""Writers run one at a time on both engines — SQLite's ``BEGIN IMMEDIATE``, PostgreSQL's
advisory lock (``PG_WRITE_LOCK``) — and a writer kept waiting too long is tried again."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from sqlalchemy import Connection, insert, select

from tests.conftest import PG_URL
from viva_store.config import Config
from viva_store.db import engine as engine_module
from viva_store.db.raw import RawTx
from viva_store.db.tables_skills import StoreMeta
from viva_store.store import Store

META = StoreMeta.__table__  # type: ignore[attr-defined]
HELD = 0.3  # seconds the first writer keeps its transaction open


def _sees_core(conn: Connection) -> bool:
    return conn.execute(select(META.c.key).where(META.c.key == "first")).first() is not None


def _sees_raw(tx: RawTx) -> bool:
    tx.cursor.execute("SELECT key FROM store_meta WHERE key = 'first'")
    return tx.cursor.fetchone() is not None


def hold_write(store: Store, inside: threading.Event, seconds: float) -> Callable[[], None]:
    """A write transaction that adds a key, says it is inside, and stays open a while."""

    def work(conn: Connection) -> None:
        conn.execute(insert(META).values(key="first", value="x"))
        inside.set()
        time.sleep(seconds)

    return lambda: store.write(work)


@pytest.mark.parametrize("path", ["core", "raw"])
def test_a_second_writer_runs_after_the_first_has_committed(
    store: Store, config: Config, path: str
) -> None:
    other = Store.open(config)
    inside = threading.Event()
    try:
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(hold_write(store, inside, HELD))
            assert inside.wait(5)
            # Run while the first is still open: the second's work must not start before
            # the first has committed, so it sees the first's key.
            seen = other.write(_sees_core) if path == "core" else other.write_raw(_sees_raw)
            first.result()
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
    inside = threading.Event()
    try:
        with ThreadPoolExecutor(1) as pool:
            first = pool.submit(hold_write(other, inside, HELD))
            assert inside.wait(5)
            assert store.write(_sees_core)
            first.result()
    finally:
        other.close()
    assert busy, "the write never timed out waiting for the lock"
    assert all(getattr(getattr(e, "orig", e), "sqlstate", None) == "55P03" for e in busy)
