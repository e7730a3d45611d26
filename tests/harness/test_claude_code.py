"""Claude Code reader: what is specific to its transcripts, over the project's fixtures.

Streamed usage counted once per response, the three sub-agent layouts, titles by
rank, injected and synthetic lines, compaction, legacy lines, message keys.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from tests.fixture_layout import root
from tests.harness.cases import CC_MAIN
from tests.harness.support import (
    as_records,
    merged,
    messages,
    parse_lines,
    records_of,
    token_totals,
    usage,
)
from viva_store.importing.harness.claude_code.reader import READER as claude_code
from viva_store.importing.harness.common import (
    TITLE_RANK_CUSTOM,
    TITLE_RANK_FIRST_PROMPT,
    TITLE_RANK_SUMMARY,
)
from viva_store.importing.harness.model import ParsedChunk, Record

CC = root("claude-code")
MAIN = CC / "-home-dev-shop" / f"{CC_MAIN}.jsonl"
NESTED = CC / "-home-dev-shop" / CC_MAIN / "subagents" / "agent-a1b2c3d4e5f6a7b8c.jsonl"
FLAT = CC / "-home-dev-shop" / "agent-5e6f7a8b.jsonl"
OLD = CC / "-home-dev-notes" / "0c9b8a7d-6e5f-4a3b-9c2d-1e0f9a8b7c6d.jsonl"
USAGE_ONLY = CC / "-home-dev-notes" / "usage-export" / "chat.jsonl"


def parse(path: Path, records: list[Record] | None = None, state: Any = None) -> list[ParsedChunk]:
    return parse_lines(claude_code, path, records_of(path) if records is None else records, state)


def test_a_streamed_response_counts_once_at_its_largest() -> None:
    records = records_of(MAIN)
    stream = [r for r in records if r.obj.get("requestId") == "req_shop_001"]
    outputs = [r.obj["message"]["usage"]["output_tokens"] for r in stream]
    assert outputs == sorted(outputs) and len(stream) == 3  # one response, three lines
    (first,) = [u for u in usage(parse(MAIN)) if u.usage_key == "msg_shop_001:req_shop_001"]
    assert (first.input_tokens, first.output_tokens) == (12, max(outputs))
    assert (first.cache_read_tokens, first.cache_write_tokens) == (1000, 200)


def test_a_stream_split_across_imports_adds_only_its_growth() -> None:
    records = records_of(MAIN)
    cut = next(i for i, r in enumerate(records) if r.obj.get("uuid") == "c1-a1") + 1
    state: dict[str, Any] = {}
    head = usage(parse(MAIN, records[:cut], state))
    tail = usage(parse(MAIN, records[cut:], state))
    key = "msg_shop_001:req_shop_001"
    assert [u.output_tokens for u in head if u.usage_key == key] == [5]
    assert [u.output_tokens for u in tail if u.usage_key == f"{key}#1"] == [48 - 5]
    assert not [u for u in tail if u.usage_key == key]
    assert token_totals(head + tail) == token_totals(usage(parse(MAIN)))


def test_thinking_text_and_tool_use_are_messages_of_their_own() -> None:
    msgs = messages(parse(MAIN))
    assistant = [(m.key, m.kind) for m in msgs if m.role == "assistant"][:3]
    assert assistant == [("c1-a1", "thinking"), ("c1-a2", "text"), ("c1-a3", "tool_use")]
    # Several blocks on one line: the line's uuid, then uuid:1, uuid:2...
    nested = [(m.key, m.kind) for m in messages(parse(NESTED)) if m.role == "assistant"]
    assert nested[:2] == [("s1-a1", "text"), ("s1-a1:1", "tool_use")]
    # A line without a uuid is keyed by file name and byte offset.
    snapshot = messages(parse(MAIN))[0]
    assert (snapshot.kind, snapshot.key) == ("file-history-snapshot", f"{MAIN.name}:0")


def test_tool_results_are_paired_with_their_calls_by_id() -> None:
    msgs = messages(parse(MAIN))
    calls = [(m.tool, m.tool_input) for m in msgs if m.kind == "tool_use"]
    assert calls == [("Grep", "shop/"), ("Edit", "/home/dev/shop/shop/checkout.py")]
    results = [(m.tool, m.kind) for m in msgs if m.role == "tool"]
    assert results == [("Grep", "tool_result"), ("Edit", "tool_error")]


def test_an_api_error_is_synthetic_and_counts_toward_nothing() -> None:
    chunks = parse(MAIN)
    error = next(m for m in messages(chunks) if m.key == "c1-a5")
    assert (error.role, error.synthetic, error.model) == ("assistant", True, None)
    assert not any(u.usage_key.startswith("msg_shop_err") for u in usage(chunks))


def test_injected_user_text_is_synthetic_and_never_a_title() -> None:
    chunks = parse(MAIN)
    users = [
        (m.text.split(">")[0] + ">", m.synthetic) for m in messages(chunks) if m.role == "user"
    ]
    assert users == [
        ("Refactor the cart checkout so totals are computed in one place>", False),
        ("<local-command-stdout>", True),
        ("<command-name>", True),
    ]
    system = [(m.kind, m.synthetic) for m in messages(chunks) if m.role == "system"]
    assert system == [("session_start", True), ("compact_boundary", False)]


def test_compaction_keeps_the_boundary_and_a_synthetic_summary() -> None:
    msgs = messages(parse(MAIN))
    summary = next(m for m in msgs if m.kind == "compact_summary")
    assert (summary.role, summary.synthetic) == ("summary", True)
    assert summary.text.endswith("cart totals were moved into Cart.total().")


def test_a_custom_title_beats_the_first_prompt() -> None:
    meta = merged(parse(MAIN))
    assert (meta["title"], meta["rank"]) == ("Cart checkout refactor", TITLE_RANK_CUSTOM)
    assert (meta["cwd"], meta["branch"], meta["entrypoint"]) == (
        "/home/dev/shop",
        "feature/cart",
        "cli",
    )
    assert meta["originator"] == "claude-code/2.1.90"


def test_a_leading_summary_beats_the_first_prompt() -> None:
    meta = merged(parse(OLD))
    assert (meta["title"], meta["rank"]) == ("Notes app: fix the search index", TITLE_RANK_SUMMARY)


def test_a_slash_command_titles_a_session_only_until_a_real_prompt() -> None:
    command = "<command-name>/init</command-name>\n<command-args>fast</command-args>"

    def user(uuid: str, text: str) -> dict[str, Any]:
        return {
            "type": "user",
            "uuid": uuid,
            "sessionId": "s",
            "message": {"role": "user", "content": text},
        }

    state: dict[str, Any] = {}
    first = parse(Path("s.jsonl"), as_records([user("u1", command)]), state)
    assert (merged(first)["title"], merged(first)["rank"]) == (
        "/init fast",
        TITLE_RANK_FIRST_PROMPT - 5,
    )
    later = parse(Path("s.jsonl"), as_records([user("u2", "Set up the repo")]), state)
    assert (merged(later)["title"], merged(later)["rank"]) == (
        "Set up the repo",
        TITLE_RANK_FIRST_PROMPT,
    )


def test_a_nested_sub_agent_is_linked_to_the_folder_it_sits_in() -> None:
    chunks = parse(NESTED)
    meta = merged(chunks)
    assert (meta["id"], meta["parent"], meta["relation"]) == (
        "agent-a1b2c3d4e5f6a7b8c",
        CC_MAIN,
        "subagent",
    )
    assert not any(m.sidechain for m in messages(chunks))  # the whole session is the sub-agent


def test_a_flat_sub_agent_is_linked_by_its_lines_session_id() -> None:
    chunks = parse(FLAT)
    meta = merged(chunks)
    assert (meta["id"], meta["parent"], meta["relation"]) == ("agent-5e6f7a8b", CC_MAIN, "subagent")
    assert meta["originator"] == "claude-code/2.0.31"
    assert not any(m.sidechain for m in messages(chunks))
    # Plain-string assistant content is a text message.
    assert messages(chunks)[-1].text == "All four cart tests pass."


def test_inline_sidechains_stay_messages_of_the_parent() -> None:
    chunks = parse(OLD)
    side = Counter(m.role for m in messages(chunks) if m.sidechain)
    assert side == {"user": 1, "assistant": 2, "tool": 1}
    side_usage = [u for u in usage(chunks) if u.usage_key.startswith("msg_notes_side")]
    assert token_totals(side_usage)[:2] == (9 + 11, 12 + 16)  # real, separately billed usage


def test_a_replayed_line_of_an_older_session_does_not_rename_the_file() -> None:
    records = records_of(OLD)
    assert records[1].obj["sessionId"] != OLD.stem
    assert merged(parse(OLD))["id"] == OLD.stem


def test_legacy_top_level_tool_lines_and_task_notifications() -> None:
    msgs = messages(parse(OLD))
    legacy = [
        (m.role, m.kind, m.tool, m.tool_input or m.tool_result)
        for m in msgs
        if m.key.startswith("n1-t")
    ]
    assert legacy == [
        ("assistant", "tool_use", "bash", "ls notes/"),
        ("tool", "tool_result", "bash", "a.md\nb.md\n"),
    ]
    notification = next(m for m in msgs if m.key == "n1-u3")
    assert notification.synthetic  # origin.kind = task-notification


def test_usage_only_lines_name_the_session_by_their_first_session_id() -> None:
    chunks = parse(USAGE_ONLY)
    meta = merged(chunks)
    assert meta["id"] == "notes-usage-export"
    assert [m.role for m in messages(chunks)] == ["summary"]
    assert [u.usage_key for u in usage(chunks)] == ["msg_use_1:req_use_1", "msg_use_2:req_use_2"]


def test_discovery_skips_what_is_not_a_transcript(tmp_path: Path) -> None:
    project = tmp_path / "-home-me-repo"
    (project / "abc" / "tool-results").mkdir(parents=True)
    (project / "abc" / "subagents").mkdir()
    for rel in ("abc.jsonl", "abc/tool-results/x.jsonl", "abc/subagents/agent-1.jsonl", "n.txt"):
        (project / rel).write_text("{}\n")
    (project / "abc" / "subagents" / "agent-1.meta.json").write_text("{}")
    (project / ".hidden").mkdir()
    (project / ".hidden" / "h.jsonl").write_text("{}\n")
    found = [s.path.relative_to(tmp_path) for s in claude_code.discover(tmp_path)]
    assert [str(p) for p in found] == [
        "-home-me-repo/abc.jsonl",
        "-home-me-repo/abc/subagents/agent-1.jsonl",
    ]


def test_default_roots(tmp_path: Path) -> None:
    home = tmp_path
    assert claude_code.default_roots({}, home) == [
        home / ".claude" / "projects",
        home / ".config" / "claude" / "projects",
    ]
    env = {"CLAUDE_CONFIG_DIR": "/a, ~/b ,"}
    assert claude_code.default_roots(env, home)[:2] == [Path("/a/projects"), home / "b/projects"]
    assert claude_code.env_roots == ("CLAUDE_CONFIG_DIR",)


def test_deep_nesting_does_not_raise() -> None:
    deep: Any = "x"
    for _ in range(1000):
        deep = {"type": "tool_result", "content": [deep]}
    line = {"type": "assistant", "uuid": "u", "message": {"content": [{"type": "tool_use",
            "name": "t", "input": deep}]}}  # fmt: skip
    user = {"type": "user", "uuid": "v", "message": {"content": [deep]}}
    chunks = parse(Path("x.jsonl"), [Record(1, 0, line), Record(2, 9, user)])
    assert len(messages(chunks)) == 2


@pytest.mark.parametrize("value", ["a string", 42, [1, 2], None])
def test_a_line_that_is_not_an_object_is_an_event(value: Any) -> None:
    chunks = parse(Path("x.jsonl"), [Record(1, 0, value)])
    (event,) = messages(chunks)
    assert (event.role, event.kind, event.raw) == ("event", "non-object", {"value": value})
