"""The one place with engine-specific SQL: append-only guards.

Everything else in Viva is portable SQLAlchemy. A table declared append-only
gets guards in the database itself, so no code path (and no hand-typed SQL)
can rewrite history:

* SQLite: ``BEFORE UPDATE`` and ``BEFORE DELETE`` triggers that raise. With
  ``PRAGMA recursive_triggers=ON`` (set on every connection) the implicit
  delete done by the REPLACE conflict clause fires the delete guard too.
* PostgreSQL: a row trigger on ``UPDATE OR DELETE`` (which also catches
  ``INSERT ... ON CONFLICT DO UPDATE``) and a statement trigger on ``TRUNCATE``.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import Connection, text

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
