"""DESIGN I3: append-only tables are guarded by the database itself, on both engines."""

from __future__ import annotations

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from viva_store.config import Config
from viva_store.db.guards import missing_guards
from viva_store.db.schema import APPEND_ONLY
from viva_store.errors import StoreError
from viva_store.members.grants import issue_grant, revoke_grant
from viva_store.store import Context, Store


@pytest.fixture
def revoked(ctx: Context) -> Context:
    """A store with a row in ``grant_revocation``."""
    issued = issue_grant(ctx, "deven")
    revoke_grant(ctx, issued.id)
    return ctx


def _raw(ctx: Context, sql: str) -> None:
    """Run hand-typed SQL in its own transaction, as a user with a SQL shell would."""
    engine = create_engine(ctx.store.config.db_url)
    try:
        with engine.begin() as conn:
            if conn.dialect.name == "sqlite":
                conn.exec_driver_sql("PRAGMA recursive_triggers=ON")
            conn.execute(text(sql))
    finally:
        engine.dispose()


def test_every_append_only_table_has_its_guards(store: Store) -> None:
    assert store.read(lambda c: missing_guards(c, APPEND_ONLY)) == []


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE grant_revocation SET reason = 'rewritten'",
        "DELETE FROM grant_revocation",
    ],
)
def test_update_and_delete_fail_in_the_database(revoked: Context, sql: str) -> None:
    with pytest.raises(DBAPIError, match="append-only"):
        _raw(revoked, sql)


def test_replace_fails_in_the_database(revoked: Context) -> None:
    dialect = revoked.store.engine.dialect.name
    if dialect == "sqlite":
        sql = (
            "INSERT OR REPLACE INTO grant_revocation (id, grant_id, revoked_at, reason) "
            "SELECT id, grant_id, revoked_at, 'replaced' FROM grant_revocation"
        )
    else:
        sql = (
            "INSERT INTO grant_revocation (id, grant_id, revoked_at, reason) "
            "SELECT id, grant_id, revoked_at, 'replaced' FROM grant_revocation "
            "ON CONFLICT (id) DO UPDATE SET reason = EXCLUDED.reason"
        )
    with pytest.raises(DBAPIError, match="append-only"):
        _raw(revoked, sql)
    count = revoked.store.read(
        lambda c: c.execute(text("SELECT count(*) FROM grant_revocation WHERE reason = 'replaced'"))
    ).scalar()
    assert count == 0


def test_truncate_fails_on_postgresql(revoked: Context) -> None:
    if revoked.store.engine.dialect.name != "postgresql":
        pytest.skip("TRUNCATE exists only on PostgreSQL")
    with pytest.raises(DBAPIError, match="append-only"):
        _raw(revoked, "TRUNCATE grant_revocation")


def test_opening_a_store_whose_guard_was_dropped_is_refused(config: Config) -> None:
    Store.open(config).close()
    engine = create_engine(config.db_url)
    with engine.begin() as conn:
        if conn.dialect.name == "sqlite":
            conn.execute(text("DROP TRIGGER viva_ao_grant_revocation_no_delete"))
        else:
            conn.execute(text("DROP TRIGGER viva_ao_grant_revocation_rows ON grant_revocation"))
    engine.dispose()
    with pytest.raises(StoreError, match="append-only guards are missing"):
        Store.open(config)


def test_no_or_replace_anywhere_in_the_code() -> None:
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    offenders = [
        str(path)
        for folder in ("viva_store", "viva_tui")
        for path in (root / folder).rglob("*.py")
        if "or replace" in path.read_text(encoding="utf-8").lower()
    ]
    assert offenders == []
