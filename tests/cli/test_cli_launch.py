"""``viva launch`` as CLI.md promises: the dry run, the summary, exit codes, errors."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runner import run
from tests.store.test_launch_support import install, path_with, seen
from viva_store.config import load_config
from viva_store.members.executions import list_executions
from viva_store.members.grants import list_grants
from viva_store.store import Context, Store

PRINCIPLE = "Reproduce a flaky test under repetition before changing it."
TASK = "fix the flaky test"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: str) -> Path:
    folder = Path(os.path.realpath(tmp_path)) / "proj"
    folder.mkdir()
    install(tmp_path / "bin")
    monkeypatch.setenv("PATH", path_with(tmp_path / "bin"))
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "seen.json"))
    monkeypatch.chdir(folder)
    assert run(["init"]).code == 0
    return folder


def approve_principle() -> None:
    proposed = run(["principle", "propose", "deven", "--text", PRINCIPLE, "--rationale", "r"])
    assert proposed.code == 0, proposed.err
    [cand] = json.loads(run(["principle", "queue", "--json"]).out)
    assert run(["principle", "approve", cand["id"]]).code == 0


def test_the_dry_run_of_issue_9_shows_skills_reasons_principles_and_command(
    project: Path,
) -> None:
    approve_principle()

    r = run(["launch", "deven", "--harness", "claude-code", "--dry-run", "--task", TASK])

    assert r.code == 0, r.err
    assert r.err == ""
    skills = json.loads(run(["project", "deven", "--task", TASK, "--json"]).out)["skills"]
    assert skills
    for s in skills:
        assert s["name"] in r.out
    assert "relevance" in r.out and "weight" in r.out  # the reasons
    assert PRINCIPLE in r.out
    claude = project.parent / "bin" / "claude"
    assert f"{claude} --session-id '<session uuid, chosen at launch>'" in r.out
    assert "VIVA_MEMBER=deven" in r.out
    assert "MCP server 'viva' for this session only" in r.out and " mcp  (acts as deven" in r.out
    assert str(project / "CLAUDE.md") in r.out
    # Nothing changed: no file, execution, grant or journal.
    assert list(project.iterdir()) == []
    store = Store.open(load_config())
    try:
        assert list_executions(Context(store)) == [] and list_grants(Context(store)) == []
    finally:
        store.close()
    assert not (Path(os.environ["VIVA_HOME"]) / "launches").exists()


def test_the_dry_run_json_is_one_document(project: Path) -> None:
    r = run(["launch", "deven", "--harness", "codex", "--dry-run", "--json", "--task", TASK])

    assert r.code == 0, r.err
    plan = json.loads(r.out)
    assert plan["member"] == "deven" and plan["harness"] == "codex"
    assert plan["command"] == [str(project.parent / "bin" / "codex"), *plan["mcp"]["harness_args"]]
    assert plan["mcp"]["command"][-1] == "mcp" and "VIVA_GRANT" in plan["mcp"]["env"]
    assert plan["cwd"] == str(project)
    assert {"skills", "not_picked", "principles"} <= set(plan["projection"])
    assert plan["files"][0] == {"path": str(project / "AGENTS.md"), "action": "create",
                                "bytes": len(plan["block"].encode())}  # fmt: skip
    assert plan["problems"] == [] and plan["warnings"] == []


def test_a_launch_prints_its_summary_and_exits_with_the_harness_status(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "CLAUDE.md").write_bytes(b"mine\n")
    monkeypatch.setenv("STANDIN_READS", "code-review,code-review")
    monkeypatch.setenv("STANDIN_EXIT", "4")

    r = run(["launch", "deven", "--harness", "claude-code", "--task", TASK, "--", "--model", "m"])

    saw = seen(Path(os.environ["STANDIN_LOG"]))
    assert r.code == 4
    assert saw["argv"][2].startswith("--mcp-config=") and saw["argv"][3:] == ["--model", "m"]
    assert "launching deven in claude-code" in r.err
    assert "exit 4 (failure)" in r.out
    assert f"({saw['session']}): attributed to deven" in r.out
    assert "uses credited: code-review (value 0.25)" in r.out
    assert "grant revoked" in r.out
    assert (project / "CLAUDE.md").read_bytes() == b"mine\n"
    sessions = json.loads(run(["sessions", "--member", "deven", "--json"]).out)
    assert [s["native_id"] for s in sessions] == [saw["session"]]


def test_a_launch_with_json_prints_the_result(project: Path) -> None:
    r = run(["launch", "alice", "--harness", "codex", "--json"])

    assert r.code == 0, r.err
    result: dict[str, Any] = json.loads(r.out)
    assert result["attributed_to"] == "alice"
    assert result["execution"]["outcome"] == "success"
    assert result["grant_revoked"] is True
    assert result["uses"] == []


def test_the_configured_executable_is_used(project: Path, tmp_path: Path) -> None:
    moved = tmp_path / "opt" / "claude-beta"
    moved.parent.mkdir()
    (project.parent / "bin" / "claude").rename(moved)
    home = Path(os.environ["VIVA_HOME"])
    home.mkdir(parents=True, exist_ok=True)  # on PostgreSQL the store is not in it
    (home / "config.toml").write_text(f'[launch]\nclaude-code = "{moved}"\n')

    r = run(["launch", "deven", "--harness", "claude-code", "--dry-run", "--json"])

    assert json.loads(r.out)["command"][0] == str(moved)


@pytest.mark.parametrize(
    ("args", "code", "message"),
    [
        (["launch", "deven"], 2, "--harness"),
        (["launch", "deven", "--harness", "codex", "--model", "x"], 2, "No such option"),
        (["launch", "deven", "--harness", "gemini"], 1, "cannot be launched yet"),
        (["launch", "nobody", "--harness", "codex"], 1, "no member named 'nobody'"),
        (["launch", "deven", "--harness", "claude-code", "--", "--session-id=x"], 1, "Viva sets"),
    ],
)
def test_refusals(project: Path, args: list[str], code: int, message: str) -> None:
    r = run(args)
    assert r.code == code
    assert r.out == ""
    assert message in r.err
    if code == 1:
        assert r.err.count("\n") == 1 and "Traceback" not in r.err
    assert list(project.iterdir()) == []


def test_a_member_cannot_launch(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVA_GRANT", run(["grant", "deven"]).out.strip())
    r = run(["launch", "deven", "--harness", "codex", "--dry-run"])
    assert r.code == 1 and "only the owner can launch members" in r.err
