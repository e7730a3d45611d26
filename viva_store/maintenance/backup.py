"""Backups and restores of a store.

A SQLite store is copied with SQLite's online backup API in one step: the copy is the
database as one read transaction saw it, whatever writers (an import, the app) do
meanwhile, and is checked by opening it before it takes its name. PostgreSQL is backed
up by the server's own tool: Viva prints the ``pg_dump`` command to run. A restore
replaces the store's file with a checked copy, never over a store without ``force``,
and never a copy of another schema version than this Viva's.
"""

from __future__ import annotations

import os
import shlex
import sqlite3
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sqlalchemy.engine import make_url

from viva_store.access import Actor, require_owner
from viva_store.config import Config
from viva_store.db.migrate import head_revision
from viva_store.errors import InvalidInput, StoreError
from viva_store.records import JsonRecord


@dataclass(frozen=True, slots=True)
class BackupRecord(JsonRecord):
    """A backup taken (``path``) or, for PostgreSQL, the command that takes one."""

    engine: str
    path: str | None
    bytes: int
    schema: str | None
    command: str | None


@dataclass(frozen=True, slots=True)
class RestoreRecord(JsonRecord):
    """The store a restore replaced, and what it was replaced with."""

    store: str
    source: str
    schema: str
    replaced: bool


def sqlite_path(config: Config) -> Path:
    """The store's database file (SQLite only)."""
    database = make_url(config.db_url).database
    if not config.is_sqlite or not database or database == ":memory:":
        raise InvalidInput("this store is not a SQLite file")
    return Path(database)


def check_copy(path: Path) -> str:
    """Open ``path`` as a Viva store: its schema revision, or a one-line :class:`StoreError`."""
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            status = conn.execute("PRAGMA quick_check").fetchone()
            row = conn.execute("SELECT version_num FROM alembic_version").fetchone()
        finally:
            conn.close()
    except sqlite3.DatabaseError as exc:
        raise StoreError(f"{path} is not a Viva store ({exc})") from exc
    if not status or status[0] != "ok":
        raise StoreError(f"{path} is damaged ({status[0] if status else 'no answer'})")
    if row is None:
        raise StoreError(f"{path} is not a Viva store (no schema version)")
    return str(row[0])


def backup(config: Config, actor: Actor, target: Path, now: datetime) -> BackupRecord:
    """Copy the store to ``target`` (a new file, or a folder to put one in)."""
    require_owner(actor, "back up the store")
    if not config.is_sqlite:
        return BackupRecord("postgresql", None, 0, None, pg_dump_command(config, target, now))
    source = sqlite_path(config)
    if not source.is_file():
        raise StoreError(f"no store at {source}")
    if target.is_dir():
        target = target / f"viva-{now.strftime('%Y%m%d-%H%M%S')}.db"
    if target.exists():
        raise InvalidInput(f"{target} exists; give a new file or a folder")
    if not target.parent.is_dir():
        raise InvalidInput(f"the folder {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.partial")
    try:
        _copy(source, partial)
        schema = check_copy(partial)
        os.replace(partial, target)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot back up to {target}: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)
    return BackupRecord("sqlite", str(target), target.stat().st_size, schema, None)


def _copy(source: Path, target: Path) -> None:
    """One-step online backup into a new 0600 file (in rollback mode: one self-contained
    file, without a ``-wal`` beside it)."""
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.close(fd)
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    dst = sqlite3.connect(target)
    try:
        src.backup(dst, pages=-1)
        dst.execute("PRAGMA journal_mode=DELETE")
    finally:
        dst.close()
        src.close()


def pg_dump_command(config: Config, target: Path, now: datetime) -> str:
    """The ``pg_dump`` command that backs up this PostgreSQL store (no password: pg_dump
    asks for it, or reads ``~/.pgpass`` / ``PGPASSWORD``)."""
    url = make_url(config.db_url)
    if target.is_dir():
        target = target / f"viva-{now.strftime('%Y%m%d-%H%M%S')}.dump"
    parts = ["pg_dump", "--format=custom", f"--file={target}"]
    if url.host:
        parts.append(f"--host={url.host}")
    if url.port:
        parts.append(f"--port={url.port}")
    if url.username:
        parts.append(f"--username={url.username}")
    options = url.query.get("options")
    schema = _search_path(options if isinstance(options, str) else "")
    if schema:
        parts.append(f"--schema={schema}")
    parts.append(url.database or "viva")
    return shlex.join(parts)


def _search_path(options: str) -> str | None:
    for part in options.split():
        part = part.removeprefix("-c")
        if part.startswith("search_path="):
            return part.split("=", 1)[1].split(",")[0] or None
    return None


def restore(config: Config, actor: Actor, source: Path, force: bool) -> RestoreRecord:
    """Replace the store's file with the backup ``source`` (checked first)."""
    require_owner(actor, "restore the store")
    if not config.is_sqlite:
        raise InvalidInput(
            "a PostgreSQL store is restored with pg_restore, e.g. "
            "pg_restore --clean --dbname=viva BACKUP.dump"
        )
    target = sqlite_path(config)
    if not source.is_file():
        raise InvalidInput(f"no backup at {source}")
    schema = check_copy(source)
    head = head_revision()
    if schema != head:
        advice = (
            "use a Viva of that schema"
            if schema > head
            else "open a copy of it once with this Viva (VIVA_DB_URL=sqlite:////path/to/copy "
            "viva status) to upgrade it, and restore the copy"
        )
        raise StoreError(f"{source} has schema {schema}, this Viva {head}: {advice}")
    exists = target.exists() and target.stat().st_size > 0
    if exists and not force:
        raise InvalidInput(f"a store exists at {target}; add --force to replace it")
    if not target.parent.is_dir():
        raise InvalidInput(f"the folder {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.restoring")
    try:
        _copy(source, partial)
        check_copy(partial)
        for suffix in ("-wal", "-shm"):
            Path(f"{target}{suffix}").unlink(missing_ok=True)
        os.replace(partial, target)
    except (OSError, sqlite3.Error) as exc:
        raise StoreError(f"cannot restore {target}: {exc}") from exc
    finally:
        partial.unlink(missing_ok=True)
    return RestoreRecord(str(target), str(source), schema, exists)
