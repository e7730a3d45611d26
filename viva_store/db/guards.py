"""The one place with engine-specific SQL: append-only guards.

Everything else in Viva is portable SQLAlchemy. A table declared append-only
gets guards in the database itself, so no code path (and no hand-typed SQL)
can rewrite history, whatever the connection's settings:

* SQLite: ``BEFORE UPDATE`` and ``BEFORE DELETE`` triggers that raise, and a
  ``BEFORE INSERT`` trigger that refuses a row whose key exists — so the
  REPLACE conflict clause cannot delete the old row even when
  ``recursive_triggers`` is off (the stock ``sqlite3`` shell, Python's
  ``sqlite3``), which is when the delete guard does not fire on it.
* PostgreSQL: a row trigger on ``UPDATE OR DELETE`` (which also catches
  ``INSERT ... ON CONFLICT DO UPDATE``) and a statement trigger on ``TRUNCATE``.

One UPDATE is admitted, the redaction upgrade (:mod:`viva_store.recheck`): only
while the transaction holds the table's row in ``redact_permit`` (on PostgreSQL
one written by this very transaction), only of the table's rewritable text
columns and its ``ruleset``, only to the permit's rule-set version and to a
newer one, and each changed text must gain ``[REDACTED:`` markers. Anything
else — an ordinary UPDATE, or one that touches another column, keeps or lowers
the version, or rewrites a text without redacting — is refused.

:func:`install_guard_function` and :func:`install_append_only` are the guards
the first migrations built, frozen as they were; migration 0015 replaced them
with :func:`install_row_guard_function` and :func:`install_guards`.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager

from sqlalchemy import Connection, text

GUARD_FUNCTION = "viva_append_only_guard"
ROW_GUARD_FUNCTION = "viva_append_only_rows"
PERMIT_TABLE = "redact_permit"
MARKER = "[REDACTED:"


def guard_names(table: str) -> tuple[str, ...]:
    """The names of the SQLite guard triggers of ``table``."""
    return (
        f"viva_ao_{table}_no_update",
        f"viva_ao_{table}_no_delete",
        f"viva_ao_{table}_no_replace",
    )


def _pg_guard_names(table: str) -> tuple[str, ...]:
    return (f"viva_ao_{table}_rows", f"viva_ao_{table}_truncate")


def _refusal(table: str, what: str) -> str:
    return f"SELECT RAISE(ABORT, 'append-only table {table}: {what} is not allowed')"


# --- the first guards (migrations 0001-0006), frozen ------------------------------------


def install_guard_function(conn: Connection) -> None:
    """PostgreSQL only: the trigger function the first guards call (migration 0001)."""
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
    """The first guards of ``table``: no UPDATE, no DELETE (migrations 0001-0006)."""
    if conn.dialect.name == "sqlite":
        for name, op in ((guard_names(table)[0], "UPDATE"), (guard_names(table)[1], "DELETE")):
            conn.execute(
                text(
                    f"CREATE TRIGGER {name} BEFORE {op} ON {table} BEGIN {_refusal(table, op)}; END"
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


# --- the guards since migration 0015 ------------------------------------------------------

_PG_ROW_GUARD = f"""
CREATE FUNCTION {ROW_GUARD_FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    before jsonb;
    after jsonb;
    col text;
    admitted boolean := false;
BEGIN
    IF TG_OP = 'UPDATE' AND TG_NARGS > 0 THEN
        before := to_jsonb(OLD);
        after := to_jsonb(NEW);
        EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I.{PERMIT_TABLE} WHERE table_name = $1 '
                       'AND ruleset = $2 AND txid = txid_current())', TG_TABLE_SCHEMA)
            INTO admitted USING TG_TABLE_NAME, after ->> 'ruleset';
        admitted := admitted
            AND coalesce(substring(after ->> 'ruleset' from '^[0-9]+')::bigint, 0)
              > coalesce(substring(before ->> 'ruleset' from '^[0-9]+')::bigint, 0)
            AND (after - TG_ARGV - 'ruleset') = (before - TG_ARGV - 'ruleset');
        IF admitted THEN
            FOREACH col IN ARRAY TG_ARGV LOOP
                IF (after ->> col) IS DISTINCT FROM (before ->> col) AND
                   length(coalesce(after ->> col, ''))
                     - length(replace(coalesce(after ->> col, ''), '{MARKER}', ''))
                   <= length(coalesce(before ->> col, ''))
                     - length(replace(coalesce(before ->> col, ''), '{MARKER}', '')) THEN
                    admitted := false;
                END IF;
            END LOOP;
        END IF;
        IF admitted THEN
            RETURN NEW;
        END IF;
    END IF;
    RAISE EXCEPTION 'append-only table %: % is not allowed', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation';
END $$
"""


def install_row_guard_function(conn: Connection) -> None:
    """PostgreSQL only: the row trigger function of :func:`install_guards` (migration 0015).

    Its arguments name the table's rewritable columns; with none, every UPDATE is refused.
    """
    if conn.dialect.name == "postgresql":
        conn.execute(text(_PG_ROW_GUARD))


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _sqlite_columns(conn: Connection, table: str) -> list[tuple[str, int]]:
    """(name, position in the primary key, 0 if none) of each column of ``table``."""
    return [(row[1], row[5]) for row in conn.exec_driver_sql(f"PRAGMA table_info({_q(table)})")]


def _sqlite_unique_keys(conn: Connection, table: str) -> list[tuple[str, ...]]:
    """The primary key and every unique index of ``table``: each a conflict REPLACE resolves."""
    pk = tuple(
        name for name, pos in sorted(_sqlite_columns(conn, table), key=lambda c: c[1]) if pos
    )
    keys = [pk] if pk else []
    for row in list(conn.exec_driver_sql(f"PRAGMA index_list({_q(table)})")):
        name, unique, partial = row[1], row[2], row[4]
        if unique and not partial:
            cols = tuple(r[2] for r in conn.exec_driver_sql(f"PRAGMA index_info({_q(name)})"))
            if cols not in keys:
                keys.append(cols)
    return keys


def _markers(value: str) -> str:
    plain = f"coalesce({value}, '')"
    return f"(length({plain}) - length(replace({plain}, '{MARKER}', '')))"


def _sqlite_upgrade_admitted(conn: Connection, table: str, rewritable: Sequence[str]) -> str:
    """The condition under which the SQLite update guard admits an UPDATE (see the module)."""
    fixed = [
        name for name, _ in _sqlite_columns(conn, table) if name not in {*rewritable, "ruleset"}
    ]
    terms = [
        f"EXISTS (SELECT 1 FROM {PERMIT_TABLE} p WHERE p.table_name = '{table}' "
        "AND p.ruleset = NEW.ruleset)",
        "CAST(NEW.ruleset AS INTEGER) > CAST(OLD.ruleset AS INTEGER)",
        *(f"NEW.{_q(c)} IS OLD.{_q(c)}" for c in fixed),
        *(
            f"(NEW.{c} IS OLD.{c} OR {_markers('NEW.' + c)} > {_markers('OLD.' + c)})"
            for c in map(_q, rewritable)
        ),
    ]
    return " AND ".join(terms)


def _drop_sqlite_guards(conn: Connection, table: str) -> None:
    for name in guard_names(table):
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")


def install_guards(conn: Connection, table: str, rewritable: Sequence[str] = ()) -> None:
    """(Re)install the guards that make ``table`` append-only.

    ``rewritable``: the text columns the redaction upgrade may rewrite (the table then
    needs a ``ruleset`` column). On SQLite the guards name the table's columns and keys
    as they are now: a migration that adds a column or a unique key to an append-only
    table calls this again.
    """
    if conn.dialect.name == "sqlite":
        _drop_sqlite_guards(conn, table)
        update_name, delete_name, replace_name = guard_names(table)
        when = (
            f" WHEN ({_sqlite_upgrade_admitted(conn, table, rewritable)}) IS NOT 1"
            if rewritable
            else ""
        )
        conn.exec_driver_sql(
            f"CREATE TRIGGER {update_name} BEFORE UPDATE ON {table}{when} "
            f"BEGIN {_refusal(table, 'UPDATE')}; END"
        )
        conn.exec_driver_sql(
            f"CREATE TRIGGER {delete_name} BEFORE DELETE ON {table} "
            f"BEGIN {_refusal(table, 'DELETE')}; END"
        )
        exists = " OR ".join(
            f"EXISTS (SELECT 1 FROM {table} WHERE "
            + " AND ".join(f"{_q(c)} = NEW.{_q(c)}" for c in key)
            + ")"
            for key in _sqlite_unique_keys(conn, table)
        )
        conn.exec_driver_sql(
            f"CREATE TRIGGER {replace_name} BEFORE INSERT ON {table} WHEN {exists} "
            f"BEGIN {_refusal(table, 'REPLACE (an INSERT of an existing key)')}; END"
        )
    elif conn.dialect.name == "postgresql":
        rows, truncate = _pg_guard_names(table)
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {rows} ON {table}")
        conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {truncate} ON {table}")
        args = ", ".join(f"'{c}'" for c in rewritable)
        conn.exec_driver_sql(
            f"CREATE TRIGGER {rows} BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {ROW_GUARD_FUNCTION}({args})"
        )
        conn.exec_driver_sql(
            f"CREATE TRIGGER {truncate} BEFORE TRUNCATE ON {table} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {GUARD_FUNCTION}()"
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


@contextmanager
def redaction_permit(conn: Connection, table: str, ruleset: str) -> Iterator[None]:
    """Hold ``table``'s permit for the block: the guards then admit the redaction upgrade's
    UPDATEs of its text to ``ruleset`` (and nothing else). Written and removed inside the
    caller's transaction, so no other transaction ever sees it; on PostgreSQL it also names
    this transaction, so one left behind by hand admits nothing later (on SQLite, where it
    cannot, one left behind is removed here)."""
    txid = "txid_current()" if conn.dialect.name == "postgresql" else "NULL"
    conn.execute(text(f"DELETE FROM {PERMIT_TABLE} WHERE table_name = :t"), {"t": table})
    conn.execute(
        text(f"INSERT INTO {PERMIT_TABLE} (table_name, ruleset, txid) VALUES (:t, :r, {txid})"),
        {"t": table, "r": ruleset},
    )
    yield
    conn.execute(text(f"DELETE FROM {PERMIT_TABLE} WHERE table_name = :t"), {"t": table})
