"""Backups and restores: a SQLite copy taken while an import writes is the store as one
of its commits left it; a restore round-trips and refuses what it must."""

from __future__ import annotations

import hashlib
import sqlite3
import threading
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import PG_URL
from tests.store.test_import import run, spec
from viva_store.access import OWNER, Actor
from viva_store.config import Config
from viva_store.demo.harness_files import claude_code
from viva_store.errors import AccessDenied, InvalidInput, StoreError
from viva_store.importing import batch
from viva_store.maintenance.backup import backup, check_copy, pg_dump_command, restore
from viva_store.store import Context, Store

sqlite_only = pytest.mark.skipif(bool(PG_URL), reason="a SQLite store's file is copied")
NOW = datetime(2026, 12, 1, 9, 30, tzinfo=UTC)


def digest(path: Path) -> str:
    """Every row of every table of the SQLite file at ``path``, hashed."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        h = hashlib.sha256()
        names = conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "ORDER BY name"
        ).fetchall()
        for (name,) in names:
            rows = conn.execute(f'SELECT * FROM "{name}"').fetchall()
            h.update(name.encode() + repr(sorted(rows, key=repr)).encode())
        return h.hexdigest()
    finally:
        conn.close()


def sessions_in(root: Path, count: int) -> Path:
    for n in range(count):
        claude_code(root, spec(native_id=f"0f8e9d7c-1111-4222-8333-{n:012d}", turns=4))
    return root


@sqlite_only
def test_a_backup_during_an_import_is_the_store_at_one_of_its_commits(
    ctx: Context, config: Config, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = tmp_path / "home" / "viva.db"
    root = sessions_in(tmp_path / "claude", 40)
    monkeypatch.setattr(batch, "BATCH_BYTES", 1)  # one commit per file
    states = [digest(source)]  # the store after each commit, in order
    halfway = threading.Event()
    write: Callable[..., Any] = ctx.store.write

    def write_and_record(work: Callable[..., Any]) -> Any:
        result = write(work)
        states.append(digest(source))  # no other commit can come before this returns
        if len(states) == 10:
            halfway.set()
        return result

    monkeypatch.setattr(ctx.store, "write", write_and_record)
    importer = threading.Thread(target=run, args=(ctx,), kwargs={"claude-code": root})
    importer.start()
    assert halfway.wait(60)
    copies: list[tuple[Path, Any]] = []
    while importer.is_alive() or not copies:
        target = tmp_path / f"copy-{len(copies)}.db"
        done = backup(config, OWNER, target, NOW)
        copies.append((target, done))
    importer.join()

    assert len(states) > 40  # the import did commit file by file
    for target, done in copies:
        assert done.schema == check_copy(target) and done.bytes == target.stat().st_size
        assert digest(target) in states[9:], f"{target} is no state the store was in"
        assert (target.stat().st_mode & 0o777) == 0o600
        assert not Path(f"{target}-wal").exists()  # one self-contained file


@sqlite_only
def test_restore_round_trips_and_refuses_without_force(
    ctx: Context, config: Config, tmp_path: Path
) -> None:
    run(ctx, **{"claude-code": sessions_in(tmp_path / "claude", 3)})
    store_file = tmp_path / "home" / "viva.db"
    before = digest(store_file)
    saved = backup(config, OWNER, tmp_path, NOW)  # a folder: the copy is named in it
    assert saved.path == str(tmp_path / "viva-20261201-093000.db")
    run(ctx, **{"claude-code": sessions_in(tmp_path / "more", 5)})
    ctx.store.close()
    assert digest(store_file) != before

    with pytest.raises(InvalidInput, match="add --force to replace it"):
        restore(config, OWNER, Path(str(saved.path)), force=False)
    done = restore(config, OWNER, Path(str(saved.path)), force=True)
    assert done.replaced and done.schema == saved.schema
    assert digest(store_file) == before
    reopened = Store.open(config)  # a restored store opens as any other
    reopened.close()


@sqlite_only
def test_restore_checks_what_it_is_given(ctx: Context, config: Config, tmp_path: Path) -> None:
    saved = Path(str(backup(config, OWNER, tmp_path / "copy.db", NOW).path))
    ctx.store.close()
    older = tmp_path / "older.db"
    older.write_bytes(saved.read_bytes())
    with sqlite3.connect(older) as conn:
        conn.execute("UPDATE alembic_version SET version_num = '0009'")
    with pytest.raises(StoreError, match="has schema 0009, this Viva 00"):
        restore(config, OWNER, older, force=True)
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="is not a Viva store"):
        restore(config, OWNER, junk, force=True)
    with pytest.raises(InvalidInput, match="no backup at"):
        restore(config, OWNER, tmp_path / "missing.db", force=True)
    with pytest.raises(InvalidInput, match="exists; give a new file"):
        backup(config, OWNER, saved, NOW)


def test_only_the_owner_backs_up(config: Config, tmp_path: Path) -> None:
    member = Actor(member="deven")
    with pytest.raises(AccessDenied):
        backup(config, member, tmp_path / "x.db", NOW)
    with pytest.raises(AccessDenied):
        restore(config, member, tmp_path / "x.db", force=True)


def test_postgresql_gets_the_pg_dump_command_without_its_password(tmp_path: Path) -> None:
    secret = "pw-" + "x" * 12
    url = f"postgresql+psycopg://viva:{secret}@db.example:5433/team?options=-csearch_path%3Dt_1"
    config = Config(home=tmp_path, db_url=url)
    done = backup(config, OWNER, tmp_path, NOW + timedelta(seconds=1))
    assert done.path is None and done.command is not None
    assert done.command.split() == [
        "pg_dump",
        "--format=custom",
        f"--file={tmp_path}/viva-20261201-093001.dump",
        "--host=db.example",
        "--port=5433",
        "--username=viva",
        "--schema=t_1",
        "team",
    ]
    assert secret not in done.command
    assert pg_dump_command(config, tmp_path / "b.dump", NOW).endswith("team")
    with pytest.raises(InvalidInput, match="pg_restore"):
        restore(config, OWNER, tmp_path / "b.dump", force=True)
