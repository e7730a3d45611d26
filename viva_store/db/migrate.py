"""Apply the migrations in ``viva_store/migrations`` (only ever added, never edited).

Opening a store that is already at the newest schema is one statement
(:func:`opening_state`: its revision and its guard triggers) and loads nothing of
Alembic; only a store that is behind takes the write lock and runs Alembic.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, inspect, text
from sqlalchemy.exc import OperationalError, ProgrammingError

from viva_store.db.engine import read, write
from viva_store.db.guards import present_guards_sql
from viva_store.db.meta import remember_version
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


_REVISION_MARK = "revision:"


@dataclass(frozen=True, slots=True)
class OpeningState:
    """What opening a store checks: its schema revision and the triggers present."""

    revision: str | None
    triggers: frozenset[str]


def opening_state(engine: Engine) -> OpeningState | None:
    """The store's revision and triggers in one statement; None for a database without
    Viva's schema (no ``alembic_version`` yet), which :func:`upgrade` creates."""
    sql = (
        present_guards_sql(engine.dialect.name)
        + f" UNION ALL SELECT '{_REVISION_MARK}' || version_num FROM alembic_version"
    )
    try:
        names = read(engine, lambda c: list(c.exec_driver_sql(sql).scalars()))
    except (OperationalError, ProgrammingError) as exc:
        if "alembic_version" in str(exc.orig):
            return None
        raise
    revisions = [n[len(_REVISION_MARK) :] for n in names if n.startswith(_REVISION_MARK)]
    triggers = frozenset(n for n in names if not n.startswith(_REVISION_MARK))
    return OpeningState(revisions[0] if revisions else None, triggers)


def _record_fresh_ruleset(conn: Connection) -> None:
    """A new store holds nothing redacted by older rules: say so, so that its first
    import does not re-check it and ``viva redact`` reports nothing due."""
    from viva_store.redact.ruleset import RULESET_VERSION

    remember_version(conn, RULESET_VERSION)


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
            if now is None:
                _record_fresh_ruleset(conn)
        return now, head

    return write(engine, work)
