"""The `viva` command contract for the foundation: JSON, errors, grants."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.runner import run
from tests.conftest import copy_members


@pytest.fixture(autouse=True)
def _engine(cli_env: str) -> None:
    """Every CLI test runs on the engine under test."""


@pytest.mark.fresh_store  # `viva init` creates the store
def test_init_then_members_json_lists_the_team() -> None:
    assert run(["init"]).code == 0
    result = run(["members", "--json"])
    assert result.code == 0, result.err
    members = json.loads(result.out)
    assert {m["name"]: m["role"] for m in members}["samuel"] == "planning"
    assert [m["name"] for m in members if m["coordinator"]] == ["samuel"]
    assert len(members) == 5


def test_a_broken_member_yaml_gives_one_line_naming_the_file(tmp_path: Path) -> None:
    team = copy_members(tmp_path / "team")
    (team / "oliver" / "member.yaml").write_text("name: oliver\n  bad: [indent\n")
    result = run(["init", "--members", str(team)])
    assert result.code == 1
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and str(team / "oliver" / "member.yaml") in lines[0]
    assert "Traceback" not in result.err


def test_skill_library_json_lists_at_least_15_skills() -> None:
    result = run(["skill", "library", "--json"])
    assert result.code == 0
    skills = json.loads(result.out)
    assert len(skills) >= 15 and all(s["description"] for s in skills)


def test_a_bad_grant_is_refused_with_a_clear_message(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVA_GRANT", "not-a-real-grant")
    result = run(["members"])
    assert result.code == 1
    assert result.out == ""
    assert "VIVA_GRANT" in result.err and "Traceback" not in result.err


def test_a_valid_grant_acts_as_its_member(monkeypatch: pytest.MonkeyPatch) -> None:
    token = run(["grant", "alice"]).out.strip()
    monkeypatch.setenv("VIVA_GRANT", token)
    members = json.loads(run(["members", "--json"]).out)
    souls = {m["name"]: m["soul"] for m in members}
    assert souls["alice"] and not souls["deven"]
    refused = run(["grant", "deven"])
    assert refused.code == 1 and "only the owner" in refused.err


def test_grant_json_and_revoke(monkeypatch: pytest.MonkeyPatch) -> None:
    issued = json.loads(run(["grant", "deven", "--ttl", "1h", "--json"]).out)
    assert set(issued) == {"id", "member", "token", "expires_at"}
    assert run(["grant", "revoke", issued["id"]]).code == 0
    monkeypatch.setenv("VIVA_GRANT", issued["token"])
    result = run(["members"])
    assert result.code == 1 and "revoked" in result.err


def test_usage_errors_exit_2() -> None:
    assert run(["members", "--no-such-flag"]).code == 2
    assert run(["no-such-command"]).code == 2


def test_unknown_skill_and_member_are_one_line_errors() -> None:
    result = run(["skill", "show", "no-such-skill"])
    assert result.code == 1 and result.err.count("\n") == 1
    result = run(["grant", "nobody"])
    assert result.code == 1 and "no member named" in result.err


def test_the_cli_does_not_import_textual() -> None:
    code = "import viva_tui.cli, sys; assert 'textual' not in sys.modules, 'textual imported'"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_the_store_does_not_import_ui_libraries() -> None:
    code = (
        "import sys, viva_store.store, viva_store.members.grants, viva_store.members.roster; "
        "bad = [m for m in ('textual', 'rich', 'typer', 'viva_tui') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
