"""`viva recall` finds words that only a tool call's whole input or a tool's output holds,
on both engines: the right session and message, a snippet from that field, the caller's
scope kept, and a secret in the input still redacted in the snippet.

The sessions are real Claude Code files recovered by the real importer.
"""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from tests.cli.runner import run
from tests.redact.support import secret_of, survivors
from tests.store.recall_fixtures import NOW, import_all, session_of, spec
from tests.store_templates import viva_now
from viva_store.db.schema import MESSAGE
from viva_store.demo.harness_files import Turn, claude_code
from viva_store.members.grants import issue_grant
from viva_store.redact import RULES_BY_ID
from viva_store.store import Context
from viva_store.triage.classify import classify

EDITED = "zephyrine"  # only in an Edit's new_string, right after a line break
COMMANDED = "pomegranite"  # only in a Bash command
OUTPUT = "xylographic"  # only in a Bash command's output
SHARED = "heliotrope"  # in deven's and in alice's tool inputs
NEAR_SECRET = "cranberry"  # beside a secret in a Bash command


def _secret() -> str:
    return secret_of(RULES_BY_ID["github-pat"])


def _turns(secret: str) -> dict[str, tuple[str, list[Turn]]]:
    edit = {
        "file_path": "viva_store/x.py",
        "old_string": "a = 1",
        "new_string": f"def helper():\n{EDITED} = {SHARED}\n\treturn 2",
    }
    bash = {"command": f"grep -c {COMMANDED} src | sort", "description": "count them"}
    deploy = {"command": f"curl -H 'Authorization: token {secret}' -d {NEAR_SECRET} x.org"}
    return {
        "d-tools": (
            "deven",
            [
                Turn("Fix the helper", "Fixed.", "Edit", edit, "The file has been updated."),
                Turn("Count them", "Counted.", "Bash", bash, f"3\n{OUTPUT} lines done"),
                Turn("Deploy", "Deployed.", "Bash", deploy, "ok"),
            ],
        ),
        "a-tools": (
            "alice",
            [Turn("Look", "Looked.", "Bash", {"command": f"ls {SHARED}"}, "nothing")],
        ),
    }


@pytest.fixture
def tools(ctx: Context, cli_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Two sessions with tool calls (deven's, alice's); native id → session id."""
    monkeypatch.setenv("VIVA_NOW", NOW.isoformat())
    root = tmp_path / "claude"
    ids = {}
    with viva_now(NOW):
        for n, (native, (_member, turns)) in enumerate(_turns(_secret()).items()):
            at = NOW - timedelta(days=3 + n)
            claude_code(root, spec(native, "/work/viva", at, *turns, title="tools at work"))
        import_all(ctx, root)
        for native, (member, _) in _turns(_secret()).items():
            ids[native] = session_of(ctx, native)
            classify(ctx, [ids[native]], member)
    return ids


def recall_json(*args: str) -> list[dict[str, Any]]:
    result = run(["recall", *args, "--json"])
    assert result.code == 0, result.err
    hits: list[dict[str, Any]] = json.loads(result.out)
    return [h for h in hits if h["session_id"] is not None]


def seq_of(ctx: Context, session_id: str, tool: str, kind: str, holding: str) -> int:
    """The message of ``session_id`` with ``tool`` and ``kind`` whose tool fields hold a word."""
    rows = ctx.store.read(
        lambda c: c.execute(
            select(MESSAGE.c.seq, MESSAGE.c.tool_args, MESSAGE.c.tool_result).where(
                MESSAGE.c.session_id == session_id, MESSAGE.c.tool == tool, MESSAGE.c.kind == kind
            )
        ).all()
    )
    (seq,) = [r.seq for r in rows if holding in (r.tool_args or "") + (r.tool_result or "")]
    return int(seq)


def highlighted(hit: dict[str, Any]) -> list[str]:
    return [hit["snippet"][start:end] for start, end in hit["highlights"]]


@pytest.mark.parametrize("order", [[], ["--newest"]], ids=["ranked", "newest"])
def test_a_word_only_in_an_edit_is_found_with_a_snippet_from_the_input(
    ctx: Context, tools: dict[str, str], order: list[str]
) -> None:
    hits = recall_json(EDITED, *order)
    assert [h["session_id"] for h in hits] == [tools["d-tools"]]
    (hit,) = hits
    assert hit["kind"] == "message"
    assert hit["seq"] == seq_of(ctx, tools["d-tools"], "Edit", "tool_use", EDITED)
    assert hit["snippet"].startswith("Edit viva_store/x.py: ")
    assert EDITED in hit["snippet"] and "\\n" not in hit["snippet"]
    assert highlighted(hit) == [EDITED]


def test_a_word_only_in_a_bash_command_is_found(ctx: Context, tools: dict[str, str]) -> None:
    (hit,) = recall_json(COMMANDED)
    assert hit["session_id"] == tools["d-tools"]
    assert hit["seq"] == seq_of(ctx, tools["d-tools"], "Bash", "tool_use", COMMANDED)
    assert hit["snippet"].startswith("Bash ") and f"grep -c {COMMANDED} src" in hit["snippet"]
    assert highlighted(hit) == [COMMANDED]


def test_a_word_only_in_a_tool_output_is_found(ctx: Context, tools: dict[str, str]) -> None:
    (hit,) = recall_json(OUTPUT)
    assert hit["session_id"] == tools["d-tools"]
    assert hit["seq"] == seq_of(ctx, tools["d-tools"], "Bash", "tool_result", OUTPUT)
    assert hit["snippet"].startswith("Bash output: ") and OUTPUT in hit["snippet"]
    assert highlighted(hit) == [OUTPUT]


@pytest.mark.parametrize("order", [[], ["--newest"]], ids=["ranked", "newest"])
def test_a_member_finds_tool_hits_in_its_own_sessions_only(
    ctx: Context, tools: dict[str, str], monkeypatch: pytest.MonkeyPatch, order: list[str]
) -> None:
    assert {h["session_id"] for h in recall_json(SHARED, *order)} == set(tools.values())
    for member, native in (("deven", "d-tools"), ("alice", "a-tools")):
        monkeypatch.setenv("VIVA_GRANT", issue_grant(ctx, member).token)
        assert [h["session_id"] for h in recall_json(SHARED, *order)] == [tools[native]]
    monkeypatch.setenv("VIVA_GRANT", issue_grant(ctx, "alice").token)
    assert recall_json(EDITED, *order) == [] and recall_json(OUTPUT, *order) == []


def test_a_secret_in_a_tool_input_stays_redacted_in_the_snippet(tools: dict[str, str]) -> None:
    secret = _secret()
    (hit,) = recall_json(NEAR_SECRET)
    assert hit["session_id"] == tools["d-tools"]
    assert "[REDACTED:github-pat]" in hit["snippet"] and NEAR_SECRET in hit["snippet"]
    assert survivors(secret, hit["snippet"]) == []
    assert recall_json(secret.split("_", 1)[1]) == []
