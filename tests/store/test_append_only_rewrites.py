"""The append-only guards whatever the connection: REPLACE refused with the stock pragmas,
and the redaction upgrade's UPDATE the only one admitted (a forged one refused)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, create_engine, insert, select, text
from sqlalchemy.exc import DBAPIError

from tests.redact.support import secret_of
from viva_store.config import Config
from viva_store.db.schema import APPEND_ONLY, MESSAGE, SESSION
from viva_store.redact import RULES_BY_ID
from viva_store.store import Store

AT = datetime(2026, 5, 30, 9, 0, tzinfo=UTC)
MARKER = "[REDACTED:github-pat]"


# --- SQLite with default pragmas: every append-only table ---------------------------------


@pytest.fixture
def raw_sqlite(store: Store, config: Config) -> Iterator[sqlite3.Connection]:
    """The store's file through Python's ``sqlite3`` as it comes: no recursive triggers,
    no foreign keys — what a user's ``sqlite3`` shell gives."""
    if not config.is_sqlite:
        pytest.skip("INSERT OR REPLACE and connection pragmas are SQLite's")
    store.close()
    conn = sqlite3.connect(Path(config.db_url.removeprefix("sqlite:///")), isolation_level=None)
    assert conn.execute("PRAGMA recursive_triggers").fetchone() == (0,)
    try:
        yield conn
    finally:
        conn.close()


def _value_for(declared: str) -> Any:
    kind = declared.upper()
    if "INT" in kind or "BOOL" in kind:
        return 1
    if "FLOAT" in kind or "REAL" in kind:
        return 0.5
    if "JSON" in kind:
        return "{}"
    return "2026-05-30 09:00:00" if "DATETIME" in kind or "TIMESTAMP" in kind else "x"


def _plant_row(conn: sqlite3.Connection, table: str) -> tuple[list[str], list[Any]]:
    """Insert a row of made-up values into ``table``; its columns and values."""
    columns = conn.execute(f"PRAGMA table_info({table})").fetchall()
    names = [c[1] for c in columns]
    values = [_value_for(c[2]) for c in columns]
    marks = ", ".join("?" * len(names))
    conn.execute(f"INSERT INTO {table} ({', '.join(names)}) VALUES ({marks})", values)
    return names, values


def _text_column(conn: sqlite3.Connection, table: str) -> str:
    columns = conn.execute(f"PRAGMA table_info({table})").fetchall()
    return str(next(c[1] for c in columns if not c[5] and "CHAR" in c[2].upper()))


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_replace_is_refused_with_the_stock_pragmas(
    raw_sqlite: sqlite3.Connection, table: str
) -> None:
    names, values = _plant_row(raw_sqlite, table)
    column = _text_column(raw_sqlite, table)
    changed = [("rewritten" if n == column else v) for n, v in zip(names, values, strict=True)]
    marks = ", ".join("?" * len(names))

    with pytest.raises(sqlite3.IntegrityError, match=f"append-only table {table}"):
        raw_sqlite.execute(
            f"INSERT OR REPLACE INTO {table} ({', '.join(names)}) VALUES ({marks})", changed
        )
    with pytest.raises(sqlite3.IntegrityError, match=f"append-only table {table}"):
        raw_sqlite.execute(f"REPLACE INTO {table} ({', '.join(names)}) VALUES ({marks})", changed)

    assert raw_sqlite.execute(f"SELECT {column} FROM {table}").fetchall() == [
        (values[names.index(column)],)
    ]


@pytest.mark.parametrize("table", APPEND_ONLY)
def test_update_and_delete_are_refused_with_the_stock_pragmas(
    raw_sqlite: sqlite3.Connection, table: str
) -> None:
    _plant_row(raw_sqlite, table)
    column = _text_column(raw_sqlite, table)
    with pytest.raises(sqlite3.IntegrityError, match="UPDATE is not allowed"):
        raw_sqlite.execute(f"UPDATE {table} SET {column} = 'rewritten'")
    with pytest.raises(sqlite3.IntegrityError, match="DELETE is not allowed"):
        raw_sqlite.execute(f"DELETE FROM {table}")
    assert raw_sqlite.execute(f"SELECT count(*) FROM {table}").fetchone() == (1,)


def test_a_new_key_is_still_inserted(raw_sqlite: sqlite3.Connection) -> None:
    _plant_row(raw_sqlite, "grant_revocation")
    raw_sqlite.execute(
        "INSERT OR REPLACE INTO grant_revocation (id, grant_id, revoked_at, reason) "
        "VALUES (2, 'g', '2026-05-30', 'second')"
    )
    assert raw_sqlite.execute("SELECT count(*) FROM grant_revocation").fetchone() == (2,)


# --- both engines: only the redaction upgrade's UPDATE is admitted ------------------------


@pytest.fixture
def old_message(store: Store) -> int:
    """A message stored by an older rule set (``"0"``) holding a secret verbatim."""
    secret = secret_of(RULES_BY_ID["github-pat"])

    def plant(conn: Connection) -> int:
        conn.execute(
            insert(SESSION).values(
                id="s-guard", harness="claude-code", native_id="n", models=[], **_times()
            )
        )
        row = conn.execute(
            insert(MESSAGE).values(
                session_id="s-guard",
                seq=1,
                key="k1",
                role="user",
                at=AT,
                text=f"token {secret}",
                ruleset="0",
            )
        )
        assert row.inserted_primary_key is not None
        return int(row.inserted_primary_key[0])

    return store.write(plant)


def _times() -> dict[str, datetime]:
    return {"imported_at": AT, "updated_at": AT}


def _by_hand(store: Store, *statements: str, permit: str | None = None) -> None:
    """Run hand-typed SQL in one transaction of a fresh connection with its default
    settings, after writing a permit for ``message`` at rule set ``permit`` if given."""
    engine = create_engine(store.config.db_url)
    try:
        with engine.begin() as conn:
            if permit is not None:
                txid = "txid_current()" if conn.dialect.name == "postgresql" else "NULL"
                conn.execute(
                    text(
                        "INSERT INTO redact_permit (table_name, ruleset, txid) "
                        f"VALUES ('message', :r, {txid})"
                    ),
                    {"r": permit},
                )
            for statement in statements:
                conn.execute(text(statement))
            if permit is not None:
                conn.execute(text("DELETE FROM redact_permit"))
    finally:
        engine.dispose()


def _message(store: Store, key: int) -> tuple[str, str, int]:
    row = store.read(
        lambda c: c.execute(
            select(MESSAGE.c.text, MESSAGE.c.ruleset, MESSAGE.c.seq).where(MESSAGE.c.id == key)
        ).one()
    )
    return row.text, row.ruleset, row.seq


UPGRADED = f"text = 'token {MARKER}', ruleset = '1'"


@pytest.mark.parametrize(
    ("change", "permit"),
    [
        ("text = 'rewritten'", None),  # an ordinary UPDATE
        (UPGRADED, None),  # shaped like the upgrade, without a permit
        (f"{UPGRADED}, seq = 7", "1"),  # another column too
        (f"text = 'token {MARKER}'", "1"),  # the version kept
        ("text = 'token removed', ruleset = '1'", "1"),  # rewritten without redacting
        (f"text = 'token {MARKER}', ruleset = '2'", "1"),  # a version the permit does not name
    ],
    ids=["ordinary", "no-permit", "other-column", "same-version", "no-marker", "other-version"],
)
def test_an_update_other_than_the_upgrade_is_refused(
    store: Store, old_message: int, change: str, permit: str | None
) -> None:
    before = _message(store, old_message)
    with pytest.raises(DBAPIError, match="append-only table message: UPDATE is not allowed"):
        _by_hand(store, f"UPDATE message SET {change} WHERE id = {old_message}", permit=permit)
    assert _message(store, old_message) == before


def test_the_upgrade_shaped_update_is_admitted_under_a_permit(
    store: Store, old_message: int
) -> None:
    _by_hand(store, f"UPDATE message SET {UPGRADED} WHERE id = {old_message}", permit="1")
    assert _message(store, old_message) == (f"token {MARKER}", "1", 1)
    assert store.read(lambda c: c.execute(text("SELECT count(*) FROM redact_permit")).scalar()) == 0


def test_a_permit_left_by_an_earlier_transaction_admits_nothing_on_postgresql(
    store: Store, old_message: int
) -> None:
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no transaction ids: a permit there is trusted as found")
    _by_hand(
        store, "INSERT INTO redact_permit (table_name, ruleset, txid) VALUES ('message', '1', 1)"
    )
    _by_hand(
        store,
        "INSERT INTO redact_permit (table_name, ruleset, txid) "
        "VALUES ('principle_event', '1', txid_current())",
    )
    with pytest.raises(DBAPIError, match="UPDATE is not allowed"):
        _by_hand(store, f"UPDATE message SET {UPGRADED} WHERE id = {old_message}")
