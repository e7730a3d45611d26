"""`viva session resume`: the harness's own command, run in the session's folder, owner only.

Stand-in ``claude`` and ``codex`` executables on PATH record where they ran and with what.
"""

from __future__ import annotations

import json
import os
import shlex
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.cli.runner import run
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code, codex
from viva_store.members.grants import issue_grant
from viva_store.store import Context

CLAUDE_ID = "c1a0de00-0000-4000-8000-000000000001"
CODEX_ID = "c0de0000-0000-4000-8000-000000000002"
STAND_IN = """#!/bin/sh
{{ pwd; for a in "$@"; do printf '%s\\n' "$a"; done; }} > "{record}/$(basename "$0").txt"
exit {code}
"""


@pytest.fixture
def work(cli_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Claude Code and a Codex session run in ``work/``; stand-ins on PATH."""
    folder = tmp_path / "work"
    folder.mkdir()
    start = datetime(2026, 6, 1, 9, tzinfo=UTC)
    turns = (Turn("go", "done"),)
    claude_code(tmp_path / "claude", SessionSpec(CLAUDE_ID, str(folder), start, turns, "m"))
    codex(tmp_path / "codex", SessionSpec(CODEX_ID, str(folder), start, turns, "m"))
    roots = [
        "--root",
        f"claude-code={tmp_path / 'claude'}",
        "--root",
        f"codex={tmp_path / 'codex'}",
    ]
    assert run(["import", *roots]).code == 0
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, code in (("claude", 0), ("codex", 3)):
        exe = bin_dir / name
        exe.write_text(STAND_IN.format(record=tmp_path, code=code), "utf-8")
        exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.chdir(tmp_path)
    return folder


def _ran(tmp_path: Path, name: str) -> list[str]:
    return (tmp_path / f"{name}.txt").read_text("utf-8").splitlines()


def test_claude_is_resumed_by_its_id_in_the_sessions_folder(work: Path, tmp_path: Path) -> None:
    result = run(["session", "resume", CLAUDE_ID])
    assert result.code == 0, result.err
    assert _ran(tmp_path, "claude") == [str(work), "--resume", CLAUDE_ID]


def test_codex_is_resumed_with_its_subcommand_and_its_exit_status_passes_on(
    work: Path, tmp_path: Path
) -> None:
    result = run(["session", "resume", CODEX_ID])
    assert result.code == 3
    assert _ran(tmp_path, "codex") == [str(work), "resume", CODEX_ID]


def test_print_and_json_show_the_command_without_running_it(work: Path, tmp_path: Path) -> None:
    printed = run(["session", "resume", CLAUDE_ID, "--print"])
    assert printed.code == 0
    assert printed.out.strip() == f"cd {shlex.quote(str(work))} && claude --resume {CLAUDE_ID}"
    data = json.loads(run(["session", "resume", CODEX_ID, "--json"]).out)
    assert data["argv"] == ["codex", "resume", CODEX_ID] and data["cwd"] == str(work)
    assert data["cwd_exists"] is True and data["harness"] == "codex"
    assert not (tmp_path / "claude.txt").exists() and not (tmp_path / "codex.txt").exists()


def test_a_folder_that_is_gone_is_refused_in_one_line(work: Path, tmp_path: Path) -> None:
    work.rmdir()
    result = run(["session", "resume", CLAUDE_ID])
    assert result.code == 1 and len(result.err.strip().splitlines()) == 1
    assert "is gone" in result.err and not (tmp_path / "claude.txt").exists()


def test_a_harness_not_on_path_is_named(work: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    result = run(["session", "resume", CLAUDE_ID])
    assert result.code == 1 and "claude is not on PATH" in result.err


def test_only_the_owner_resumes(
    ctx: Context, work: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert run(["classify", CLAUDE_ID, "--member", "deven"]).code == 0
    monkeypatch.setenv("VIVA_GRANT", issue_grant(ctx, "deven").token)
    result = run(["session", "resume", CLAUDE_ID, "--print"])
    assert result.code == 1 and "only the owner" in result.err
    assert not (tmp_path / "claude.txt").exists()


RESUME_FLAG = {
    "claude-code": ["claude", "--resume"],
    "codex": ["codex", "resume"],
    "gemini": ["gemini", "--resume"],
    "opencode": ["opencode", "--session"],
    "hermes": ["hermes", "--resume"],
}


def test_every_harness_has_its_own_resume_command(every_harness: list[dict[str, object]]) -> None:
    seen = set()
    for s in every_harness:
        if s["relation"] == "subagent" or not s["cwd"]:
            continue
        result = run(["session", "resume", str(s["id"]), "--json"])
        assert result.code == 0, (s["harness"], result.err)
        argv = json.loads(result.out)["argv"]
        if s["harness"] == "pi":
            assert argv[:2] == ["pi", "--session"] and Path(argv[2]).is_file()
            assert s["native_id"] in Path(argv[2]).read_text("utf-8")
        else:
            assert argv == [*RESUME_FLAG[str(s["harness"])], s["native_id"]]
        seen.add(s["harness"])
    assert seen == {*RESUME_FLAG, "pi"}


def test_a_claude_sub_agent_is_refused_naming_its_parent(
    every_harness: list[dict[str, object]],
) -> None:
    sub = next(
        s for s in every_harness if s["relation"] == "subagent" and s["harness"] == "claude-code"
    )
    result = run(["session", "resume", str(sub["id"]), "--print"])
    assert result.code == 1 and "sub-agent" in result.err
    assert str(sub["parent_id"]) in result.err
