"""Shared fixtures.

Store tests run on SQLite by default and on PostgreSQL when
``VIVA_TEST_DB_URL`` names a server (CI runs the suite both ways). On
PostgreSQL each test gets a schema of its own, dropped afterwards.

A test that uses a store starts from a copy of a template store (see
:mod:`tests.store_templates`): the one it is marked with (``store_template``), else the
recall history with ``recall_history``, else the shipped team with ``ctx``, else the
migrated store with ``store`` or ``cli_env``. A test that only asks for ``db_url`` or
``config``, or is marked ``fresh_store``, starts from an empty database.
"""

from __future__ import annotations

import functools
import gc
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import text

import viva_tui  # noqa: F401  (see the collector below)
from tests.store.recall_fixtures import NOW as HISTORY_NOW
from tests.store.recall_fixtures import RECALL_HISTORY, build_history
from tests.store_templates import (
    MEMBERS,
    MIGRATED,
    TEAM,
    StoreTemplates,
    Template,
    load_shipped_team,
    schema_url,
)
from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.db import migrate
from viva_store.store import Context, Store

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"
"""The project's own harness fixtures, shaped as each harness writes its files."""
PG_URL = os.environ.get("VIVA_TEST_DB_URL")

# Importing viva_tui turns the collector off until a `viva` start-up ends; the suite runs
# with it on. It allocates far more than any `viva` process: at Python's default threshold
# (700) the cyclic collector, forever rescanning half a million live objects, took a
# fifth of the suite's CPU.
gc.enable()
gc.set_threshold(20_000)

# Property tests without settings of their own: 300 examples, no deadline (a loaded
# machine misses one), whichever modules a run collects.
settings.register_profile(
    "viva", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("viva")


TEMPLATE_OF_FIXTURE = (
    ("recall_history", RECALL_HISTORY),
    ("ctx", TEAM),
    ("store", MIGRATED),
    ("cli_env", MIGRATED),
)
"""The template a test's store is copied from: that of the first of these it uses."""
COPIED = pytest.StashKey[tuple[Template | None, object]]()
"""The template a test's database was copied from (None: it started empty), and what
the template's build returned."""


def pytest_report_header() -> str:
    return f"viva store engine: {'PostgreSQL' if PG_URL else 'SQLite'}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fresh_store: the test's store starts from an empty database, not a template "
        "(the test exercises migrations or store creation)",
    )
    config.addinivalue_line(
        "markers",
        "store_template(template): the test's store starts as a copy of this "
        "tests.store_templates.Template",
    )


@pytest.fixture(scope="session", autouse=True)
def _head_revision_read_once() -> Iterator[None]:
    """Every store opened checks its schema against the newest migration, which Alembic
    finds by loading all the migration files; they cannot change during a test session,
    so they are read once."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(migrate, "head_revision", functools.cache(migrate.head_revision))
        yield


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's real data, clock or grant."""
    for var in ("VIVA_GRANT", "VIVA_DB_URL", "VIVA_NOW", "VIVA_MEMBER", "VIVA_EXECUTION"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("VIVA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))


@pytest.fixture(scope="session")
def store_templates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StoreTemplates]:
    """The session's template stores (built on first use)."""
    templates = StoreTemplates(tmp_path_factory.mktemp("templates"), PG_URL)
    try:
        yield templates
    finally:
        templates.close()


def _template_for(request: pytest.FixtureRequest) -> Template | None:
    if request.node.get_closest_marker("fresh_store"):
        return None
    marked = request.node.get_closest_marker("store_template")
    if marked:
        template: Template = marked.args[0]
        return template
    names = set(request.fixturenames)
    return next((template for name, template in TEMPLATE_OF_FIXTURE if name in names), None)


@pytest.fixture
def db_url(
    request: pytest.FixtureRequest, tmp_path: Path, store_templates: StoreTemplates
) -> Iterator[str]:
    """The database URL under test: a copy of a template when the test uses a store,
    else empty."""
    template = _template_for(request)
    built: object = None
    if not PG_URL:
        path = tmp_path / "home" / "viva.db"
        if template:
            built = store_templates.copy_file(template, path)
        request.node.stash[COPIED] = (template, built)
        yield f"sqlite:///{path}"
        return
    schema = "t_" + secrets.token_hex(6)
    admin = store_templates.admin
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
        if template:
            built = store_templates.copy_schema(template, conn, schema)
    request.node.stash[COPIED] = (template, built)
    try:
        yield schema_url(PG_URL, schema)
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))


@pytest.fixture
def config(tmp_path: Path, db_url: str) -> Config:
    return Config(home=tmp_path / "home", db_url=db_url)


@pytest.fixture
def store(config: Config) -> Iterator[Store]:
    opened = Store.open(config)
    try:
        yield opened
    finally:
        opened.close()


@pytest.fixture
def ctx(request: pytest.FixtureRequest, store: Store) -> Context:
    """The owner's context on a store loaded with the shipped team and library."""
    owner = Context(store, OWNER)
    template, _ = request.node.stash[COPIED]
    if template in (None, MIGRATED):
        load_shipped_team(owner)
    return owner


@pytest.fixture
def recall_history(
    request: pytest.FixtureRequest, ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> dict[str, str]:
    """The recall tests' team history (:func:`tests.store.recall_fixtures.build_history`),
    the clock set to its ``NOW``; native session id -> Viva session id."""
    monkeypatch.setenv("VIVA_NOW", HISTORY_NOW.isoformat())
    template, built = request.node.stash[COPIED]
    if template is RECALL_HISTORY:
        assert isinstance(built, dict)
        return dict(built)
    return build_history(ctx, tmp_path / "claude")


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, db_url: str) -> str:
    """Point the CLI at the engine under test."""
    monkeypatch.setenv("VIVA_DB_URL", db_url)
    return db_url


def copy_members(dst: Path) -> Path:
    """A writable copy of the shipped team (tests that break a file)."""
    shutil.copytree(MEMBERS, dst)
    return dst
