"""The one place with engine-specific SQL: append-only guards.

Everything else in Viva is portable SQLAlchemy. This module also holds the
one engine-specific fast path of the importer (:func:`bulk_insert`). A table declared append-only
gets guards in the database itself, so no code path (and no hand-typed SQL)
can rewrite history:

* SQLite: ``BEFORE UPDATE`` and ``BEFORE DELETE`` triggers that raise. With
  ``PRAGMA recursive_triggers=ON`` (set on every connection) the implicit
  delete done by the REPLACE conflict clause fires the delete guard too.
* PostgreSQL: a row trigger on ``UPDATE OR DELETE`` (which also catches
  ``INSERT ... ON CONFLICT DO UPDATE``) and a statement trigger on ``TRUNCATE``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from operator import itemgetter
from typing import Any

from sqlalchemy import JSON, Connection, DateTime, Table, text

GUARD_FUNCTION = "viva_append_only_guard"


def guard_names(table: str) -> tuple[str, ...]:
    """The names of the guard triggers of ``table`` (per dialect)."""
    return (f"viva_ao_{table}_no_update", f"viva_ao_{table}_no_delete")


def _pg_guard_names(table: str) -> tuple[str, ...]:
    return (f"viva_ao_{table}_rows", f"viva_ao_{table}_truncate")


def install_guard_function(conn: Connection) -> None:
    """PostgreSQL only: the trigger function the guards call (run once, first migration)."""
    if conn.dialect.name != "postgresql":
        return
    conn.execute(
        text(
            f"CREATE FUNCTION {GUARD_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$ "
            "BEGIN RAISE EXCEPTION 'append-only table %: % is not allowed', "
            "TG_TABLE_NAME, TG_OP USING ERRCODE = 'restrict_violation'; END $$"
        )
    )


def install_append_only(conn: Connection, table: str) -> None:
    """Install the guards that make ``table`` append-only."""
    if conn.dialect.name == "sqlite":
        update_name, delete_name = guard_names(table)
        for name, op in ((update_name, "UPDATE"), (delete_name, "DELETE")):
            conn.execute(
                text(
                    f"CREATE TRIGGER {name} BEFORE {op} ON {table} BEGIN "
                    f"SELECT RAISE(ABORT, 'append-only table {table}: {op} is not allowed'); END"
                )
            )
    elif conn.dialect.name == "postgresql":
        rows, truncate = _pg_guard_names(table)
        conn.execute(
            text(
                f"CREATE TRIGGER {rows} BEFORE UPDATE OR DELETE ON {table} "
                f"FOR EACH ROW EXECUTE FUNCTION {GUARD_FUNCTION}()"
            )
        )
        conn.execute(
            text(
                f"CREATE TRIGGER {truncate} BEFORE TRUNCATE ON {table} "
                f"FOR EACH STATEMENT EXECUTE FUNCTION {GUARD_FUNCTION}()"
            )
        )
    else:  # pragma: no cover - only SQLite and PostgreSQL are supported
        raise NotImplementedError(f"append-only guards for {conn.dialect.name}")


def missing_guards(conn: Connection, tables: Iterable[str]) -> list[str]:
    """Guard triggers that should exist but do not (e.g. dropped by a table rebuild)."""
    if conn.dialect.name == "sqlite":
        present = set(
            conn.execute(text("SELECT name FROM sqlite_master WHERE type = 'trigger'")).scalars()
        )
        expected = [name for table in tables for name in guard_names(table)]
    else:
        present = set(
            conn.execute(
                text(
                    "SELECT t.tgname FROM pg_trigger t "
                    "JOIN pg_class c ON c.oid = t.tgrelid "
                    "JOIN pg_namespace n ON n.oid = c.relnamespace "
                    "WHERE NOT t.tgisinternal AND n.nspname = current_schema()"
                )
            ).scalars()
        )
        expected = [name for table in tables for name in _pg_guard_names(table)]
    return [name for name in expected if name not in present]


def bulk_insert(conn: Connection, table: Table, rows: list[dict[str, Any]]) -> None:
    """Insert many rows of one shape as fast as the engine allows.

    On SQLite the rows go straight to the driver's ``executemany``, skipping
    SQLAlchemy's per-row parameter processing (the importer's hot path): values
    are converted here exactly as SQLAlchemy would store them (naive UTC
    ``YYYY-MM-DD HH:MM:SS.ffffff`` instants, JSON text). Elsewhere it is a
    plain Core ``executemany``.
    """
    if not rows:
        return
    if conn.dialect.name != "sqlite":
        conn.execute(table.insert(), rows)
        return
    names = list(rows[0])
    columns = ", ".join(f'"{name}"' for name in names)
    marks = ", ".join("?" for _ in names)
    conn.exec_driver_sql(
        f'INSERT INTO "{table.name}" ({columns}) VALUES ({marks})', _sqlite_rows(table, names, rows)
    )


def _sqlite_rows(table: Table, names: list[str], rows: list[dict[str, Any]]) -> list[Any]:
    """The rows as parameter sequences in ``names`` order, values converted."""
    get = itemgetter(*names)
    converters = [
        (i, conv) for i, name in enumerate(names) if (conv := _sqlite_converter(table.c[name].type))
    ]
    if len(names) == 1:
        conv = converters[0][1] if converters else None
        return [(conv(row[names[0]]) if conv else row[names[0]],) for row in rows]
    if not converters:
        return [get(row) for row in rows]
    data: list[Any] = []
    for row in rows:
        values = list(get(row))
        for i, conv in converters:
            values[i] = conv(values[i])
        data.append(tuple(values))
    return data


def _sqlite_converter(kind: Any) -> Callable[[Any], Any] | None:
    if isinstance(kind, DateTime):
        return _sqlite_datetime
    if isinstance(kind, JSON):
        return _sqlite_json
    return None


def _sqlite_datetime(value: datetime | None) -> str | None:
    global _last_instant
    if value is None:
        return None
    last = _last_instant  # one tuple, read and replaced whole: safe across threads
    if value is last[0]:  # the messages of one line share their instant
        return last[1]
    naive = value.astimezone(UTC).replace(tzinfo=None) if value.tzinfo is not None else value
    # SQLAlchemy's own storage format, always with microseconds.
    text = naive.isoformat(" ", "microseconds")
    _last_instant = (value, text)
    return text


_last_instant: tuple[Any, str | None] = (None, None)


def _sqlite_json(value: Any) -> str | None:
    return None if value is None else json.dumps(value)
