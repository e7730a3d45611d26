"""Template stores: built once per test session, copied into each test's empty database.

A new store runs every migration, and most tests then load the shipped team; both cost
more than the test itself. A template is such a store, built on first use:
:data:`MIGRATED` (migrated, empty) or :data:`TEAM` (the shipped team and library loaded).

On SQLite a test gets a copy of the template's database file (checkpointed and closed
first, so the file holds every page). On PostgreSQL the template is a schema kept for
the session; a test's schema gets the DDL the migrations sent when they built it, then
a copy of its rows and of its sequences' positions.

Building writes the clock (the store's creation, the team's loading), so a template is
kept per ``VIVA_NOW``: a test on a pinned clock gets one built on that clock.
"""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, MetaData, create_engine, event, text
from sqlalchemy.engine import make_url

from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.members.roster import load_team
from viva_store.store import Context, Store

MIGRATED = "migrated"
TEAM = "team"

_DATA = {"SELECT", "SHOW", "INSERT", "UPDATE", "DELETE"}
"""Statements that read or change rows; the others (CREATE, ALTER, ...) shape the schema."""


def schema_url(pg_url: str, schema: str) -> str:
    """``pg_url`` with every connection's ``search_path`` set to ``schema``."""
    sep = "&" if "?" in pg_url else "?"
    return f"{pg_url}{sep}options=-csearch_path%3D{schema}"


def _build(kind: str, config: Config, members: Path) -> None:
    """Open the store ``config`` names (running the migrations) and, for :data:`TEAM`,
    load the team in ``members``."""
    store = Store.open(config)
    try:
        if kind == TEAM:
            loaded = load_team(Context(store, OWNER), members)
            assert loaded.errors == ()
        if config.is_sqlite:
            _checkpoint(store.engine)
    finally:
        store.close()


def _checkpoint(engine: Engine) -> None:
    """Move every page of the WAL into the database file."""
    raw = engine.raw_connection()
    try:
        busy, _, _ = raw.cursor().execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0, "the template is still in use"
    finally:
        raw.close()


@dataclass(frozen=True)
class _PgTemplate:
    schema: str
    ddl: list[tuple[str, Any]]
    """The schema-shaping statements the build sent, with their parameters, in order."""
    tables: list[str]
    """The tables holding rows, parents before children."""
    sequences: list[tuple[str, int]]
    """Each sequence in use and its last value."""


class StoreTemplates:
    """The session's templates, built when first asked for; on PostgreSQL (``pg_url``)
    also the one engine that makes and drops the tests' schemas (:attr:`admin`)."""

    def __init__(self, root: Path, members: Path, pg_url: str | None) -> None:
        self._root = root
        self._members = members
        self._pg_url = pg_url
        self._admin = create_engine(pg_url) if pg_url else None
        self._files: dict[tuple[str, str | None], Path] = {}
        self._schemas: dict[tuple[str, str | None], _PgTemplate] = {}

    @property
    def admin(self) -> Engine:
        assert self._admin is not None, "PostgreSQL templates need VIVA_TEST_DB_URL"
        return self._admin

    def close(self) -> None:
        """Drop the template schemas."""
        if self._admin is None:
            return
        with self._admin.begin() as conn:
            for template in self._schemas.values():
                conn.execute(text(f"DROP SCHEMA {template.schema} CASCADE"))
        self._admin.dispose()

    def copy_file(self, kind: str, path: Path) -> None:
        """Make ``path`` (which must not exist) a SQLite store copied from ``kind``."""
        assert not path.exists(), path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        shutil.copyfile(self._file(kind), path)
        os.chmod(path, 0o600)

    def copy_schema(self, kind: str, conn: Connection, schema: str) -> None:
        """Fill the empty PostgreSQL ``schema`` from ``kind``, in ``conn``'s transaction."""
        template = self._schema(kind)
        conn.exec_driver_sql(f"SET LOCAL search_path TO {schema}")
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for statement, parameters in template.ddl:
                cursor.execute(statement, parameters)
            for table in template.tables:
                cursor.execute(
                    f'INSERT INTO "{table}" OVERRIDING SYSTEM VALUE '
                    f'SELECT * FROM {template.schema}."{table}"'
                )
            for sequence, value in template.sequences:
                cursor.execute("SELECT setval(%s, %s)", (sequence, value))
        finally:
            cursor.close()

    def _file(self, kind: str) -> Path:
        key = (kind, os.environ.get("VIVA_NOW"))
        if key not in self._files:
            home = self._root / f"{kind}-{len(self._files)}"
            db = home / "viva.db"
            _build(kind, Config(home=home, db_url=f"sqlite:///{db}"), self._members)
            assert not db.with_name("viva.db-wal").exists(), "the template's WAL outlived it"
            self._files[key] = db
        return self._files[key]

    def _schema(self, kind: str) -> _PgTemplate:
        key = (kind, os.environ.get("VIVA_NOW"))
        if key not in self._schemas:
            self._schemas[key] = self._build_schema(kind)
        return self._schemas[key]

    def _build_schema(self, kind: str) -> _PgTemplate:
        """Build ``kind`` in a schema of its own, keeping the DDL it sent."""
        assert self._pg_url, "PostgreSQL templates need VIVA_TEST_DB_URL"
        schema = f"tmpl_{kind}_{secrets.token_hex(4)}"
        url = schema_url(self._pg_url, schema)
        target = make_url(url)
        ddl: list[tuple[str, Any]] = []

        def keep(
            conn: Connection, _cursor: Any, statement: str, parameters: Any, _ctx: Any, _many: bool
        ) -> None:
            if conn.engine.url == target and statement.split(None, 1)[0].upper() not in _DATA:
                ddl.append((statement, parameters))

        with self.admin.begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        event.listen(Engine, "before_cursor_execute", keep)
        try:
            _build(kind, Config(home=self._root / "pg", db_url=url), self._members)
        finally:
            event.remove(Engine, "before_cursor_execute", keep)
        with self.admin.connect() as conn:
            meta = MetaData()
            meta.reflect(conn, schema=schema)
            tables = [
                table.name
                for table in meta.sorted_tables
                if conn.execute(
                    text(f'SELECT EXISTS (SELECT 1 FROM {schema}."{table.name}")')
                ).scalar_one()
            ]
            sequences = conn.execute(
                text(
                    "SELECT sequencename, last_value FROM pg_sequences "
                    "WHERE schemaname = :schema AND last_value IS NOT NULL"
                ),
                {"schema": schema},
            ).all()
        return _PgTemplate(schema, ddl, tables, [(name, int(value)) for name, value in sequences])
