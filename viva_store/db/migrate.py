"""Apply the migrations in ``viva_store/migrations`` (only ever added, never edited).

Opening a store that is already at the newest schema reads one row and loads nothing of
Alembic; only a store that is behind takes the write lock and runs Alembic.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text

from viva_store.db.engine import read, write
from viva_store.errors import StoreError

if TYPE_CHECKING:
    from alembic.config import Config as AlembicConfig

MIGRATIONS = Path(__file__).resolve().parent.parent / "migrations"


def _alembic_config() -> AlembicConfig:
    from alembic.config import Config as AlembicConfig

    cfg = AlembicConfig()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head_revision() -> str:
    """The newest migration shipped with this version of Viva.

    Revisions are numbered like their files (``0013_member_skill_keys.py`` is revision
    ``0013``, a test holds them to it), so the newest is the highest number on disk.
    """
    return max(path.name[:4] for path in (MIGRATIONS / "versions").glob("[0-9]" * 4 + "_*.py"))


def current_revision(conn: Connection) -> str | None:
    """The store's schema revision (None for an empty database)."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    value = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
    return None if value is None else str(value)


def upgrade(engine: Engine) -> tuple[str | None, str]:
    """Bring the store to the newest schema; returns (before, after) revisions."""
    head = head_revision()
    before = read(engine, current_revision)
    if before == head:
        return before, head
    if before is not None and before > head:
        raise StoreError(
            f"the store's schema ({before}) is newer than this Viva knows ({head}): upgrade Viva"
        )

    def work(conn: Connection) -> tuple[str | None, str]:
        from alembic import command

        now = current_revision(conn)  # another process may have upgraded meanwhile
        if now != head:
            cfg = _alembic_config()
            cfg.attributes["connection"] = conn
            command.upgrade(cfg, "head")
        return now, head

    return write(engine, work)
