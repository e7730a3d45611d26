"""The command contract as a user meets it: suggest, timeline, classify, member names,
usage errors, ``--since``, principle history and tables in a pipe."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import typer.main

from tests.cli.runner import Result, run
from tests.store.recall_fixtures import NOW
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.demo.service import build_demo
from viva_store.errors import AccessDenied
from viva_store.importing.pipeline import run_import
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.store import Context
from viva_tui import cli


def usage_error(result: Result) -> None:
    """A usage error: exit 2, one line on stderr, nothing on stdout."""
    assert (result.code, result.out) == (2, ""), result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err


def refused(result: Result, *words: str) -> None:
    """Any other error: exit 1, one line on stderr naming ``words``."""
    assert (result.code, result.out) == (1, ""), result.err
    assert result.err.count("\n") == 1 and "Traceback" not in result.err
    for word in words:
        assert word in result.err


def _write(root: Path, n: int, cwd: str, words: str) -> str:
    native = f"{n:08d}-1111-4222-8333-{n:012d}"
    start = datetime(2026, 5, 1, 8, tzinfo=UTC).replace(minute=n % 60, hour=8 + n // 60)
    claude_code(root, SessionSpec(native, cwd, start, (Turn(words, "ok"),), "m"))
    return native


@pytest.fixture
def queue(ctx: Context, cli_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """40 filed sessions (deven: migrations, oliver: backups) and two queued oliver-like
    ones; returns the queued sessions' native ids."""
    monkeypatch.setenv("VIVA_NOW", NOW.isoformat())
    root = tmp_path / "claude"
    filed: dict[str, list[str]] = {"deven": [], "oliver": []}
    for n in range(40):
        member = ("deven", "oliver")[n % 2]
        if member == "deven":
            filed[member].append(_write(root, n, "/src/viva", "refactor the migration module"))
        else:
            filed[member].append(_write(root, n, "/ops/infra", "restore the backup after alerts"))
    fresh = [
        _write(root, 98, "/ops/infra", "the disk alert fired, restore the backup"),
        _write(root, 99, "/ops/infra", "restore the backup after the disk alert"),
    ]
    for _ in run_import(ctx, ["claude-code"], {"claude-code": str(root)}):
        pass
    for member, natives in filed.items():
        assert run(["classify", *natives, "--member", member]).code == 0
    return fresh


def _queued() -> list[str]:
    return [s["native_id"] for s in json.loads(run(["sessions", "--json"]).out)]


def test_suggest_lists_the_queue_and_files_nothing(queue: list[str]) -> None:
    found = json.loads(run(["suggest", "--json"]).out)
    assert sorted(s["session_id"] for s in found) == sorted(
        s["id"] for s in json.loads(run(["sessions", "--unattributed", "--json"]).out)
    )
    assert {s["member"] for s in found} == {"oliver"}
    assert all(0.5 <= s["confidence"] <= 1 for s in found)
    rows = [line.split("\t") for line in run(["suggest"]).out.splitlines()]
    assert sorted(r[0] for r in rows) == sorted(s["session_id"] for s in found)
    assert sorted(_queued()) == sorted(queue)  # nothing was filed


def test_accept_suggestions_applies_only_the_sessions_given(queue: list[str]) -> None:
    first, second = queue
    done = run(["classify", "--accept-suggestions", first, "--min-confidence", "0.5", "--json"])
    assert done.code == 0, done.err
    assert [s["member"] for s in json.loads(done.out)] == ["oliver"]
    assert _queued() == [second]
    # --member narrows to the suggestions naming that member: none names deven.
    narrowed = run(["classify", "--accept-suggestions", "--member", "deven", "--json"])
    assert (narrowed.code, json.loads(narrowed.out)) == (0, [])
    assert _queued() == [second]
    refused(run(["classify", "--accept-suggestions", first]), "not waiting for triage")
    refused(run(["classify", "--accept-suggestions", "--member", "bob"]), "'bob'")


@pytest.mark.parametrize("name", ["", "bob", "DEVEN"])
def test_an_empty_or_unknown_member_is_refused_everywhere(
    recall_history: dict[str, str], cli_env: str, name: str
) -> None:
    """Names are exact (case-sensitive), in every command alike."""
    queued = recall_history["u-queue"]
    refused(run(["classify", queued, "--member", name]), f"{name!r}")
    refused(run(["sessions", "--member", name]), f"{name!r}")
    refused(run(["timeline", name]), f"{name!r}")
    refused(run(["skill", "list", name]), f"{name!r}")
    refused(run(["recall", "cache", "--member", name]))
    assert json.loads(run(["sessions", "--unattributed", "--json"]).out)[0]["id"] == queued


def test_usage_errors_exit_2(recall_history: dict[str, str], cli_env: str) -> None:
    queued = recall_history["u-queue"]
    usage_error(run(["sessions", "--unattributed", "--member", "deven"]))
    usage_error(run(["classify", queued]))
    usage_error(run(["classify", "--member", "deven"]))
    usage_error(run(["classify", queued, "--member", "deven", "--nobody"]))
    usage_error(run(["report", "weekly", "--json", "--markdown"]))
    usage_error(run(["recall", "x", "--limit", "0"]))
    usage_error(run(["sessions", "--no-such-flag"]))
    usage_error(run(["sessions", "--since", "last tuesday"]))


def test_timeline_shows_the_members_sessions_newest_first(
    recall_history: dict[str, str], cli_env: str
) -> None:
    items = json.loads(run(["timeline", "deven", "--json"]).out)
    sessions = [i["session_id"] for i in items if i["kind"] == "session"]
    ids = recall_history
    assert sessions == [ids["d-recent"], ids["d-other-project"], ids["d-planted"]]
    assert [i["at"] for i in items] == sorted((i["at"] for i in items), reverse=True)
    # NOW is 2026-06-01 12:00 UTC; d-recent started a day before, d-other-project two.
    since = json.loads(run(["timeline", "deven", "--since", "36h", "--json"]).out)
    assert [i["session_id"] for i in since if i["kind"] == "session"] == [ids["d-recent"]]
    rows = run(["timeline", "deven"]).out.splitlines()
    assert any(r.split("\t")[2] == ids["d-planted"] for r in rows)


def test_since_takes_relative_forms_and_quotes_what_was_typed(
    recall_history: dict[str, str], cli_env: str
) -> None:
    def natives(*args: str) -> set[str]:
        result = run(["sessions", "--all", "--json", *args])
        assert result.code == 0, result.err
        return {s["native_id"] for s in json.loads(result.out)}

    assert natives("--since", "2d") == {"d-recent", "d-other-project"}  # on or after
    assert natives("--since", "1w") == natives("--since", "7d") == natives("--since", "2026-05-25")
    assert natives("--since", "yesterday") == {"d-recent"}
    assert "u-queue" in natives("--since", "1W")
    bad = run(["sessions", "--since", "Tomorrow-ish"])
    usage_error(bad)
    assert "'Tomorrow-ish'" in bad.err


def test_a_pipe_gets_tab_separated_rows_with_whole_ids(
    recall_history: dict[str, str], cli_env: str
) -> None:
    out = run(["sessions", "--all"]).out
    rows = [line.split("\t") for line in out.splitlines()]
    assert sorted(r[0] for r in rows) == sorted(recall_history.values())
    assert all(len(r) == 7 for r in rows)
    assert "…" not in out and "─" not in out and "│" not in out


LISTINGS_WITHOUT_JSON = {"init", "demo", "tui", "mcp", "skill show", "skill rebuild"}
"""The commands that print no listing (a body, an app, progress, a stdio server): no
``--json``."""


def test_every_listing_takes_json() -> None:
    lacking: set[str] = set()

    def walk(command: Any, path: tuple[str, ...]) -> None:
        children = getattr(command, "commands", None)
        if children:
            for name, child in children.items():
                walk(child, (*path, name))
        elif "--json" not in {opt for p in command.params for opt in p.opts}:
            lacking.add(" ".join(path))

    walk(typer.main.get_command(cli.app), ())
    assert lacking == LISTINGS_WITHOUT_JSON


def test_a_members_grant_may_not_build_a_demo(
    ctx: Context, cli_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIVA_GRANT", issue_grant(ctx, "deven").token)
    target = tmp_path / "demo"
    refused(run(["demo", "--no-tui", "--home", str(target)]), "only the owner", "demo")
    assert not target.exists()
    member = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    with pytest.raises(AccessDenied):
        build_demo(target, actor=member.actor)
    assert not target.exists()


def test_a_use_on_a_sub_agent_session_names_the_parent(
    ctx: Context, cli_env: str, tmp_path: Path
) -> None:
    root = tmp_path / "claude"
    parent = "ffffffff-0000-4000-8000-000000000006"
    start = datetime(2026, 5, 20, 9, tzinfo=UTC)
    claude_code(root, SessionSpec(parent, "/src/viva", start, (Turn("do it", "done"),), "m"))
    sub = claude_code(
        tmp_path / "x", SessionSpec("agent-1", "/src/viva", start, (Turn("sub", "ok"),), "m")
    )
    child_dir = root / "-src-viva" / parent / "subagents"
    child_dir.mkdir(parents=True)
    (child_dir / "agent-abc123.jsonl").write_bytes(sub.read_bytes())
    for _ in run_import(ctx, ["claude-code"], {"claude-code": str(root)}):
        pass
    assert run(["classify", parent, "--member", "deven"]).code == 0
    found = json.loads(run(["sessions", "--member", "deven", "--json"]).out)
    child = next(s["id"] for s in found if s["native_id"] != parent)
    parent_id = next(s["id"] for s in found if s["native_id"] == parent)
    use = ["skill", "use", "deven", "code-review", "--outcome", "success", "--session"]
    refused(run([*use, child]), "sub-agent", parent_id)
    assert "not one of" not in run([*use, child]).err  # it is deven's session
    assert run([*use, parent_id]).code == 0
