"""``viva doctor``, ``viva backup`` and ``viva restore`` as a user runs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runner import run
from tests.conftest import PG_URL
from viva_store.launch.files import Journal

sqlite_only = pytest.mark.skipif(bool(PG_URL), reason="a SQLite store's file")
KEYS = {"versions", "hyperscan", "store", "paths", "config", "roots", "launch_journals", "problems"}


def doctor() -> dict[str, Any]:
    done = run(["doctor", "--json"])
    assert done.code == 0, done.err
    report: dict[str, Any] = json.loads(done.out)
    return report


def test_doctor_reports_without_making_or_upgrading_a_store(tmp_path: Path) -> None:
    report = doctor()
    assert set(report) == KEYS
    assert report["versions"]["python"] == sys.version.split()[0]
    assert report["versions"]["sqlite_fts5"] is True and report["versions"]["viva"]
    assert report["store"]["exists"] is False and report["store"]["schema"] is None
    assert not (tmp_path / "home").exists()  # looking made nothing


def test_doctor_on_an_open_store(cli_env: str, tmp_path: Path) -> None:
    assert run(["members", "--json"]).code == 0  # first use makes the store
    report = doctor()
    store = report["store"]
    assert store["error"] is None and store["schema"] == store["head"]
    assert store["last_import"] is None and report["problems"] == []
    if PG_URL:
        assert report["versions"]["postgresql"]  # the server's version
        return
    paths = {p["name"]: p for p in report["paths"]}
    assert paths["database"]["mode"] == "0600" and paths["data"]["mode"] == "0700"
    (tmp_path / "home" / "viva.db").chmod(0o644)
    assert any("open to other users (mode 0644; chmod 0600" in p for p in doctor()["problems"])


def test_doctor_reports_config_errors_and_the_last_import(cli_env: str, tmp_path: Path) -> None:
    assert run(["import", "--json"]).code == 0
    (tmp_path / "home" / "config.toml").write_text(
        "[skills]\ncapacity = -1\n[recal]\nhalf_life_days = 3\n", encoding="utf-8"
    )
    report = doctor()
    errors = report["config"]["errors"]
    assert any("capacity" in e for e in errors) and any(
        "unknown section [recal]" in e for e in errors
    )
    assert set(errors) <= set(report["problems"])
    assert report["store"]["last_import"]["finished_at"].endswith("Z")


def test_doctor_weighs_the_oldest_file_against_the_harness_retention(tmp_path: Path) -> None:
    home = Path(os.environ["HOME"])
    project = home / ".claude" / "projects" / "-src-shop"
    project.mkdir(parents=True)
    for n, days in enumerate((1, 9)):
        path = project / f"0f8e9d7c-1111-4222-8333-{n:012d}.jsonl"
        path.write_text("{}\n", encoding="utf-8")
        old = time.time() - days * 86400
        os.utime(path, (old, old))
    (home / ".claude" / "settings.json").write_text('{"cleanupPeriodDays": 14}')
    report = doctor()
    root = next(r for r in report["roots"] if r["harness"] == "claude-code")
    assert root["files"] == 2 and root["retention_days"] == 14
    assert 8.9 < root["oldest_days"] < 9.1
    assert any(p.startswith("claude-code keeps files 14 days") for p in report["problems"])
    (home / ".claude" / "settings.json").write_text('{"cleanupPeriodDays": 60}')
    assert not any("keeps files" in p for p in doctor()["problems"])


def test_doctor_lists_a_launch_that_died(tmp_path: Path) -> None:
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    journal = Journal(
        path=tmp_path / "unused",
        cwd=str(tmp_path / "work"),
        execution_id="x1",
        grant_id="g1",
        member="deven",
        harness="claude-code",
        pid=dead.pid,
        instruction="CLAUDE.md",
        existed=False,
        size=0,
        sha256="",
        inserted=b"",
        files=(),
        dirs=(),
    )
    folder = tmp_path / "home" / "launches"
    folder.mkdir(parents=True)
    (folder / "x1.json").write_text(json.dumps(journal.to_json()), encoding="utf-8")
    report = doctor()
    assert [j["member"] for j in report["launch_journals"]] == ["deven"]
    assert report["launch_journals"][0]["running"] is False
    assert f"a launch in {tmp_path / 'work'} died" in " ".join(report["problems"])


def test_doctor_is_the_owners(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVA_GRANT", "anything")
    done = run(["doctor"])
    assert done.code == 1 and done.err.count("\n") == 1 and "unset VIVA_GRANT" in done.err


@sqlite_only
def test_backup_and_restore_from_the_command_line(cli_env: str, tmp_path: Path) -> None:
    assert run(["members", "--json"]).code == 0
    saved = run(["backup", str(tmp_path / "b.db"), "--json"])
    assert saved.code == 0, saved.err
    record = json.loads(saved.out)
    assert record["path"] == str(tmp_path / "b.db") and record["engine"] == "sqlite"
    refused = run(["restore", str(tmp_path / "b.db")])
    assert refused.code == 1 and refused.err.count("\n") == 1 and "--force" in refused.err
    done = run(["restore", str(tmp_path / "b.db"), "--force"])
    assert done.code == 0 and done.out.startswith("restored ")
    again = run(["backup", str(tmp_path / "b.db")])
    assert (
        again.code == 1
        and again.err == f"viva: {tmp_path / 'b.db'} exists; give a new file or a folder\n"
    )
    assert run(["backup"]).code == 2
