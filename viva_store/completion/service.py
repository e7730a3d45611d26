"""The words a shell completes on Tab: member names, skill names, session ids, harnesses.

A completion runs inside the user's shell on every Tab, so it must never change the
store, wait on it, or print: the store is opened read-only and without migrating (a
missing store, an older schema, a locked file or an unreachable server give no words),
and under a member's grant nothing is read from it (the shell belongs to the owner).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, or_, select
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from viva_store.config import load_config
from viva_store.db.schema import MEMBER, SESSION, SKILL
from viva_store.importing.harness.registry import names as harness_names

LIMIT = 200
"""At most this many words for one Tab (a shell shows them all)."""


def harnesses(prefix: str) -> list[str]:
    """The harnesses Viva reads that start with ``prefix``."""
    return [name for name in harness_names() if name.startswith(prefix)]


def members(prefix: str) -> list[str]:
    """The team's member names that start with ``prefix``."""
    return _read(lambda engine: _names(engine, MEMBER.c.name, prefix))


def skills(prefix: str) -> list[str]:
    """The team library's skill names that start with ``prefix``."""
    return _read(lambda engine: _names(engine, SKILL.c.name, prefix))


def sessions(prefix: str) -> list[str]:
    """Session ids (Viva's, or the harness's native id) that start with ``prefix``, the
    newest sessions first."""

    def query(engine: Engine) -> list[str]:
        statement = (
            select(SESSION.c.id, SESSION.c.native_id)
            .where(or_(SESSION.c.id.startswith(prefix), SESSION.c.native_id.startswith(prefix)))
            .order_by(SESSION.c.started_at.desc())
            .limit(LIMIT)
        )
        with engine.connect() as conn:
            rows = conn.execute(statement).all()
        found = [sid if sid.startswith(prefix) else native for sid, native in rows]
        return list(dict.fromkeys(found))

    return _read(query)


def _names(engine: Engine, column: Any, prefix: str) -> list[str]:
    statement = select(column).where(column.startswith(prefix)).order_by(column).limit(LIMIT)
    with engine.connect() as conn:
        return [str(name) for name in conn.execute(statement).scalars()]


def _read(query: Callable[[Engine], list[str]]) -> list[str]:
    """``query`` over the store opened read-only; no words when it cannot be read."""
    if os.environ.get("VIVA_GRANT"):
        return []
    try:
        engine = _read_only_engine(load_config().db_url)
        if engine is None:
            return []
        try:
            return query(engine)
        finally:
            engine.dispose()
    except Exception:  # a Tab must never show a traceback: no words instead
        return []


def _read_only_engine(url: str) -> Engine | None:
    """An engine that cannot write the store ``url`` names (None: there is no store)."""
    if not url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"connect_timeout": 2}, poolclass=NullPool)
        return engine.execution_options(postgresql_readonly=True)
    database = make_url(url).database
    if not database or database == ":memory:" or not Path(database).is_file():
        return None
    uri = f"file:{Path(database).resolve()}?mode=ro"
    return create_engine(
        "sqlite://",
        creator=lambda: sqlite3.connect(uri, uri=True, timeout=0.5),
        poolclass=NullPool,
    )
