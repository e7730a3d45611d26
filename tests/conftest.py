"""Shared fixtures.

Store tests run on SQLite by default and on PostgreSQL when
``VIVA_TEST_DB_URL`` names a server (CI runs the suite both ways). On
PostgreSQL each test gets a schema of its own, dropped afterwards.

A test that uses a store (``store``, ``ctx``, ``cli_env``) starts from a copy of a
template store (see :mod:`tests.store_templates`): migrated, and with the shipped team
when it asks for ``ctx``. A test that only asks for ``db_url`` or ``config``, or is
marked ``fresh_store``, starts from an empty database.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from sqlalchemy import text

from tests.store_templates import MIGRATED, TEAM, StoreTemplates, schema_url
from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.db import migrate
from viva_store.members.roster import load_team
from viva_store.store import Context, Store

REPO = Path(__file__).resolve().parents[1]
MEMBERS = REPO / "members"
FIXTURES = REPO.parent / "shared" / "fixtures" / "harness-samples"
PG_URL = os.environ.get("VIVA_TEST_DB_URL")

# Property tests without settings of their own: 300 examples, no deadline (a loaded
# machine misses one), whichever modules a run collects.
settings.register_profile(
    "viva", max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("viva")


USES_A_STORE = {"store", "ctx", "cli_env"}
TEMPLATE_KIND = pytest.StashKey[str | None]()
"""Which template a test's database was copied from (None: it started empty)."""


def pytest_report_header() -> str:
    return f"viva store engine: {'PostgreSQL' if PG_URL else 'SQLite'}"


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "fresh_store: the test's store starts from an empty database, not a template "
        "(the test exercises migrations or store creation)",
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
    templates = StoreTemplates(tmp_path_factory.mktemp("templates"), MEMBERS, PG_URL)
    try:
        yield templates
    finally:
        templates.close()


def _template_for(request: pytest.FixtureRequest) -> str | None:
    if request.node.get_closest_marker("fresh_store"):
        return None
    names = set(request.fixturenames)
    if "ctx" in names:
        return TEAM
    return MIGRATED if names & USES_A_STORE else None


@pytest.fixture
def db_url(
    request: pytest.FixtureRequest, tmp_path: Path, store_templates: StoreTemplates
) -> Iterator[str]:
    """The database URL under test: a copy of a template when the test uses a store,
    else empty."""
    kind = _template_for(request)
    request.node.stash[TEMPLATE_KIND] = kind
    if not PG_URL:
        path = tmp_path / "home" / "viva.db"
        if kind:
            store_templates.copy_file(kind, path)
        yield f"sqlite:///{path}"
        return
    schema = "t_" + secrets.token_hex(6)
    admin = store_templates.admin
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
        if kind:
            store_templates.copy_schema(kind, conn, schema)
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
    if request.node.stash[TEMPLATE_KIND] != TEAM:
        loaded = load_team(owner, MEMBERS)
        assert loaded.errors == ()
    return owner


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch, db_url: str) -> str:
    """Point the CLI at the engine under test."""
    monkeypatch.setenv("VIVA_DB_URL", db_url)
    return db_url


def copy_members(dst: Path) -> Path:
    """A writable copy of the shipped team (tests that break a file)."""
    shutil.copytree(MEMBERS, dst)
    return dst
