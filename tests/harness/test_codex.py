"""Codex reader: fixture facts, three shapes, cumulative tokens, replay rule, resume, robustness."""

from __future__ import annotations

import contextlib
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viva_store.importing.harness.codex import reader as codex
from viva_store.importing.harness.common import TITLE_RANK_CUSTOM, TITLE_RANK_FIRST_PROMPT
from viva_store.importing.harness.model import Message, ParsedChunk, Record, SourceFile, Usage

FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "harness-samples"
CX = (FIXTURES / "codex").resolve()
MODERN = (
    CX
    / "sessions/2026/01/02/rollout-2026-01-02T03-04-05-11111111-1111-4111-8111-111111111111.jsonl"
)
PRE_ENVELOPE = CX / "sessions" / "rollout-44444444-4444-4444-8444-444444444444.jsonl"
ARCHIVED = CX / "archived_sessions" / "rollout-55555555-5555-4555-8555-555555555555.jsonl"
ALL_FILES = sorted(CX.rglob("*.jsonl")) if CX.is_dir() else []

pytestmark = pytest.mark.skipif(not CX.is_dir(), reason="shared fixtures not present")


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
    source = SourceFile(harness=codex.NAME, path=path)
    recs = records_of(path) if records is None else records
    return list(codex.parse_records(source, iter(recs), {} if state is None else state))


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


def test_function_call_output_json_inside_a_string() -> None:
    wrapped = orjson.dumps({"output": "hello\n", "metadata": {"exit_code": 0}}).decode()
    lines = [
        env("2026-01-01T00:00:00Z", "session_meta", id="s", timestamp="2026-01-01T00:00:00Z"),
        env("2026-01-01T00:00:01Z", "response_item", type="function_call", name="shell",
            arguments='{"command":["bash","-lc","echo hello"]}', call_id="c1"),
        env("2026-01-01T00:00:02Z", "response_item", type="function_call_output",
            call_id="c1", output=wrapped),
    ]  # fmt: skip
    msgs = messages(parse(Path("rollout-s.jsonl"), as_records(lines)))
    assert [(m.tool, m.tool_input, m.tool_result) for m in msgs] == [
        ("shell", "echo hello", None),
        ("shell", None, "hello\n"),
    ]


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


def test_repeated_and_restarted_cumulative_counts() -> None:
    def tc(total: int, ts: str) -> dict[str, Any]:
        use = {"input_tokens": total - 10, "output_tokens": 10, "total_tokens": total}
        return env(ts, "event_msg", type="token_count", info={"total_token_usage": use})

    lines = [
        env("2026-01-01T00:00:00Z", "session_meta", id="s", timestamp="2026-01-01T00:00:00Z"),
        tc(100, "2026-01-01T00:00:01Z"),
        tc(100, "2026-01-01T00:00:02Z"),  # repeated: nothing new
        tc(300, "2026-01-01T00:00:03Z"),
        tc(50, "2026-01-01T00:00:04Z"),  # restarted counter
        tc(80, "2026-01-01T00:00:05Z"),
    ]
    items = usage(parse(Path("rollout-s.jsonl"), as_records(lines)))
    assert [u.usage_key for u in items] == ["s:cum:100", "s:cum:300", "s:cum1:50", "s:cum1:80"]
    assert sum(u.input_tokens + u.output_tokens for u in items) == 300 + 80


def test_last_only_counts_and_reasoning_summaries_only() -> None:
    last = {"input_tokens": 40, "cached_input_tokens": 10, "output_tokens": 5}
    reasoning = {"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}],
                 "content": [{"type": "reasoning_text", "text": "raw thoughts"}],
                 "encrypted_content": "opaque"}  # fmt: skip
    lines = [
        env(T0, "session_meta", id="s", timestamp=T0),
        env(T0, "event_msg", type="token_count", info={"last_token_usage": last}),
        env(T0, "event_msg", type="token_count", info={"last_token_usage": last}),
        env(T0, "response_item", **reasoning),
    ]
    chunks = parse(Path("rollout-s.jsonl"), as_records(lines))
    assert totals(usage(chunks)) == (60, 20, 10, 0)  # two turns, each counted once
    assert [m.text for m in messages(chunks)] == ["plan"]


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


# -- forks and sub-agents: the replay rule -----------------------------------------------

T0 = "2026-02-01T10:00:00.000Z"
T0_S = 1769940000  # T0 in epoch seconds


def env(ts: str, kind: str, **payload: Any) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def as_records(lines: list[dict[str, Any]]) -> list[Record]:
    return [Record(i + 1, i * 100, obj) for i, obj in enumerate(lines)]


def user(ts: str, text: str) -> dict[str, Any]:
    return env(ts, "response_item", type="message", role="user",
               content=[{"type": "input_text", "text": text}])  # fmt: skip


def count(ts: str, total: int) -> dict[str, Any]:
    use = {"input_tokens": total, "output_tokens": 0, "total_tokens": total}
    return env(ts, "event_msg", type="token_count", info={"total_token_usage": use})


def fork_restamped() -> list[dict[str, Any]]:
    """A fork whose copied parent lines are re-stamped to the fork time."""
    return [
        env(T0, "session_meta", id="child", timestamp=T0, forked_from_id="parent", cwd="/r"),
        env(T0, "session_meta", id="parent", timestamp="2026-02-01T09:00:00Z", cwd="/r"),
        env(T0, "event_msg", type="task_started", turn_id="p1", started_at=T0_S - 3600),
        user(T0, "parent prompt"),
        env(T0, "turn_context", model="parent-model", cwd="/r"),
        count(T0, 1000),
        env(T0, "event_msg", type="task_started", turn_id="c1", started_at=T0_S + 2),
        env("2026-02-01T10:00:02Z", "turn_context", model="child-model", cwd="/r"),
        user("2026-02-01T10:00:02Z", "child prompt"),
        count("2026-02-01T10:00:03Z", 1500),
    ]


def subagent_original_stamps() -> list[dict[str, Any]]:
    """A sub-agent rollout replaying the parent with original timestamps."""
    source = {"subagent": {"thread_spawn": {"parent_thread_id": "parent", "depth": 1}}}
    return [
        env(T0, "session_meta", id="child", timestamp=T0, source=source, cwd="/r"),
        env(T0, "session_meta", id="parent", timestamp="2026-02-01T09:00:00Z"),
        user("2026-02-01T09:00:01Z", "parent prompt"),
        count("2026-02-01T09:00:02Z", 800),
        env("2026-02-01T10:00:01Z", "turn_context", model="child-model"),
        user("2026-02-01T10:00:01Z", "child prompt"),
        count("2026-02-01T10:00:02Z", 800),  # a parent snapshot seen again: not the child's
        count("2026-02-01T10:00:03Z", 1100),
    ]


def test_fork_with_restamped_replay_counts_only_its_own_turn() -> None:
    chunks = parse(Path("rollout-child.jsonl"), as_records(fork_restamped()))
    meta = merged(chunks)
    assert (meta["id"], meta["parent"], meta["relation"]) == ("child", "parent", "fork")
    assert texts(chunks, "user") == ["child prompt"]
    assert meta["models"] == {"child-model"}
    assert [u.usage_key for u in usage(chunks)] == ["child:cum:1500"]
    assert totals(usage(chunks))[0] == 500
    assert (meta["title"], str(meta["start"])) == ("child prompt", "2026-02-01 10:00:00+00:00")


def test_subagent_with_original_stamps() -> None:
    chunks = parse(Path("rollout-child.jsonl"), as_records(subagent_original_stamps()))
    meta = merged(chunks)
    assert (meta["parent"], meta["relation"]) == ("parent", "subagent")
    assert meta["entrypoint"] == "subagent:thread_spawn"
    assert texts(chunks, "user") == ["child prompt"]
    assert totals(usage(chunks))[0] == 300


def test_subagent_without_copied_history_keeps_everything() -> None:
    source = {"subagent": {"thread_spawn": {"parent_thread_id": "parent"}}}
    only_meta = [
        env(T0, "session_meta", id="child", timestamp=T0, source=source),
        env(T0, "session_meta", id="parent", timestamp="2026-02-01T09:00:00Z"),
        env(T0, "event_msg", type="task_started", started_at=T0_S),
        user(T0, "child prompt"),
        count(T0, 200),
    ]
    chunks = parse(Path("rollout-child.jsonl"), as_records(only_meta))
    assert texts(chunks, "user") == ["child prompt"] and totals(usage(chunks))[0] == 200
    no_copy = [only_meta[0], *only_meta[3:]]  # child-only transcript: nothing is replay
    chunks = parse(Path("rollout-child.jsonl"), as_records(no_copy))
    assert texts(chunks, "user") == ["child prompt"] and totals(usage(chunks))[0] == 200


@pytest.mark.parametrize("build", [fork_restamped, subagent_original_stamps])
def test_replay_rule_survives_resume_at_every_line(build: Any) -> None:
    records = as_records(build())
    whole = parse(Path("rollout-child.jsonl"), records)
    for point in range(1, len(records)):
        state: dict[str, Any] = {}
        first = parse(Path("rollout-child.jsonl"), records[:point], state)
        state = orjson.loads(orjson.dumps(state))
        both = first + parse(Path("rollout-child.jsonl"), records[point:], state)
        assert [fingerprint(m) for m in messages(both)] == [fingerprint(m) for m in messages(whole)]
        assert usage(both) == usage(whole)


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


def test_discover_prefers_plain_over_zst(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "01" / "02"
    day.mkdir(parents=True)
    (tmp_path / "archived_sessions").mkdir()
    for name in ("rollout-a.jsonl", "rollout-a.jsonl.zst", "rollout-b.jsonl.zst"):
        (day / name).write_bytes(b"")
    (tmp_path / "archived_sessions" / "rollout-c.jsonl").write_bytes(b"")
    (tmp_path / "history.jsonl").write_bytes(b"")
    found = [(s.path.name, s.kind) for s in codex.discover(tmp_path)]
    assert found == [
        ("rollout-a.jsonl", "jsonl"),
        ("rollout-b.jsonl.zst", "jsonl.zst"),
        ("rollout-c.jsonl", "jsonl"),
    ]
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "export.jsonl").write_bytes(b"")
    (plain / "session_index.jsonl").write_bytes(b"")
    assert [s.path.name for s in codex.discover(plain)] == ["export.jsonl"]
    assert list(codex.discover(tmp_path / "missing")) == []


def test_zst_copy_gives_the_same_keys() -> None:
    records = records_of(MODERN)
    plain = parse(MODERN, records)
    zst = parse(MODERN.with_name(MODERN.name + ".zst"), records)
    assert [m.key for m in messages(zst)] == [m.key for m in messages(plain)]


def test_default_roots(tmp_path: Path) -> None:
    assert codex.default_roots({}, tmp_path) == [tmp_path / ".codex"]
    assert codex.default_roots({"CODEX_HOME": "/opt/cx"}, tmp_path) == [Path("/opt/cx")]
    assert codex.default_roots({"CODEX_HOME": "~/cx"}, tmp_path) == [tmp_path / "cx"]
    assert codex.ENV_ROOTS == ("CODEX_HOME",)


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

KINDS = ["session_meta", "response_item", "event_msg", "turn_context", "compacted",
         "message", "reasoning", "function_call", "function_call_output", "custom_tool_call",
         "token_count", "user_message", "agent_message", "agent_reasoning", "task_started",
         "turn.completed", "thread_name_updated", "tool_call", "local_shell_call",
         "web_search_call"]  # fmt: skip
KEYS = ["type", "payload", "timestamp", "id", "role", "content", "text", "message", "info",
        "total_token_usage", "input_tokens", "output_tokens", "total_tokens", "cwd", "model",
        "arguments", "output", "call_id", "name", "summary", "source", "forked_from_id",
        "subagent", "thread_spawn", "parent_thread_id", "started_at", "usage", "action",
        "record_type", "git", "encrypted_content"]  # fmt: skip
scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
values = st.recursive(
    scalars | st.sampled_from(KINDS),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=4), inner, max_size=5)
    ),
    max_leaves=25,
)
objects = st.dictionaries(st.sampled_from(KEYS), values, max_size=8)
envelopes = st.builds(
    lambda kind, ts, payload: {"type": kind, "timestamp": ts, "payload": payload},
    st.sampled_from(KINDS),
    st.sampled_from([T0, "2026-02-01T09:00:00Z", "junk"]) | scalars,
    objects,
)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(st.lists(objects | envelopes, max_size=12), st.sampled_from(["a.jsonl", "b.jsonl.zst"]))
def test_arbitrary_records_never_raise(objs: list[dict[str, Any]], name: str) -> None:
    records = [Record(i + 1, i * 10, obj) for i, obj in enumerate(objs)]
    state: dict[str, Any] = {}
    path = Path(name)
    chunks = parse(path, records[:4], state) + parse(path, records[4:], state)
    orjson.dumps(state)
    for m in messages(chunks):
        assert isinstance(m.text, str)
        assert "'encrypted_content':" not in repr(m.raw)
