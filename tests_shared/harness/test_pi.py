"""pi reader: fixture facts, fork rule, discovery, resume and robustness."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.harness.support import parse_lines
from tests_shared.conftest import SHARED
from viva_store.importing.harness.model import Message, ParsedChunk, Record, Usage
from viva_store.importing.harness.pi.reader import READER as pi

PI = (SHARED / "pi").resolve()
V3_SMALL = PI / "agent-sessions" / "small.jsonl"
V1_SYNTHETIC = (
    PI
    / "sessions"
    / "--test-project--"
    / "2024-01-15T10-30-00-000Z_abc12345-1234-5678-9abc-def012345678.jsonl"
)
V1_LARGE = PI / "large-session.jsonl"
V1_BRANCH = PI / "before-compaction.jsonl"
ALL_JSONL = [V3_SMALL, V1_SYNTHETIC, V1_LARGE, V1_BRANCH]


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


def lines_to_records(lines: list[dict[str, Any]]) -> list[Record]:
    """Records for in-memory lines (offsets are nominal: 100 bytes a line)."""
    return [Record(number, (number - 1) * 100, obj) for number, obj in enumerate(lines, 1)]


def parse(
    path: Path, records: list[Record] | None = None, state: dict[str, Any] | None = None
) -> list[ParsedChunk]:
    return parse_lines(pi, path, records_of(path) if records is None else records, state)


def messages(chunks: list[ParsedChunk]) -> list[Message]:
    return [m for c in chunks for m in c.messages]


def usage(chunks: list[ParsedChunk]) -> list[Usage]:
    return [u for c in chunks for u in c.usage]


def merged(chunks: list[ParsedChunk]) -> dict[str, Any]:
    """Merge chunk metadata the way the importer does."""
    starts = [c.meta.started_at for c in chunks if c.meta.started_at]
    ends = [c.meta.ended_at for c in chunks if c.meta.ended_at]
    titled = [c.meta for c in chunks if c.meta.title]
    best = max(titled, key=lambda m: m.title_rank) if titled else None
    return {
        "ids": {c.meta.native_id for c in chunks},
        "parent": {c.meta.parent_native_id for c in chunks},
        "relation": {c.meta.relation for c in chunks},
        "cwd": {c.meta.cwd for c in chunks},
        "models": set().union(*(c.meta.models for c in chunks)) if chunks else set(),
        "start": min(starts) if starts else None,
        "end": max(ends) if ends else None,
        "title": best.title if best else None,
    }


def token_totals(items: list[Usage]) -> tuple[int, int, int, int]:
    return (
        sum(u.input_tokens for u in items),
        sum(u.output_tokens for u in items),
        sum(u.cache_read_tokens for u in items),
        sum(u.cache_write_tokens for u in items),
    )


# -- fixtures ---------------------------------------------------------------------


def test_v3_capture() -> None:
    chunks = parse(V3_SMALL)
    meta = merged(chunks)
    assert meta["ids"] == {"019e19b4-eb48-746a-aa6b-8dfcfa37954b"}
    assert meta["cwd"] == {"/tmp/as-agent-fixture/project"}
    assert meta["models"] == {"pi-fixture-model"}
    assert meta["parent"] == {None}
    # No session name: the first prompt, folded to one line, is the title.
    assert meta["title"] == "Read hello.py and summarize what it prints without editing files."
    assert meta["start"].isoformat() == "2026-05-12T01:02:27.657000+00:00"
    assert meta["end"].isoformat() == "2026-05-12T01:02:45.843000+00:00"
    msgs = messages(chunks)
    assert [m.role for m in msgs] == [
        "event", "event", "user", "assistant", "summary", "user", "assistant", "summary"
    ]  # fmt: skip
    assert [m.key for m in msgs][:4] == ["f7c7091e", "3a59c5dd", "30c6a75f", "22a2720e"]
    assert msgs[2].text == "Read hello.py and summarize what it prints without editing files."
    assert msgs[3].text == "hello.py prints a fixture greeting."
    assert msgs[3].model == "pi-fixture-model"
    summary = msgs[4]
    assert summary.synthetic and summary.kind == "compaction"
    assert summary.text == "hello.py prints a fixture greeting."
    assert msgs[0].kind == "model_change" and msgs[0].raw is not None
    assert msgs[0].raw["modelId"] == "pi-fixture-model"
    items = usage(chunks)
    assert token_totals(items) == (24, 14, 0, 0)
    assert len({u.usage_key for u in items}) == 2


def test_v1_synthetic_in_real_layout() -> None:
    chunks = parse(V1_SYNTHETIC)
    meta = merged(chunks)
    assert meta["ids"] == {"abc12345-1234-5678-9abc-def012345678"}
    assert meta["cwd"] == {"/Users/test/project"}
    assert meta["models"] == {"claude-sonnet-4-20250514", "claude-opus-4-20250514"}
    assert {c.meta.project for c in chunks} == {"--test-project--"}
    msgs = messages(chunks)
    assert Counter(m.role for m in msgs) == Counter(
        {"user": 2, "assistant": 4, "tool": 1, "event": 2}
    )
    # v1 entries have no ids: file name + byte offset.
    assert (
        msgs[0].key == f"{V1_SYNTHETIC.name}:{len(V1_SYNTHETIC.read_bytes().splitlines()[0]) + 1}"
    )
    thinking = [m for m in msgs if m.kind == "thinking"]
    assert thinking and thinking[0].text.startswith("The user wants to understand Rust lifetimes")
    assert msgs[3].text == "Can you show me a tool call example?"  # string content
    call = next(m for m in msgs if m.kind == "tool_call")
    assert call.tool == "read"
    assert call.tool_input is not None and "/src/main.rs" in call.tool_input
    result = next(m for m in msgs if m.role == "tool")
    assert (
        result.tool == "read"
        and result.tool_result == 'fn main() {\n    println!("Hello, world!");\n}'
    )
    assert token_totals(usage(chunks)) == (110, 180, 0, 0)


def test_v1_real_large_session() -> None:
    chunks = parse(V1_LARGE)
    meta = merged(chunks)
    assert meta["ids"] == {"d703a1a9-1b7b-4fb1-b512-c9738b1fe617"}
    assert meta["cwd"] == {"/Users/badlogic/workspaces/pi-mono"}
    assert meta["models"] == {"claude-sonnet-4-5", "gpt-5.1-codex"}
    # the first message predates the (lazily written) v1 header
    assert meta["start"].isoformat() == "2025-11-20T23:33:01.550000+00:00"
    assert meta["end"].isoformat() == "2025-11-21T02:14:02.980000+00:00"
    msgs = messages(chunks)
    kinds = Counter((m.role, m.kind) for m in msgs)
    assert kinds[("user", "")] == 88
    assert kinds[("tool", "tool_result")] + kinds[("tool", "tool_error")] == 373
    assert kinds[("event", "thinking_level_change")] == 103
    assert kinds[("event", "model_change")] == 1
    assert kinds[("assistant", "tool_call")] == 391
    assert len({m.key for m in msgs}) == len(msgs)
    assert any(m.role == "assistant" and m.text.startswith("[aborted]") for m in msgs)
    items = usage(chunks)
    assert len(items) == 439
    assert token_totals(items) == (1049, 83156, 43229469, 4296232)
    assert len({u.usage_key for u in items}) == len(items)


def test_v1_branch_does_not_reemit_copied_history() -> None:
    state: dict[str, Any] = {}
    chunks = parse(V1_BRANCH, state=state)
    meta = merged(chunks)
    assert meta["ids"] == {"ffae836b-9420-4060-ac13-7745215f90ff"}
    assert meta["parent"] == {"d97339c6-6c10-4827-846b-9ff1d9c3dc37"}
    assert meta["relation"] == {"branch"}
    assert meta["cwd"] == {"/Users/badlogic/workspaces/pi-mono"}
    # 1001 entries predate the header: the parent's history, copied. One entry is its own.
    assert state["copied"] == 1001
    msgs = messages(chunks)
    assert [(m.role, m.kind) for m in msgs] == [("event", "thinking_level_change")]
    assert usage(chunks) == []
    assert meta["models"] == set()
    assert meta["start"].isoformat() == "2025-12-09T00:53:29.825000+00:00"


def test_single_assistant_message_fixture() -> None:
    path = PI / "assistant-message-with-thinking-code.json"
    payload = orjson.loads(path.read_bytes())
    header = {"type": "session", "version": 3, "id": "s1", "timestamp": "2026-01-01T00:00:00Z"}
    entry = {"type": "message", "id": "e1", "timestamp": "2026-01-01T00:00:01Z", "message": payload}
    chunks = parse(path, lines_to_records([header, entry]))
    msgs = messages(chunks)
    assert msgs[0].kind == "thinking"
    assert msgs[0].text.startswith("So `findModel` just looks up a model")
    assert any(m.key == "e1" and m.role == "assistant" and m.text for m in msgs)
    # the bare payload as a record of its own is an unknown type, kept as an event
    bare = messages(parse(path, lines_to_records([header, payload])))
    assert bare[0].role == "event" and bare[0].raw == payload


@pytest.mark.parametrize("path", ALL_JSONL, ids=lambda p: p.name[:24])
def test_each_file_is_one_session(path: Path) -> None:
    assert len(merged(parse(path))["ids"]) == 1


# -- v3 features (synthetic lines) ------------------------------------------------


# -- discovery and roots ------------------------------------------------------


# -- resume and robustness ----------------------------------------------------------


@pytest.mark.parametrize("path", ALL_JSONL, ids=lambda p: p.name[:24])
def test_resume_equals_single_pass(path: Path) -> None:
    records = records_of(path)
    whole_state: dict[str, Any] = {}
    whole = parse(path, records, whole_state)
    for split in sorted({0, 1, 2, len(records) // 2, len(records) - 1, len(records)}):
        state: dict[str, Any] = {}
        first = parse(path, records[:split], state)
        state = orjson.loads(orjson.dumps(state))  # the importer persists it as JSON
        rest = parse(path, records[split:], state)
        both = first + rest
        assert messages(both) == messages(whole), split
        assert usage(both) == usage(whole), split
        assert merged(both) == merged(whole), split
        assert state == whole_state
