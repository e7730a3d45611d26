"""Real Claude Code and Codex transcripts written by others come back whole: every tool
call's name and whole input, in source order, for every session."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.store.test_import import run
from viva_store.importing.prepare import session_id
from viva_store.sessions.service import session_messages
from viva_store.store import Context

REAL = Path(__file__).resolve().parents[3] / "shared" / "fixtures" / "real-sessions"


def claude_calls(path: Path) -> list[tuple[str, Any]]:
    calls: list[tuple[str, Any]] = []
    for text in path.read_text("utf-8").splitlines():
        obj = json.loads(text)
        content = (obj.get("message") or {}).get("content")
        if obj.get("type") == "assistant" and isinstance(content, list):
            calls += [(b["name"], b["input"]) for b in content if b.get("type") == "tool_use"]
    return calls


def codex_calls(path: Path) -> list[tuple[str, Any]]:
    calls: list[tuple[str, Any]] = []
    for text in path.read_text("utf-8").splitlines():
        obj = json.loads(text)
        item = obj.get("payload") or {}
        if obj.get("type") != "response_item":
            continue
        if item.get("type") == "function_call":
            calls.append((item["name"], json.loads(item["arguments"])))
        elif item.get("type") == "custom_tool_call":
            calls.append((item["name"], item["input"]))
    return calls


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_every_real_tool_call_is_stored_whole_in_order(
    ctx: Context, tmp_path: Path, harness: str
) -> None:
    folder = "claude-code/projects" if harness == "claude-code" else "codex"
    root = REAL / folder
    summary = run(ctx, **{harness: root})
    assert summary.sessions_new > 0
    checked = 0
    for path in sorted(root.rglob("*.jsonl")):
        expected = claude_calls(path) if harness == "claude-code" else codex_calls(path)
        native = path.stem if harness == "claude-code" else path.stem[-36:]
        stored = [
            (m.tool, m.tool_args)
            for m in session_messages(ctx, session_id(harness, native))
            if m.role == "assistant" and m.tool and m.kind != "tool_search_call"
        ]
        assert stored == expected, path.name
        checked += len(expected)
    assert checked > 100
