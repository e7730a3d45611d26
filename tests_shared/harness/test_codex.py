"""Codex reader: fixture facts, three shapes, cumulative tokens, replay rule, resume, robustness."""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.harness.support import parse_lines
from tests_shared.conftest import SHARED
from viva_store.importing.harness.codex.reader import READER as codex
from viva_store.importing.harness.common import TITLE_RANK_CUSTOM, TITLE_RANK_FIRST_PROMPT
from viva_store.importing.harness.model import Message, ParsedChunk, Record, Usage

CX = (SHARED / "codex").resolve()
MODERN = (
    CX
    / "sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
)
PRE_ENVELOPE = CX / "sessions" / "rollout-44444444-4444-4444-8444-444444444444.jsonl"
ARCHIVED = CX / "archived_sessions" / "rollout-55555555-5555-4555-8555-555555555555.jsonl"
ALL_FILES = sorted(CX.rglob("*.jsonl")) if CX.is_dir() else []


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
    kind = "jsonl.zst" if path.name.endswith(".zst") else "jsonl"
    return parse_lines(codex, path, recs, state, kind)


def messages(chunks: list[ParsedChunk]) -> list[Message]:
    return [m for c in chunks for m in c.messages]


def usage(chunks: list[ParsedChunk]) -> list[Usage]:
    return [u for c in chunks for u in c.usage]


def totals(items: list[Usage]) -> tuple[int, int, int, int]:
    """(uncached input, cached input, output, reasoning) summed."""
    return (
        sum(u.input_tokens for u in items),
        sum(u.cache_read_tokens for u in items),
        sum(u.output_tokens for u in items),
        sum(u.reasoning_tokens for u in items),
    )


def merged(chunks: list[ParsedChunk]) -> dict[str, Any]:
    """Session metadata merged as the importer does: first value per field, best title."""
    assert len({c.meta.native_id for c in chunks}) == 1

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


def texts(chunks: list[ParsedChunk], role: str) -> list[str]:
    return [m.text for m in messages(chunks) if m.role == role and not m.synthetic and m.text]


# -- fixture facts -------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(CX)))
def test_every_fixture_is_one_session_without_opaque_blobs(path: Path) -> None:
    chunks = parse(path)
    assert chunks and len({c.meta.native_id for c in chunks}) == 1
    for m in messages(chunks):
        assert m.role in {"user", "assistant", "system", "tool", "summary", "event"}
        blob = orjson.dumps([m.text, m.tool_input, m.tool_result, m.raw])
        assert b'"encrypted_content":' not in blob and b"MUST_NOT_RENDER" not in blob
        assert m.tool_input is None or ("\n" not in m.tool_input and len(m.tool_input) <= 200)


def test_catalog_with_seven_session_metas_is_one_session() -> None:
    records = records_of(CX / "small.jsonl")
    assert sum(r.obj.get("type") == "session_meta" for r in records) == 7
    chunks = parse(CX / "small.jsonl", records)
    meta = merged(chunks)
    assert meta["id"] == "019fc8be-3658-7ca3-9e29-000000000000"
    assert (meta["parent"], meta["relation"]) == (None, None)  # lineage of the first meta only
    assert (meta["cwd"], meta["branch"]) == ("/tmp/repo", "main")
    assert (meta["entrypoint"], meta["originator"]) == ("cli", "codex_cli_rs/0.146.0")
    assert meta["models"] == {
        "gpt-5.6-luna", "gpt-5.5", "codex-auto-review", "gpt-5.4",
        "gpt-5.2", "gpt-5.2-codex", "gpt-5.1", "gpt-5.6-sol",
    }  # fmt: skip
    assert meta["rank"] == TITLE_RANK_CUSTOM  # thread_name_updated
    # One real token_count (16422 cumulative); a later all-zero one restarts the counter.
    assert totals(usage(chunks)) == (16341 - 3584, 3584, 81, 63)
    msgs = messages(chunks)
    # The event mirror came first: it is kept and its response_item twin skipped.
    assert texts(chunks, "user").count("List the files") == 1
    assert Counter(m.kind for m in msgs if m.role == "summary") == {"compacted": 6}
    assert [m.kind for m in msgs if m.role == "system"] == ["developer"]
    call = next(m for m in msgs if m.kind == "function_call")
    assert (call.tool, call.tool_input, call.model) == ("shell", "ls", "gpt-5.6-luna")
    output = next(m for m in msgs if m.kind == "function_call_output")
    assert (output.tool, output.tool_result) == ("shell", "a.txt\n")
    events = Counter(m.kind for m in msgs if m.role == "event")
    assert events["item_completed"] == 13 and events["world_state"] == 5


def test_modern_envelope_mirrors_tools_and_unknown_records() -> None:
    chunks = parse(MODERN)
    meta = merged(chunks)
    assert meta["id"] == "11111111-1111-4111-8111-111111111111"
    assert meta["cwd"] == "/workspace/synthetic-project"
    assert meta["models"] == {"synthetic-model"}
    assert (meta["title"], meta["rank"]) == ("List the synthetic files.", TITLE_RANK_FIRST_PROMPT)
    # The event_msg mirror and the response_item of the same text count once.
    assert texts(chunks, "user") == ["List the synthetic files."]
    assert [m.text for m in messages(chunks) if m.role == "assistant" and m.text] == [
        "I will inspect the synthetic directory.",
        "The synthetic files are alpha.txt and beta.txt.",
    ]
    tools = [(m.role, m.tool, m.tool_input, m.tool_result) for m in messages(chunks) if m.tool]
    assert tools == [
        ("assistant", "exec_command", "find . -maxdepth 1 -type f", None),
        ("tool", "exec_command", None, "./alpha.txt\n./beta.txt"),
        ("assistant", "apply_patch", "Add File: gamma.txt", None),
        ("tool", "apply_patch", None, "Done!"),
        ("assistant", "mcp__synthetic__lookup", "fixture", None),
        ("tool", "mcp__synthetic__lookup", None, '{"status":"ok"}'),
    ]
    unknown = messages(chunks)[-1]
    assert (unknown.role, unknown.kind, unknown.raw) == (
        "event",
        "future_synthetic_record",
        records_of(MODERN)[-1].obj,
    )
    assert all(m.key.startswith(MODERN.name + ":") for m in messages(chunks))


def test_pre_envelope_rust_file() -> None:
    chunks = parse(PRE_ENVELOPE)
    meta = merged(chunks)
    assert meta["id"] == "44444444-4444-4444-8444-444444444444"
    assert str(meta["start"]) == "2026-01-04 05:06:07+00:00"
    assert [(m.role, m.text) for m in messages(chunks)] == [
        ("user", "Open the synthetic legacy session."),
        ("assistant", "The synthetic legacy session is open."),
    ]


def test_archived_session_uses_event_mirror_when_no_response_items() -> None:
    chunks = parse(ARCHIVED)
    meta = merged(chunks)
    assert meta["id"] == "55555555-5555-4555-8555-555555555555"
    assert meta["cwd"] == "/workspace/synthetic-project"
    assert texts(chunks, "user") == ["Archived synthetic prompt."]


def test_token_shapes() -> None:
    legacy = parse(CX / "codex_050_legacy.jsonl")  # {prompt, completion}, then info: null
    assert totals(usage(legacy)) == (1420, 0, 910, 0)
    limits = parse(CX / "codex_053_rate_limit.jsonl")
    assert totals(usage(limits)) == (12091 - 10880, 10880, 182, 128)
    cumulative = usage(parse(CX / "ccusage" / "sessions" / "project-alpha" / "session-alpha.jsonl"))
    assert [u.usage_key for u in cumulative] == ["session-alpha:cum:1200", "session-alpha:cum:4200"]
    assert totals(cumulative) == (3500 - 750, 750, 425, 275)  # the last cumulative value
    assert [u.model for u in cumulative] == ["gpt-5.2-codex", "gpt-5.3-codex"]
    flat = parse(CX / "sessions" / "2025" / "11" / "25" / "rollout-test.jsonl")
    assert totals(usage(flat)) == (100, 0, 200, 0)
    assert merged(flat)["branch"] == "main"
    per_turn = parse(CX / "codex_052_raw.jsonl")  # turn.completed usage, no token_count
    assert totals(usage(per_turn)) == (980 + 640, 980, 880, 0)


def test_legacy_items_and_drift_lines() -> None:
    large = parse(CX / "large.jsonl")
    assert texts(large, "user") == ["Start", "Step 1", "Step 2", "Step 3", "Step 4", "Step 5"]
    assert sum(m.synthetic for m in messages(large)) == 1  # <environment_context>
    legacy = [(m.kind, m.tool, m.tool_input) for m in messages(large) if m.tool]
    assert legacy == [
        ("tool_call", "run_shell_command", "printf 'line1\\nline2\\nline3\\n'"),
        ("tool_result", "run_shell_command", None),
    ]
    assert merged(large)["models"] == {"gpt-5.2"}
    drift = parse(CX / "schema_drift.jsonl")
    assert merged(drift)["id"] == "schema_drift"
    assert merged(drift)["models"] == {"gpt-4o-mini"}
    assert [m.role for m in messages(drift)] == ["user", "assistant", "tool", "assistant", "event"]
    calls = parse(CX / "function_calls.jsonl")
    assert [m.tool_input for m in messages(calls) if m.tool] == ["Running tests", "Fixing typo"]
    stdin = parse(CX / "fc_stdin.jsonl")
    assert [m.tool for m in messages(stdin) if m.tool] == ["write_stdin"]
    event_call = parse(CX / "sessions" / "2025" / "11" / "26" / "rollout-tool-call.jsonl")
    call = next(m for m in messages(event_call) if m.tool)
    assert (call.tool, call.tool_input) == ("bash", "rg -n tool_call src/connectors/codex.rs")


# -- discovery, roots, compressed copies ------------------------------------------------


def test_discover_codex_home_fixture() -> None:
    found = [s.path.relative_to(CX) for s in codex.discover(CX)]
    assert [str(p) for p in found] == [
        "sessions/rollout-44444444-4444-4444-8444-444444444444.jsonl",  # files before folders
        "sessions/2025/11/25/rollout-test.jsonl",
        "sessions/2025/11/26/rollout-tool-call.jsonl",
        "sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl",
        "archived_sessions/rollout-55555555-5555-4555-8555-555555555555.jsonl",
    ]
    assert len(list(codex.discover(CX / "sessions"))) == 4  # pointed at a sessions folder


def test_zst_copy_gives_the_same_keys() -> None:
    records = records_of(MODERN)
    plain = parse(MODERN, records)
    zst = parse(MODERN.with_name(MODERN.name + ".zst"), records)
    assert [m.key for m in messages(zst)] == [m.key for m in messages(plain)]


# -- resume ----------------------------------------------------------------------


def fingerprint(m: Message) -> tuple[Any, ...]:
    return (m.key, m.role, m.text, m.at, m.tool, m.tool_input, m.tool_result, m.sidechain,
            m.synthetic, m.model, m.kind)  # fmt: skip


@pytest.mark.parametrize("path", ALL_FILES, ids=lambda p: str(p.relative_to(CX)))
def test_resume_equals_single_pass(path: Path) -> None:
    records = records_of(path)
    whole = parse(path, records)
    points = {1, 2, 3, len(records) // 2, len(records) - 1}
    for point in sorted(p for p in points if 0 < p < len(records)):
        state: dict[str, Any] = {}
        first = parse(path, records[:point], state)
        state = orjson.loads(orjson.dumps(state))
        both = first + parse(path, records[point:], state)
        assert [fingerprint(m) for m in messages(both)] == [fingerprint(m) for m in messages(whole)]
        assert usage(both) == usage(whole)  # same keys, same deltas
        assert merged(both) == merged(whole)


# -- robustness --------------------------------------------------------------------
