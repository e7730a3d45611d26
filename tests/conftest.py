"""Shared fixtures.

Store tests run on SQLite by default and on PostgreSQL when
``VIVA_TEST_DB_URL`` names a server (CI runs the suite both ways). On
PostgreSQL each test gets a schema of its own, dropped afterwards.
"""

from __future__ import annotations

import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.members.roster import load_team
from viva_store.store import Context, Store

REPO = Path(__file__).resolve().parents[1]
MEMBERS = REPO / "members"
FIXTURES = REPO / "tests" / "fixtures"
"""The project's own harness fixtures, shaped as each harness writes its files."""
PG_URL = os.environ.get("VIVA_TEST_DB_URL")


def pytest_report_header() -> str:
    return f"viva store engine: {'PostgreSQL' if PG_URL else 'SQLite'}"


@pytest.fixture(autouse=True)
def _isolated_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No test sees the developer's real data, clock or grant."""
    for var in ("VIVA_GRANT", "VIVA_DB_URL", "VIVA_NOW", "VIVA_MEMBER", "VIVA_EXECUTION"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv("VIVA_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("HOME", str(tmp_path / "user"))


@pytest.fixture
def db_url(tmp_path: Path) -> Iterator[str]:
    """A fresh, empty database URL on the engine under test."""
    if not PG_URL:
        yield f"sqlite:///{tmp_path / 'home' / 'viva.db'}"
        return
    schema = "t_" + secrets.token_hex(6)
    admin = create_engine(PG_URL)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))
    sep = "&" if "?" in PG_URL else "?"
    try:
        yield f"{PG_URL}{sep}options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


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
def ctx(store: Store) -> Context:
    """The owner's context on a store loaded with the shipped team and library."""
    owner = Context(store, OWNER)
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
