"""`viva import`, `viva sessions`, `viva session show`, `viva classify` as CLI.md says."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.cli.runner import run
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code, codex

IMPORT_KEYS = {
    "files_scanned",
    "sessions_new",
    "sessions_updated",
    "sessions_unchanged",
    "messages_added",
    "lines_skipped",
    "redactions",
    "problems",
}
SESSION_KEYS = {
    "id",
    "harness",
    "native_id",
    "project",
    "cwd",
    "started_at",
    "ended_at",
    "title",
    "message_count",
    "member",
    "status",
}


@pytest.fixture
def roots(tmp_path: Path, cli_env: str) -> list[str]:
    for n in range(3):
        spec = SessionSpec(
            native_id=f"{n}{n}{n}{n}aaaa-0000-4000-8000-00000000000{n}",
            cwd=f"/home/haisu/src/project{n}",
            start=datetime(2026, 11, 10 + n, 9, tzinfo=UTC),
            turns=(Turn(f"prompt number {n}", f"reply {n}"),),
            model="claude-sonnet-4",
            title=f"session {n}",
        )
        claude_code(tmp_path / "claude", spec)
        codex(tmp_path / "codex", spec)
    bad = tmp_path / "claude" / "broken" / "x.jsonl"
    bad.parent.mkdir()
    bad.write_bytes(b"{not json\n")
    return ["--root", f"claude-code={tmp_path / 'claude'}", "--root", f"codex={tmp_path / 'codex'}"]


def test_import_json_has_the_contract_keys_and_exits_0_despite_problems(roots: list[str]) -> None:
    result = run(["import", *roots, "--json"])
    assert result.code == 0, result.err
    summary = json.loads(result.out)
    assert set(summary) >= IMPORT_KEYS
    assert summary["sessions_new"] == 6 and summary["lines_skipped"] == 1
    assert summary["problems"] == [
        {
            "path": summary["problems"][0]["path"],
            "line": 1,
            "reason": summary["problems"][0]["reason"],
        }
    ]
    assert summary["problems"][0]["path"].endswith("broken/x.jsonl")
    again = json.loads(run(["import", *roots, "--json"]).out)
    assert (again["sessions_new"], again["messages_added"]) == (0, 0)


def test_human_import_reports_counts_and_problems_on_stderr(roots: list[str]) -> None:
    result = run(["import", *roots])
    assert result.code == 0
    assert "6 new sessions" in result.out
    assert "x.jsonl:1" in result.err


def test_sessions_json_and_show(roots: list[str]) -> None:
    run(["import", *roots])
    listed = json.loads(run(["sessions", "--json"]).out)
    assert len(listed) == 6 and all(set(s) >= SESSION_KEYS for s in listed)
    assert all(s["status"] == "unattributed" and s["member"] is None for s in listed)
    starts = [s["started_at"] for s in listed]
    assert starts == sorted(starts, reverse=True), "newest first"
    only_codex = json.loads(run(["sessions", "--harness", "codex", "--limit", "2", "--json"]).out)
    assert len(only_codex) == 2 and {s["harness"] for s in only_codex} == {"codex"}
    shown = json.loads(run(["session", "show", listed[0]["id"], "--json"]).out)
    assert shown["id"] == listed[0]["id"]
    assert [set(m) >= {"seq", "role", "at", "text", "tool"} for m in shown["messages"]]
    assert [m["seq"] for m in shown["messages"]] == list(range(len(shown["messages"])))


def test_classify_by_native_prefix_unclassify_and_nobody(roots: list[str]) -> None:
    run(["import", *roots])
    listed = json.loads(run(["sessions", "--harness", "claude-code", "--json"]).out)
    first, second = listed[0], listed[1]
    done = run(
        ["classify", first["native_id"][:8], "--member", "deven", "--harness", "claude-code"]
    )
    assert done.code == 2  # --harness is not an option of classify: a usage error
    ambiguous = run(["classify", first["native_id"][:8], "--member", "deven"])
    assert ambiguous.code == 1 and "ambiguous" in ambiguous.err  # claude and codex share it
    assert run(["classify", first["id"], "--member", "deven"]).code == 0
    assert run(["classify", second["id"], "--nobody"]).code == 0
    mine = json.loads(run(["sessions", "--member", "deven", "--json"]).out)
    assert [s["id"] for s in mine] == [first["id"]] and mine[0]["status"] == "attributed"
    everything = {s["id"]: s for s in json.loads(run(["sessions", "--all", "--json"]).out)}
    assert everything[second["id"]]["status"] == "nobody"
    assert run(["unclassify", first["id"]]).code == 0
    queue = {s["id"] for s in json.loads(run(["sessions", "--unattributed", "--json"]).out)}
    assert first["id"] in queue and second["id"] not in queue


def test_a_member_sees_only_its_own_sessions_and_cannot_classify(
    roots: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run(["import", *roots])
    listed = json.loads(run(["sessions", "--json"]).out)
    run(["classify", listed[0]["id"], "--member", "alice"])
    run(["classify", listed[1]["id"], "--member", "deven"])
    token = run(["grant", "alice"]).out.strip()
    monkeypatch.setenv("VIVA_GRANT", token)
    mine = json.loads(run(["sessions", "--json"]).out)
    assert [s["id"] for s in mine] == [listed[0]["id"]]
    assert json.loads(run(["sessions", "--all", "--json"]).out) == mine
    assert json.loads(run(["sessions", "--unattributed", "--json"]).out) == []
    refused = run(["session", "show", listed[1]["id"]])
    assert refused.code == 1 and "no session" in refused.err
    denied = run(["classify", listed[2]["id"], "--member", "alice"])
    assert denied.code == 1 and "only the owner" in denied.err
    assert run(["import", "--json"]).code == 1


def test_bad_arguments_are_one_line_errors(roots: list[str]) -> None:
    result = run(["classify", "nothing-like-this", "--member", "deven"])
    assert result.code == 1 and result.err.count("\n") == 1
    result = run(["classify", "x", "--member", "deven", "--nobody"])
    assert result.code == 2  # a usage error
    result = run(["sessions", "--harness", "vim"])
    assert result.code == 1 and "unknown harness" in result.err
    result = run(["import", "--root", "nonsense"])
    assert result.code == 1 and "HARNESS=PATH" in result.err
    result = run(["sessions", "--since", "last tuesday"])
    assert result.code == 2 and "'last tuesday'" in result.err
