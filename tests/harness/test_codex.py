"""Codex reader: what is specific to its rollouts, over the project's fixtures.

Three generations of rollouts, mirrored text counted once, tool calls with
JSON-in-a-string arguments, cumulative token counts, forks and sub-agents that
replay their parent's history without counting it again, ``.zst`` copies.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
import zstandard

from tests.fixture_layout import root
from tests.harness.cases import CX_MAIN
from tests.harness.support import (
    as_records,
    fingerprint,
    merged,
    messages,
    parse_lines,
    records_of,
    usage,
)
from viva_store.importing.harness.codex.reader import READER as codex
from viva_store.importing.harness.common import TITLE_RANK_CUSTOM
from viva_store.importing.harness.lines import iter_lines, open_source, to_records
from viva_store.importing.harness.model import ParsedChunk, Record, Usage

CX = root("codex")
MAIN = CX / "sessions/2026/03/04" / f"rollout-2026-03-04T09-00-00-{CX_MAIN}.jsonl"
FORK = (
    CX
    / "sessions/2026/03/05/rollout-2026-03-05T09-00-00-0195b2c3-d4e5-7f60-9b7c-8d9e0f1a2b3c.jsonl"
)
EARLY = CX / "sessions/rollout-0195c3d4-e5f6-4071-8c8d-9e0f1a2b3c4d.jsonl"
ARCHIVED = (
    CX / "archived_sessions/rollout-2025-10-20T09-00-00-0195d4e5-f607-4182-9d9e-0f1a2b3c4d5e.jsonl"
)
PER_TURN = (
    CX
    / "sessions/2025/10/28/rollout-2025-10-28T09-00-00-0195e5f6-0718-4293-8eaf-1a2b3c4d5e6f.jsonl"
)


def parse(path: Path, records: list[Record] | None = None, state: Any = None) -> list[ParsedChunk]:
    kind = "jsonl.zst" if path.name.endswith(".zst") else "jsonl"
    return parse_lines(codex, path, records_of(path) if records is None else records, state, kind)


def totals(items: list[Usage]) -> tuple[int, int, int, int]:
    """(uncached input, cached input, output, reasoning) summed."""
    return (
        sum(u.input_tokens for u in items),
        sum(u.cache_read_tokens for u in items),
        sum(u.output_tokens for u in items),
        sum(u.reasoning_tokens for u in items),
    )


def texts(chunks: list[ParsedChunk], role: str) -> list[str]:
    return [m.text for m in messages(chunks) if m.role == role and not m.synthetic and m.text]


def test_no_opaque_reasoning_blob_reaches_a_message() -> None:
    for source in codex.discover(CX):
        for m in messages(parse(source.path)):
            blob = orjson.dumps([m.text, m.tool_input, m.tool_result, m.raw])
            assert b"encrypted_content" not in blob and b"opaque" not in blob


def test_mirrored_text_is_stored_once() -> None:
    chunks = parse(MAIN)
    assert texts(chunks, "user") == ["Add a discount code field to checkout"]
    assert texts(chunks, "assistant") == ["Locate the checkout form", "Added the discount field."]
    # The reasoning mirror came first: it is kept and its response_item twin skipped.
    reasoning = next(m for m in messages(chunks) if m.text == "Locate the checkout form")
    assert (reasoning.kind, reasoning.model) == ("agent_reasoning", "gpt-5-codex")


def test_injected_context_is_synthetic() -> None:
    msgs = messages(parse(MAIN))
    synthetic = [(m.role, m.kind, m.text[:21]) for m in msgs if m.synthetic]
    assert synthetic == [
        ("system", "developer", "<permissions instruct"),
        ("user", "message", "<environment_context>"),
        ("summary", "compacted", "Summary: a discount c"),
    ]


def test_tool_calls_and_their_outputs() -> None:
    tools = [(m.role, m.tool, m.tool_input, m.tool_result) for m in messages(parse(MAIN)) if m.tool]
    assert tools == [
        ("assistant", "shell", "rg -n checkout src", None),  # bash -lc <script>: the script
        ("tool", "shell", None, "src/checkout.py:3:def checkout(cart):\n"),  # JSON in a string
        ("assistant", "apply_patch", "Update File: src/checkout.py", None),
        ("tool", "apply_patch", None, "Success. Updated the following files:\nM src/checkout.py\n"),
    ]


def test_cumulative_counts_become_deltas_counted_once() -> None:
    items = usage(parse(MAIN))
    # Three token_count records, one a repeat of the first total: two deltas.
    assert [u.usage_key for u in items] == [f"{CX_MAIN}:cum:5300", f"{CX_MAIN}:cum:9000"]
    assert [(u.input_tokens, u.cache_read_tokens) for u in items] == [(4000, 1000), (1400, 2000)]
    assert totals(items) == (8400 - 3000, 3000, 600, 150)  # the last cumulative total


def test_session_facts_of_a_modern_rollout() -> None:
    meta = merged(parse(MAIN))
    assert (meta["title"], meta["rank"]) == ("Checkout discount codes", TITLE_RANK_CUSTOM)
    assert (meta["cwd"], meta["branch"]) == ("/home/dev/shop", "main")
    assert (meta["entrypoint"], meta["originator"]) == ("cli", "codex_cli_rs/0.120.0")
    events = Counter(m.kind for m in messages(parse(MAIN)) if m.role == "event")
    assert events == {"task_started": 1, "exec_command_end": 1, "task_complete": 1,
                      "thread_name_updated": 1, "world_state": 1}  # fmt: skip
    assert all(m.key.startswith(MAIN.name + ":") for m in messages(parse(MAIN)))


def test_a_fork_counts_only_what_follows_its_parents_history() -> None:
    chunks = parse(FORK)
    meta = merged(chunks)
    assert (meta["parent"], meta["relation"]) == (CX_MAIN, "fork")
    assert texts(chunks, "user") == ["Now validate the code against the promotions table"]
    assert meta["models"] == {"gpt-5.1-codex"}  # not the replayed turn's model
    assert [u.usage_key for u in usage(chunks)] == ["0195b2c3-d4e5-7f60-9b7c-8d9e0f1a2b3c:cum:9750"]
    assert str(meta["start"]) == "2026-03-05 09:00:00+00:00"


def test_an_early_rust_rollout_reads_its_bare_header_and_items() -> None:
    chunks = parse(EARLY)
    meta = merged(chunks)
    assert (meta["id"], meta["branch"]) == ("0195c3d4-e5f6-4071-8c8d-9e0f1a2b3c4d", "fix/login")
    assert str(meta["start"]) == str(meta["end"]) == "2025-07-02 16:20:00+00:00"
    assert [(m.role, m.kind) for m in messages(chunks)] == [
        ("user", "message"),
        ("assistant", "reasoning"),
        ("assistant", "function_call"),
        ("tool", "function_call_output"),
        ("assistant", "message"),
    ]
    assert messages(chunks)[3].tool_result == "CACHE = {}\n"


def test_an_event_only_rollout_uses_its_mirrors_and_legacy_counts() -> None:
    chunks = parse(ARCHIVED)
    assert texts(chunks, "user") == ["Summarise yesterday's commits"]
    assert [m.kind for m in messages(chunks) if m.role == "assistant"] == [
        "agent_reasoning",
        "agent_message",
    ]
    # {prompt, completion}, then info: null (rate limits only).
    assert [(u.input_tokens, u.output_tokens) for u in usage(chunks)] == [(700, 80)]
    assert merged(chunks)["originator"] == "codex_exec/0.50.0"


def test_per_turn_usage_counts_while_no_total_is_seen() -> None:
    items = usage(parse(PER_TURN))
    assert totals(items) == ((300 - 100) + (420 - 300), 100 + 300, 40 + 25, 0)
    assert len(items) == 2


def test_a_zst_copy_reads_like_the_plain_rollout(tmp_path: Path) -> None:
    compressed = tmp_path / (MAIN.name + ".zst")
    compressed.write_bytes(zstandard.ZstdCompressor().compress(MAIN.read_bytes()))
    with open_source(compressed) as fh:
        records = list(to_records(iter_lines(fh), str(compressed), []))
    zst = parse(compressed, records)
    plain = parse(MAIN)
    assert [fingerprint(m) for m in messages(zst)] == [fingerprint(m) for m in messages(plain)]
    assert usage(zst) == usage(plain)


def test_discovery_of_a_sessions_folder() -> None:
    assert len(list(codex.discover(CX / "sessions"))) == 4


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


T0 = "2026-02-01T10:00:00.000Z"


T0_S = 1769940000  # T0 in epoch seconds


def env(ts: str, kind: str, **payload: Any) -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


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


def test_default_roots(tmp_path: Path) -> None:
    assert codex.default_roots({}, tmp_path) == [tmp_path / ".codex"]
    assert codex.default_roots({"CODEX_HOME": "/opt/cx"}, tmp_path) == [Path("/opt/cx")]
    assert codex.default_roots({"CODEX_HOME": "~/cx"}, tmp_path) == [tmp_path / "cx"]
    assert codex.env_roots == ("CODEX_HOME",)
