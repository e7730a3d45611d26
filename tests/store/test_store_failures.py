"""A store that cannot be used says so in one line, and nothing is created by mistake.

Damaged files, a read-only home, a mistyped or unsupported ``VIVA_DB_URL``: each is one
line on stderr from the CLI (exit 1), never a traceback and never a new empty store.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.runner import run
from tests.conftest import PG_URL
from viva_store.config import load_config
from viva_store.errors import StoreError
from viva_store.store import Store

sqlite_only = pytest.mark.skipif(bool(PG_URL), reason="these are files of a SQLite store")


def _home_with_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    monkeypatch.setenv("VIVA_HOME", str(home))
    monkeypatch.delenv("VIVA_DB_URL", raising=False)
    assert run(["members", "--json"]).code == 0
    return home


def _one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert "Traceback" not in err
    return lines[0]


@sqlite_only
def test_random_bytes_are_a_damaged_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = _home_with_store(tmp_path, monkeypatch)
    (home / "viva.db").write_bytes(os.urandom(64 * 1024))
    result = run(["members"])
    assert result.code == 1
    line = _one_line(result.err)
    assert "damaged" in line and "not a database" in line


@sqlite_only
def test_a_patched_page_is_a_damaged_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = _home_with_store(tmp_path, monkeypatch)
    db = home / "viva.db"
    data = bytearray(db.read_bytes())
    page = int.from_bytes(data[16:18], "big") or 65536
    for start in range(page, len(data), page):  # every page but the header's
        data[start : start + page] = b"\xff" * page
    db.write_bytes(bytes(data))
    result = run(["members"])
    assert result.code == 1
    assert "damaged" in _one_line(result.err)


@sqlite_only
def test_a_url_whose_folder_does_not_exist_creates_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIVA_DB_URL", f"sqlite:///{tmp_path / 'typo' / 'viva.db'}")
    result = run(["members"])
    assert result.code == 1
    assert "folder does not exist" in _one_line(result.err)
    assert not (tmp_path / "typo").exists()


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("postgres:/not a url", "not a database URL"),
        ("mysql://viva:hunter2@db.example/viva", "names mysql"),
        ("postgresql+nosuchdriver://viva@localhost/viva", "no driver"),
    ],
)
def test_a_bad_url_is_one_line_without_its_password(
    monkeypatch: pytest.MonkeyPatch, url: str, says: str
) -> None:
    monkeypatch.setenv("VIVA_DB_URL", url)
    result = run(["members"])
    assert result.code == 1
    line = _one_line(result.err)
    assert says in line
    assert "hunter2" not in line and "internal error" not in line


def test_a_postgresql_url_without_the_postgres_extra_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "psycopg", None)  # as if the extra were not installed
    monkeypatch.setenv("VIVA_DB_URL", "postgresql+psycopg://viva@localhost/viva")
    result = run(["members"])
    assert result.code == 1
    line = _one_line(result.err)
    assert "pip install 'viva-tui[postgres]'" in line
    assert "internal error" not in line and "Traceback" not in result.err


def _readonly(home: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    """``viva ARGS`` with ``home`` read-only: a read-only bind mount when we are root
    (root ignores file modes), the folder's and file's modes otherwise."""
    viva = [sys.executable, "-c", "from viva_tui.cli import main; main()", *args]
    env = {**os.environ, "VIVA_HOME": str(home)}
    env.pop("VIVA_DB_URL", None)
    if os.geteuid() != 0:
        files = [home / name for name in os.listdir(home)]
        for path in files:
            path.chmod(0o444)
        home.chmod(0o555)
        try:
            return subprocess.run(viva, env=env, capture_output=True, text=True, timeout=120)
        finally:
            home.chmod(0o700)
            for path in files:
                path.chmod(0o600)
    if shutil.which("unshare") is None:
        pytest.fail("running as root needs unshare(1) to mount the home read-only")
    script = 'mount --bind -o ro "$0" "$0" && exec "$@"'
    return subprocess.run(
        ["unshare", "-m", "sh", "-c", script, str(home), *viva],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@sqlite_only
def test_a_read_only_home_serves_reads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = _home_with_store(tmp_path, monkeypatch)
    listed = _readonly(home, ["members", "--json"])
    assert listed.returncode == 0, listed.stderr
    assert '"name": "deven"' in listed.stdout
    searched = _readonly(home, ["recall", "code review", "--json"])
    assert searched.returncode == 0, searched.stderr
    refused = _readonly(home, ["skill", "add", "deven", "log-investigation"])
    assert refused.returncode == 1
    assert "read-only" in _one_line(refused.stderr)


@sqlite_only
def test_the_default_home_is_made_on_first_use(tmp_path: Path) -> None:
    home = tmp_path / "fresh" / "home"
    store = Store.open(load_config({"VIVA_HOME": str(home)}))
    store.close()
    assert (home / "viva.db").is_file() and (home / "config.toml").is_file()


def test_a_store_newer_than_this_viva_is_refused(tmp_path: Path, db_url: str) -> None:
    config = load_config({"VIVA_HOME": str(tmp_path / "home"), "VIVA_DB_URL": db_url})
    store = Store.open(config)
    store.write(lambda c: c.exec_driver_sql("UPDATE alembic_version SET version_num = '9999'"))
    store.close()
    with pytest.raises(StoreError, match="newer than this Viva"):
        Store.open(config)


def test_a_session_id_too_long_for_like_matches_nothing(cli_env: str) -> None:
    ref = "a" * 60_000  # over SQLite's 50,000-byte limit on a LIKE pattern
    done = run(["session", "show", ref, "--json"])
    assert done.code == 1
    line = _one_line(done.err)
    assert line.startswith("viva: no session matches 'aaaa") and "60,000 characters" in line
    assert len(line) < 120
