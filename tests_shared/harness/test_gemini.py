"""Gemini CLI reader: JSON and JSONL fixtures, $set/$rewindTo, layout, resume, robustness."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.harness.support import parse_lines, read_whole
from tests_shared.conftest import SHARED
from viva_store.importing.harness.gemini.reader import READER as gemini
from viva_store.importing.harness.model import (
    Message,
    ParsedChunk,
    Problem,
    Record,
    SourceFile,
    Usage,
)

GEMINI = (SHARED / "gemini").resolve()
JSONL = GEMINI / "jsonl_v040.jsonl"


def records_of(path: Path) -> list[Record]:
    """Decode a JSONL file into records (objects only), tracking byte offsets."""
    out: list[Record] = []
    offset = 0
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                obj = None
            if isinstance(obj, dict):
                out.append(Record(number, offset, obj))
            offset += len(line)
    return out


def parse_jsonl(
    path: Path, records: list[Record] | None = None, state: dict[str, Any] | None = None
) -> list[ParsedChunk]:
    recs = records_of(path) if records is None else records
    return parse_lines(gemini, path, recs, state)


def read_json(path: Path) -> tuple[list[ParsedChunk], list[Problem]]:
    return read_whole(gemini, SourceFile("gemini", path, "json"))


def messages(chunks: list[ParsedChunk]) -> list[Message]:
    return [m for c in chunks for m in c.messages]


def usage(chunks: list[ParsedChunk]) -> list[Usage]:
    return [u for c in chunks for u in c.usage]


def totals(items: list[Usage]) -> tuple[int, int, int, int]:
    return (
        sum(u.input_tokens for u in items),
        sum(u.output_tokens for u in items),
        sum(u.cache_read_tokens for u in items),
        sum(u.reasoning_tokens for u in items),
    )


def first_wins(chunks: list[ParsedChunk]) -> tuple[dict[str, Message], dict[str, Usage]]:
    """What the importer keeps: the first message / usage stored under each key."""
    kept: dict[str, Message] = {}
    spent: dict[str, Usage] = {}
    for chunk in chunks:
        for message in chunk.messages:
            kept.setdefault(message.key, message)
        for item in chunk.usage:
            spent.setdefault(item.usage_key, item)
    return kept, spent


# -- JSON fixtures ------------------------------------------------------------------

JSON_FACTS = {
    # file: (session id, project, title (the summary, else the first prompt), models, roles,
    # usage totals)
    "small.json": (
        "session-2026-01-16T18-34-3739ef95",
        "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9",
        "Hello", {"gemini-3-flash-preview"}, ["user", "assistant", "assistant"], (10, 5, 0, 0),
    ),
    "large.json": (
        "session-2025-12-16T23-47-b4f17607",
        "205016864bd110904e9ad8314192344ab398d043e779da15bedbb9ee9be00da2",
        "Run a command", {"gemini-3-flash-preview"},
        ["user", "assistant", "tool", "tool", "system", "assistant", "user", "assistant"],
        (100, 10, 0, 0),
    ),
    "schema_drift.json": (
        "schema_drift", None, "Redacted session summary", {"gmini-pro"},
        ["user", "assistant"], (0, 0, 0, 0),
    ),
    "standard_session.json": (
        "sess-uuid-1", "abc123def456", "Fix the login bug", set(),
        ["user", "assistant", "user", "assistant"], (0, 0, 0, 0),
    ),
    "system_messages.json": (
        "sess-uuid-3", "abc123def456", None, set(), ["system", "system", "system"], (0, 0, 0, 0),
    ),
    "thinking_only.json": (
        "sess-uuid-thinking", "abc123def456", "Explain how this works", {"gemini-2.5-pro"},
        ["user", "assistant", "assistant"], (0, 0, 0, 0),
    ),
    "tool_calls.json": (
        "sess-uuid-2", "abc123def456", "Read this file", {"gemini-2.5-pro"},
        ["user", "assistant", "assistant", "tool"], (0, 0, 0, 0),
    ),
    "tmp/hash123/chats/session-test.json": (
        "test-session-1", "hash123", "Gemini hello", set(), ["user", "assistant"], (0, 0, 0, 0),
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(JSON_FACTS))
def test_json_fixture_facts(name: str) -> None:
    sid, project, title, models, roles, tokens = JSON_FACTS[name]
    chunks, problems = read_json(GEMINI / name)
    assert problems == []
    assert len(chunks) == 1
    meta = chunks[0].meta
    assert meta.native_id == sid
    assert meta.project == project
    assert meta.cwd is None
    assert meta.title == title
    assert meta.models == models
    assert meta.parent_native_id is None
    assert [m.role for m in chunks[0].messages] == roles
    assert totals(usage(chunks)) == tokens
    keys = [m.key for m in chunks[0].messages]
    assert len(set(keys)) == len(keys)


def test_json_details() -> None:
    chunks, _ = read_json(GEMINI / "large.json")
    by_key = {m.key: m for m in messages(chunks)}
    assert by_key["m2:thinking"].kind == "thinking"
    tool = by_key["m2:tool:run_shell_command-1"]
    assert tool.tool == "run_shell_command"
    assert tool.tool_input == "printf 'line1\\nline2\\nline3\\n'"
    assert tool.tool_result is not None and tool.tool_result.startswith("Command: printf")
    assert by_key["m3"].kind == "info" and by_key["m3"].text == "Request cancelled."
    assert by_key["m4"].text == "Captured multiline output."  # `parts` instead of `content`
    meta = chunks[0].meta
    assert (
        meta.started_at is not None and meta.started_at.isoformat() == "2025-12-16T23:47:00+00:00"
    )
    assert meta.ended_at is not None and meta.ended_at.isoformat() == "2025-12-16T23:48:00+00:00"
    assert meta.entrypoint == "chat"

    chunks, _ = read_json(GEMINI / "schema_drift.json")
    first = chunks[0].messages[0]
    assert first.text == "Describe this image:\n\n[image]"
    assert "AAAA" not in repr(chunks)

    chunks, _ = read_json(GEMINI / "thinking_only.json")
    thinking = chunks[0].messages[1]
    assert thinking.text.splitlines() == [
        "**Understanding request** The user wants an explanation of the system.",
        "**Planning response** I should describe the config loading flow.",
    ]
    assert not thinking.synthetic

    chunks, _ = read_json(GEMINI / "system_messages.json")
    assert [m.kind for m in chunks[0].messages] == ["info", "error", "warning"]


# -- JSONL fixture and features -----------------------------------------------------


def test_jsonl_fixture() -> None:
    chunks = parse_jsonl(JSONL)
    assert len(chunks) == 1
    meta = chunks[0].meta
    assert meta.native_id == "gemini_stage0_jsonl"
    assert meta.project == "0b7dfb1274ee51b336813b17f2ddab1f56b6591f723e7314126bbd502c69e9c9"
    assert meta.models == {"gemini-3-flash-preview"}
    assert meta.entrypoint == "main"
    assert meta.started_at is not None and meta.started_at.isoformat().startswith(
        "2026-04-29T21:39:22"
    )
    msgs = chunks[0].messages
    assert [(m.key, m.role) for m in msgs] == [
        ("g-user-1", "user"),
        ("g-assistant-1:tool:run_shell_command_stage0", "tool"),
        ("g-assistant-2", "assistant"),
    ]
    assert msgs[1].tool_input == "ls -F"
    assert msgs[1].tool_result == "Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345"
    items = usage(chunks)
    # input excludes the cached prompt: 11855 + (12069 - 11502)
    assert totals(items) == (12422, 228, 11502, 0)
    assert sorted(u.usage_key for u in items) == [
        "gemini:gemini_stage0_jsonl:g-assistant-1",
        "gemini:gemini_stage0_jsonl:g-assistant-2",
    ]


def test_resume_equals_single_pass_fixture() -> None:
    records = records_of(JSONL)
    whole = parse_jsonl(JSONL, records)
    for split in range(len(records) + 1):
        state: dict[str, Any] = {}
        first = parse_jsonl(JSONL, records[:split], state)
        state = orjson.loads(orjson.dumps(state))
        rest = parse_jsonl(JSONL, records[split:], state)
        assert messages(first + rest) == messages(whole), split
        assert usage(first + rest) == usage(whole), split
        assert {c.meta.native_id for c in first + rest} == {"gemini_stage0_jsonl"}


# -- layout: project, cwd, sub-agents, discovery ---------------------------------------


# -- robustness ---------------------------------------------------------------------
