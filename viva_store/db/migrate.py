"""Apply the migrations in ``viva_store/migrations`` (only ever added, never edited)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config as AlembicConfig
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, Engine

from viva_store.db.engine import write

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def _alembic_config() -> AlembicConfig:
    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head_revision() -> str:
    """The newest migration shipped with this version of Viva."""
    head = ScriptDirectory.from_config(_alembic_config()).get_current_head()
    assert head is not None
    return head


def current_revision(conn: Connection) -> str | None:
    """The store's schema revision (None for an empty database)."""
    return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Bring the store to the newest schema; returns (before, after) revisions."""
    cfg = _alembic_config()

    def work(conn: Connection) -> tuple[str | None, str]:
        before = current_revision(conn)
        head = head_revision()
        if before != head:
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
        return before, head

    return write(engine, work)
