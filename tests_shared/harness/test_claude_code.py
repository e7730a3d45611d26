"""Claude Code reader: fixture facts, sub-agent layouts, usage dedupe, resume, robustness."""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.harness.support import parse_lines
from tests_shared.conftest import SHARED
from viva_store.importing.harness.claude_code.reader import READER as claude_code
from viva_store.importing.harness.common import TITLE_RANK_CUSTOM, TITLE_RANK_SUMMARY
from viva_store.importing.harness.model import Message, ParsedChunk, Record, Usage

CC = (SHARED / "claude-code").resolve()
INIT = CC / "1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl"
SIDECHAINS = CC / "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"
BIG = CC / "fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"
LAYOUT = CC / "subagent-layout"
PARENT_ID = "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"
CHILD = LAYOUT / PARENT_ID / "subagents" / "agent-a0ad4f44468bdf20d.jsonl"
ALL_FILES = sorted(CC.rglob("*.jsonl")) if CC.is_dir() else []


def records_of(path: Path) -> list[Record]:
    """Decode a JSONL fixture line by line (undecodable lines skipped), with byte offsets."""
    out: list[Record] = []
    offset = 0
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                with contextlib.suppress(orjson.JSONDecodeError):
                    out.append(Record(number, offset, orjson.loads(line)))
            offset += len(line)
    return out


def parse(
    path: Path, records: list[Record] | None = None, state: dict[str, Any] | None = None
) -> list[ParsedChunk]:
    recs = records_of(path) if records is None else records
    return parse_lines(claude_code, path, recs, state)


def messages(chunks: list[ParsedChunk]) -> list[Message]:
    return [m for c in chunks for m in c.messages]


def usage(chunks: list[ParsedChunk]) -> list[Usage]:
    return [u for c in chunks for u in c.usage]


def totals(items: list[Usage]) -> tuple[int, int, int, int]:
    return (
        sum(u.input_tokens for u in items),
        sum(u.output_tokens for u in items),
        sum(u.cache_read_tokens for u in items),
        sum(u.cache_write_tokens for u in items),
    )


def merged(chunks: list[ParsedChunk]) -> dict[str, Any]:
    """Session metadata merged as the importer does: first value per field, best title."""
    ids = {c.meta.native_id for c in chunks}
    assert len(ids) == 1, ids

    def first(field: str) -> Any:
        return next((getattr(c.meta, field) for c in chunks if getattr(c.meta, field)), None)

    title, rank = None, 0
    for chunk in chunks:
        if chunk.meta.title and chunk.meta.title_rank >= rank:
            title, rank = chunk.meta.title, chunk.meta.title_rank
    starts = [c.meta.started_at for c in chunks if c.meta.started_at]
    ends = [c.meta.ended_at for c in chunks if c.meta.ended_at]
    return {
        "id": chunks[0].meta.native_id,
        "parent": first("parent_native_id"),
        "relation": first("relation"),
        "cwd": first("cwd"),
        "branch": first("git_branch"),
        "entrypoint": first("entrypoint"),
        "originator": first("originator"),
        "models": set().union(*(c.meta.models for c in chunks)),
        "title": title,
        "rank": rank,
        "start": min(starts) if starts else None,
        "end": max(ends) if ends else None,
    }


# -- fixture facts -------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(CC)))
def test_every_fixture_is_one_session(path: Path) -> None:
    chunks = parse(path)
    assert chunks and len({c.meta.native_id for c in chunks}) == 1
    for m in messages(chunks):
        assert m.role in {"user", "assistant", "system", "tool", "summary", "event"}
        assert m.tool_input is None or ("\n" not in m.tool_input and len(m.tool_input) <= 200)
    assert "<synthetic>" not in merged(chunks)["models"]


def test_init_session_streamed_usage_counts_once() -> None:
    chunks = parse(INIT)
    meta = merged(chunks)
    assert meta["id"] == "1af7fc5e-8455-4414-9ccd-011d40f70b2a"
    assert meta["cwd"] == "/path/to/Demo"
    assert meta["originator"] == "claude-code/1.0.98"
    assert meta["models"] == {"claude-sonnet-4-20250514"}
    # Only `/init` was typed: the slash command titles the session below a real prompt.
    assert (meta["title"], meta["rank"]) == ("/init", 5)
    msgs = messages(chunks)
    assert len(msgs) == 29
    users = [m for m in msgs if m.role == "user"]
    assert len(users) == 2 and all(m.synthetic for m in users)  # command markup + isMeta
    tools = [m for m in msgs if m.role == "tool"]
    assert len(tools) == 12 and all(m.tool for m in tools)  # paired by tool_use_id
    # 15 assistant lines, 7 responses: output_tokens grows along each stream; the max counts.
    items = usage(chunks)
    assert len(items) == len({u.usage_key for u in items}) == 7
    assert totals(items) == (93, 953, 103219, 12698)
    naive = sum(
        r.obj["message"]["usage"]["output_tokens"]
        for r in records_of(INIT)
        if r.obj.get("type") == "assistant"
    )
    assert naive > 953


def test_inline_sidechains_stay_in_parent() -> None:
    chunks = parse(SIDECHAINS)
    meta = merged(chunks)
    assert meta["id"] == SIDECHAINS.stem and meta["parent"] is None
    assert meta["branch"] == "main"
    msgs = messages(chunks)
    side = Counter(m.role for m in msgs if m.sidechain)
    assert side == {"assistant": 12, "tool": 8, "user": 2}
    assert meta["title"].startswith("/orchestrator @CLAUDE.md")
    assert totals(usage(chunks)) == (129, 3629, 324259, 47747)


def test_large_real_session_with_summary_title() -> None:
    chunks = parse(BIG)
    meta = merged(chunks)
    assert (meta["title"], meta["rank"]) == (
        "Empty Repo Setup: CLAUDE.md Foundation Created",
        TITLE_RANK_SUMMARY,
    )
    msgs = messages(chunks)
    assert len(msgs) == 438
    assert sum(m.sidechain for m in msgs) == 405
    assert [m.text for m in msgs if m.role == "user" and not m.synthetic and not m.sidechain] == [
        "Thanks! Please update CLAUDE.md for current changes"
    ]
    items = usage(chunks)
    assert len(items) == 170
    assert totals(items) == (818, 51933, 3647854, 137976)
    assert str(meta["start"]) == "2025-09-03 00:52:31.217000+00:00"
    assert str(meta["end"]) == "2025-09-03 01:02:03.665000+00:00"


def test_subagents_folder_layout_links_parent() -> None:
    parent = merged(parse(LAYOUT / f"{PARENT_ID}.jsonl"))
    assert parent["id"] == PARENT_ID and parent["relation"] is None
    assert parent["title"] == "Delegate a repo search to a subagent"
    assert (parent["entrypoint"], parent["branch"], parent["cwd"]) == ("cli", "main", "/tmp")
    chunks = parse(CHILD)
    child = merged(chunks)
    assert child["id"] == "agent-a0ad4f44468bdf20d"
    assert (child["parent"], child["relation"]) == (PARENT_ID, "subagent")
    msgs = messages(chunks)
    assert not any(m.sidechain for m in msgs)  # the whole session is the sub-agent
    call = next(m for m in msgs if m.tool)
    assert (call.tool, call.tool_input) == ("bash", "grep -rn TODO")
    result = next(m for m in msgs if m.role == "tool")
    assert result.tool_result == "a.txt:1: TODO fix"
    assert [m.kind for m in msgs if m.role == "event"] == ["attachment"]


@pytest.mark.parametrize(
    ("name", "parent", "title", "models"),
    [
        (
            "agent-test-hash-123",
            "5c0375b4-57a5-4f26-b12d-d022ee4e51b7",
            "Run the test suite",
            {"claude-sonnet-4-20250514"},
        ),
        ("agent-test123", "test-session", "Discussed matrix completion", {"claude-opus-4"}),
    ],
)
def test_flat_agent_files(name: str, parent: str, title: str, models: set[str]) -> None:
    chunks = parse(CC / f"{name}.jsonl")
    meta = merged(chunks)
    assert (meta["id"], meta["parent"], meta["relation"]) == (name, parent, "subagent")
    assert meta["title"] == title and meta["models"] == models
    assert not any(m.sidechain for m in messages(chunks))


def test_flat_agent_read_tool_summary() -> None:
    msgs = messages(parse(CC / "agent-test123.jsonl"))
    call = next(m for m in msgs if m.tool)
    assert (call.tool, call.tool_input) == ("Read", "/test/file.rs")
    assert call.key == "msg-002:1"  # second message of line msg-002 (text first)


def test_catalog_titles_models_and_kinds() -> None:
    chunks = parse(CC / "small.jsonl")
    meta = merged(chunks)
    assert meta["id"] == "ses_stage0_small"
    assert (meta["title"], meta["rank"]) == ("Stage0 small fixture", TITLE_RANK_CUSTOM)
    assert meta["cwd"] == "/tmp"  # first value, not a later "[trimmed for fixture]"
    assert meta["models"] == {
        "claude-opus-5",
        "claude-opus-4-8",
        "claude-sonnet-5",
        "claude-fable-5",
    }
    msgs = messages(chunks)
    api_error = [m for m in msgs if m.role == "assistant" and m.synthetic]
    assert len(api_error) == 1 and api_error[0].model is None
    kinds = Counter(m.kind for m in msgs if m.role == "event")
    for kind in ("file-history-snapshot", "queue-operation", "progress", "custom-title"):
        assert kinds[kind] == 1
    assert kinds["attachment"] == 38
    assert all(m.raw is not None for m in msgs if m.role == "event")
    system = Counter(m.kind for m in msgs if m.role == "system")
    assert system["compact_boundary"] == 2 and system["api_error"] == 4
    summary = next(m for m in msgs if m.kind == "compact_summary")
    assert (summary.role, summary.synthetic, summary.text) == (
        "summary",
        True,
        "Summary of prior context.",
    )
    assert totals(usage(chunks)) == (10, 5, 0, 0)


def test_rewind_and_compaction_dag() -> None:
    chunks = parse(CC / "dag_compact_after_rewind.jsonl")
    meta = merged(chunks)
    assert (meta["id"], meta["title"], meta["cwd"]) == ("s1", "Start", "/tmp")
    msgs = messages(chunks)
    assert [m.kind for m in msgs if m.role == "system"] == ["compact_boundary"]
    assert sum(m.role == "summary" and m.synthetic for m in msgs) == 1
    assert totals(usage(chunks)) == (50, 25, 0, 0)


def test_edge_cases_odd_lines_become_events() -> None:
    chunks = parse(CC / "edge_cases.jsonl")
    meta = merged(chunks)
    # One line carries another sessionId; the file is still one session.
    assert meta["id"] == "edge_cases"
    assert meta["models"] == {"claude-3-sonnet-20240229", "claude-sonnet-4"}
    msgs = messages(chunks)
    events = [m for m in msgs if m.role == "event"]
    assert {m.kind for m in events} >= {"user", "non-object", "unknown"}
    odd = next(m for m in events if m.raw and m.raw.get("message") == "error")
    assert odd.key.startswith("edge_cases.jsonl:")  # an odd line never claims the uuid
    synthetic = [m.text[:20] for m in msgs if m.role == "user" and m.synthetic]
    assert synthetic == ["Caveat: The messages", "<command-name>test-c", "<local-command-stdou"]
    errors = [m for m in msgs if m.kind == "tool_error"]
    assert len(errors) == 1 and errors[0].tool == "FailingTool"


def test_schema_drift_legacy_lines() -> None:
    chunks = parse(CC / "schema_drift.jsonl")
    msgs = messages(chunks)
    call = next(m for m in msgs if m.kind == "tool_use")
    assert (call.role, call.tool, call.tool_input) == ("assistant", "bash", "cat README.md")
    result = next(m for m in msgs if m.role == "tool")
    assert result.tool_result == "# Title\n\nBody\n"
    assert any(m.text == "Read README and extracted the title." for m in msgs)
    notification = next(m for m in msgs if m.text == "List files")
    assert notification.synthetic  # origin.kind = task-notification
    assert merged(chunks)["title"] == "Open README"


def test_usage_only_lines_and_other_ids() -> None:
    chunks = parse(CC / "ccusage" / "projects" / "project-alpha" / "session-alpha" / "chat.jsonl")
    meta = merged(chunks)
    assert meta["id"] == "session-alpha" and not messages(chunks)
    assert meta["models"] == {"claude-sonnet-4-20250514", "claude-opus-4-20250514"}
    assert totals(usage(chunks)) == (600, 250, 70, 75)
    expected = {
        "large.jsonl": "ses_stage0_large",
        "representative_messages.jsonl": "test_session",
        "todowrite_examples.jsonl": "todowrite_session",
        "session_b.jsonl": "session_b",
        "sidechain_integrated.jsonl": "88a8d761-7b9a-4bf1-a8ca-c1febe6bf358",
    }
    for name, sid in expected.items():
        assert merged(parse(CC / name))["id"] == sid


def test_thinking_and_tool_blocks_split_into_messages() -> None:
    msgs = messages(parse(CC / "large.jsonl"))
    first = [m for m in msgs if m.role == "assistant"][:3]
    assert [m.kind for m in first] == ["thinking", "text", "tool_use"]
    assert [m.key.count(":") for m in first] == [0, 1, 1]


# -- discovery and roots -----------------------------------------------------------


def test_discover_fixture_tree() -> None:
    found = [s.path for s in claude_code.discover(CC)]
    assert sorted(found) == ALL_FILES and len(found) == 17
    assert found.index(LAYOUT / f"{PARENT_ID}.jsonl") < found.index(CHILD)
    assert all(s.harness == "claude-code" and s.kind == "jsonl" for s in claude_code.discover(CC))


# -- resume ----------------------------------------------------------------------


def fingerprint(m: Message) -> tuple[Any, ...]:
    return (m.key, m.role, m.text, m.at, m.tool, m.tool_input, m.tool_result, m.sidechain,
            m.synthetic, m.model, m.kind)  # fmt: skip


def usage_by_base(items: list[Usage]) -> dict[str, tuple[int, ...]]:
    """Usage summed per key, with the ``#n`` growth entries folded into their base key."""
    out: dict[str, tuple[int, ...]] = {}
    for u in items:
        base = u.usage_key.split("#")[0]
        figures = (u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens)
        old = out.get(base, (0, 0, 0, 0))
        out[base] = tuple(a + b for a, b in zip(old, figures, strict=True))
    return out


def split_points(path: Path, records: list[Record]) -> list[int]:
    # A main file whose stem is no UUID takes its id from the first `sessionId`:
    # a split must come after that line (real files are named by their UUID).
    first = next((i for i, r in enumerate(records) if r.obj.get("sessionId")), 0)
    points = {1, 2, 3, len(records) // 2, len(records) - 1}
    return sorted(p for p in points if first < p < len(records))


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(CC)))
def test_resume_equals_single_pass(path: Path) -> None:
    records = records_of(path)
    whole = parse(path, records)
    for point in split_points(path, records):
        state: dict[str, Any] = {}
        first = parse(path, records[:point], state)
        state = orjson.loads(orjson.dumps(state))  # the importer persists it as JSON
        rest = parse(path, records[point:], state)
        both = first + rest
        assert [fingerprint(m) for m in messages(both)] == [fingerprint(m) for m in messages(whole)]
        assert usage_by_base(usage(both)) == usage_by_base(usage(whole))
        assert merged(both) == merged(whole)


def test_stream_split_across_imports_counts_growth_only() -> None:
    records = records_of(INIT)
    # The first response streamed over several lines whose output_tokens grow.
    outputs: dict[str, list[tuple[int, int]]] = {}
    for index, r in enumerate(records):
        msg = r.obj.get("message", {})
        if r.obj.get("type") == "assistant":
            key = f"{msg['id']}:{r.obj['requestId']}"
            outputs.setdefault(key, []).append((index, msg["usage"]["output_tokens"]))
    stream, lines = next((k, v) for k, v in outputs.items() if v[0][1] < v[-1][1])
    cut, first_output = lines[0]
    state: dict[str, Any] = {}
    head = usage(parse(INIT, records[: cut + 1], state))
    tail = usage(parse(INIT, records[cut + 1 :], state))
    assert [u.output_tokens for u in head if u.usage_key == stream] == [first_output]
    grown = [u.output_tokens for u in tail if u.usage_key == f"{stream}#1"]
    assert grown == [lines[-1][1] - first_output]
    assert totals(head + tail) == totals(usage(parse(INIT)))


# -- robustness --------------------------------------------------------------------
