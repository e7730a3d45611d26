"""Template stores: built once per test session, copied into each test's empty database.

A new store runs every migration, and most tests then load the shipped team; both cost
more than the test itself. A :class:`Template` says what such a store holds beyond the
migrated schema; it is built on first use, and each test that needs it gets a copy.

On SQLite a copy is the template's database file (checkpointed and closed first, so the
file holds every page). On PostgreSQL the template is a schema kept for the session; a
test's schema gets the DDL the migrations sent when they built it, then a copy of its
rows and of its sequences' positions.

Building writes the clock (the store's creation, the team's loading), so a template is
kept per ``VIVA_NOW``: a test on a pinned clock gets one built on that clock.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, Engine, MetaData, create_engine, event, text
from sqlalchemy.engine import make_url

from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.members.roster import load_team
from viva_store.store import Context, Store

MEMBERS = Path(__file__).resolve().parents[1] / "members"
"""The shipped team (and skill library) in this checkout."""


@dataclass(frozen=True)
class Template:
    """A kind of template store: ``build`` fills the migrated store (``files`` is a folder
    of its own, for harness files and the like) and returns what its tests need to know
    of it; no ``build``: the migrated store, empty."""

    name: str
    build: Callable[[Context, Path], object] | None = None


def load_shipped_team(ctx: Context) -> None:
    """Load the shipped team and library (what the ``ctx`` fixture's store holds)."""
    loaded = load_team(ctx, MEMBERS)
    assert loaded.errors == ()


MIGRATED = Template("migrated")
TEAM = Template("team", lambda ctx, _files: load_shipped_team(ctx))


@contextmanager
def viva_now(at: datetime) -> Iterator[None]:
    """``VIVA_NOW`` set to ``at`` inside the block (in every thread, unlike a frozen
    clock), and restored after."""
    saved = os.environ.get("VIVA_NOW")
    os.environ["VIVA_NOW"] = at.isoformat()
    try:
        yield
    finally:
        if saved is None:
            del os.environ["VIVA_NOW"]
        else:
            os.environ["VIVA_NOW"] = saved


def schema_url(pg_url: str, schema: str) -> str:
    """``pg_url`` with every connection's ``search_path`` set to ``schema``."""
    sep = "&" if "?" in pg_url else "?"
    return f"{pg_url}{sep}options=-csearch_path%3D{schema}"


_DATA = {"SELECT", "SHOW", "INSERT", "UPDATE", "DELETE"}
"""Statements that read or change rows; the others (CREATE, ALTER, ...) shape the schema."""


@dataclass(frozen=True)
class _Built:
    value: object
    """What the template's ``build`` returned."""
    path: Path | None = None
    """SQLite: the database file."""
    schema: str = ""
    """PostgreSQL: the template's schema, and what copying it takes:"""
    ddl: tuple[tuple[str, Any], ...] = ()
    """the schema-shaping statements the build sent, with their parameters, in order;"""
    tables: tuple[str, ...] = ()
    """the tables holding rows, parents before children;"""
    sequences: tuple[tuple[str, int], ...] = ()
    """each sequence in use and its last value."""


def _build(template: Template, config: Config, files: Path) -> object:
    """Open the store ``config`` names (running the migrations) and fill it."""
    store = Store.open(config)
    try:
        value = template.build(Context(store, OWNER), files) if template.build else None
        if config.is_sqlite:
            _checkpoint(store.engine)
        return value
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


class StoreTemplates:
    """The session's template stores, built when first asked for; on PostgreSQL
    (``pg_url``) also the one engine that makes and drops the tests' schemas."""

    def __init__(self, root: Path, pg_url: str | None) -> None:
        self._root = root
        self._pg_url = pg_url
        self._admin = create_engine(pg_url) if pg_url else None
        self._built: dict[tuple[str, bool, str | None], _Built] = {}

    @property
    def admin(self) -> Engine:
        assert self._admin is not None, "PostgreSQL templates need VIVA_TEST_DB_URL"
        return self._admin

    def close(self) -> None:
        """Drop the template schemas."""
        if self._admin is None:
            return
        with self._admin.begin() as conn:
            for built in self._built.values():
                if built.schema:
                    conn.execute(text(f"DROP SCHEMA {built.schema} CASCADE"))
        self._admin.dispose()

    def copy_file(self, template: Template, path: Path) -> object:
        """Make ``path`` (which must not exist) a SQLite store copied from ``template``;
        returns what its build returned."""
        built = self._get(template, sqlite=True)
        assert built.path is not None and not path.exists(), path
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        shutil.copyfile(built.path, path)
        os.chmod(path, 0o600)
        return built.value

    def copy_schema(self, template: Template, conn: Connection, schema: str) -> object:
        """Fill the empty PostgreSQL ``schema`` from ``template``, in ``conn``'s
        transaction; returns what its build returned."""
        built = self._get(template, sqlite=False)
        conn.exec_driver_sql(f"SET LOCAL search_path TO {schema}")
        cursor = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
        try:
            for statement, parameters in built.ddl:
                cursor.execute(statement, parameters)
            for table in built.tables:
                cursor.execute(
                    f'INSERT INTO "{table}" OVERRIDING SYSTEM VALUE '
                    f'SELECT * FROM {built.schema}."{table}"'
                )
            for sequence, value in built.sequences:
                cursor.execute("SELECT setval(%s, %s)", (sequence, value))
        finally:
            cursor.close()
        return built.value

    def _get(self, template: Template, *, sqlite: bool) -> _Built:
        key = (template.name, sqlite, os.environ.get("VIVA_NOW"))
        if key not in self._built:
            folder = self._root / f"{template.name}-{len(self._built)}"
            build = self._build_file if sqlite else self._build_schema
            self._built[key] = build(template, folder)
        return self._built[key]

    def _build_file(self, template: Template, folder: Path) -> _Built:
        db = folder / "home" / "viva.db"
        value = _build(template, Config(home=db.parent, db_url=f"sqlite:///{db}"), folder)
        assert not db.with_name("viva.db-wal").exists(), "the template's WAL outlived it"
        return _Built(value, path=db)

    def _build_schema(self, template: Template, folder: Path) -> _Built:
        """Build ``template`` in a schema of its own, keeping the DDL it sent."""
        assert self._pg_url, "PostgreSQL templates need VIVA_TEST_DB_URL"
        schema = f"tmpl_{secrets.token_hex(6)}"
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
            value = _build(template, Config(home=folder / "home", db_url=url), folder)
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
        return _Built(
            value,
            schema=schema,
            ddl=tuple(ddl),
            tables=tuple(tables),
            sequences=tuple((name, int(last)) for name, last in sequences),
        )
