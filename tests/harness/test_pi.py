"""pi reader: fixture facts, fork rule, discovery, resume and robustness."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viva_store.importing.harness.model import Message, ParsedChunk, Record, SourceFile, Usage
from viva_store.importing.harness.pi import reader as pi

FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "harness-samples"
PI = (FIXTURES / "pi").resolve()
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

pytestmark = pytest.mark.skipif(not PI.is_dir(), reason="shared fixtures not present")


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
    source = SourceFile(harness="pi", path=path)
    return list(
        pi.parse_records(
            source,
            iter(records_of(path) if records is None else records),
            {} if state is None else state,
        )
    )


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

PARENT_FILE = "/home/u/.pi/agent/sessions/--w-p--/2026-01-31T09-00-00-000Z_parent-uuid.jsonl"
HEADER = {
    "type": "session", "version": 3, "id": "child-uuid", "timestamp": "2026-02-01T10:00:00.000Z",
    "cwd": "/w/p", "parentSession": PARENT_FILE,
}  # fmt: skip
IMAGE = {"type": "image", "data": "AAAA", "mimeType": "image/png"}


def entry(kind: str, eid: str, ts: str, **fields: Any) -> dict[str, Any]:
    return {"type": kind, "id": eid, "parentId": None, "timestamp": ts, **fields}


def test_v3_fork_and_entry_types(tmp_path: Path) -> None:
    lines = [
        HEADER,
        entry("message", "a0000001", "2026-01-31T09:00:01Z",
              message={"role": "user", "content": "copied from parent"}),
        entry("message", "a0000002", "2026-01-31T09:00:02Z",
              message={"role": "assistant", "content": [{"type": "text", "text": "old"}],
                       "model": "old-model", "usage": {"input": 5, "output": 5}}),
        entry("message", "b0000001", "2026-02-01T10:00:01Z",
              message={"role": "bashExecution", "command": "ls -la", "output": "a\nb\n",
                       "exitCode": 0}),
        entry("session_info", "b0000002", "2026-02-01T10:00:02Z", name="Refactor auth"),
        entry("custom_message", "b0000003", "2026-02-01T10:00:03Z", customType="ext",
              content="Injected", display=True),
        entry("branch_summary", "b0000004", "2026-02-01T10:00:04Z", fromId="x", summary="Tried A"),
        entry("message", "b0000005", "2026-02-01T10:00:05Z",
              message={"role": "custom", "customType": "hook",
                       "content": [{"type": "text", "text": "hi"}]}),
        entry("label", "b0000006", "2026-02-01T10:00:06Z", targetId="b0000001", label="cp"),
        entry("custom", "b0000007", "2026-02-01T10:00:07Z", customType="ext", data={"n": 1}),
        entry("brand_new_type", "b0000008", "2026-02-01T10:00:08Z", extra=[1, 2]),
        entry("message", "b0000009", "2026-02-01T10:00:09Z",
              message={"role": "user", "content": [IMAGE]}),
        entry("model_change", "b000000a", "2026-02-01T10:00:10Z", provider="p",
              modelId="new-model"),
    ]  # fmt: skip
    chunks = parse(tmp_path / "x.jsonl", lines_to_records(lines))
    meta = merged(chunks)
    assert meta["ids"] == {"child-uuid"}
    assert meta["parent"] == {"parent-uuid"} and meta["relation"] == {"fork"}
    assert meta["title"] == "Refactor auth"
    assert max(c.meta.title_rank for c in chunks) > 0
    assert meta["models"] == {"new-model"}
    msgs = messages(chunks)
    assert "a0000001" not in {m.key for m in msgs}
    assert usage(chunks) == []
    by_key = {m.key: m for m in msgs}
    bash = by_key["b0000001"]
    assert (bash.role, bash.tool, bash.tool_input, bash.tool_result) == (
        "tool",
        "bash",
        "ls -la",
        "a\nb\n",
    )
    assert by_key["b0000002"].role == "event" and by_key["b0000002"].raw is not None
    assert by_key["b0000003"].role == "system" and by_key["b0000003"].text == "Injected"
    assert by_key["b0000004"].role == "summary" and by_key["b0000004"].synthetic
    assert by_key["b0000005"].role == "system" and by_key["b0000005"].text == "hi"
    assert by_key["b0000007"].role == "event" and by_key["b0000007"].raw["data"] == {"n": 1}
    assert by_key["b0000008"].role == "event" and by_key["b0000008"].raw["extra"] == [1, 2]
    assert by_key["b0000009"].text == "[image]"
    assert "AAAA" not in repr(by_key["b0000009"])


# -- discovery and roots ------------------------------------------------------


def test_discover(tmp_path: Path) -> None:
    header = orjson.dumps({"type": "session", "id": "x", "timestamp": "2026-01-01T00:00:00Z"})
    project = tmp_path / "--home-u-p--"
    (project / "2026_x" / "forks").mkdir(parents=True)
    (project / "2026_x" / "run-1" / "run-0").mkdir(parents=True)
    (project / "b_1.jsonl").write_bytes(header + b"\n")
    (project / "a_2.jsonl").write_bytes(b"\xef\xbb\xbf" + header + b"\n")
    (project / "not-a-session.jsonl").write_bytes(b'{"type":"message"}\n')
    (project / "empty.jsonl").write_bytes(b"")
    (project / "2026_x" / "forks" / "f.jsonl").write_bytes(header + b"\n")
    (project / "2026_x" / "run-1" / "run-0" / "session.jsonl").write_bytes(header + b"\n")
    (tmp_path / "stray.jsonl").write_bytes(header + b"\n")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "c_3.jsonl").write_bytes(header + b"\n")
    found = [s.path for s in pi.discover(tmp_path)]
    assert found == [project / "a_2.jsonl", project / "b_1.jsonl"]
    assert list(pi.discover(tmp_path / "missing")) == []
    assert [s.path for s in pi.discover(PI / "sessions")] == [V1_SYNTHETIC]


def test_default_roots(tmp_path: Path) -> None:
    home = tmp_path
    assert pi.default_roots({}, home) == [home / ".pi" / "agent" / "sessions"]
    env = {"PI_CODING_AGENT_SESSION_DIR": "/s", "PI_CODING_AGENT_DIR": "/a"}
    assert pi.default_roots(env, home) == [
        Path("/s"), Path("/a/sessions"), home / ".pi" / "agent" / "sessions"
    ]  # fmt: skip
    assert pi.NAME == "pi" and pi.ENV_ROOTS == (
        "PI_CODING_AGENT_SESSION_DIR",
        "PI_CODING_AGENT_DIR",
    )


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


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
pi_keys = st.sampled_from([
    "type", "id", "parentId", "timestamp", "message", "role", "content", "model", "usage",
    "summary", "name", "modelId", "provider", "cwd", "parentSession", "branchedFrom", "version",
])  # fmt: skip
pi_types = st.sampled_from([
    "session", "message", "model_change", "thinking_level_change", "compaction", "branch_summary",
    "custom", "custom_message", "label", "session_info", "other",
])  # fmt: skip
messages_st = st.fixed_dictionaries(
    {"role": st.sampled_from(["user", "assistant", "toolResult", "bashExecution", "custom",
                              "branchSummary", "compactionSummary", "x"])},
    optional={"content": json_values, "usage": json_values, "model": json_values,
              "command": json_values, "output": json_values, "summary": json_values},
)  # fmt: skip
records_st = st.lists(
    st.one_of(
        st.dictionaries(pi_keys | st.text(max_size=6), json_values, max_size=6),
        st.fixed_dictionaries(
            {"type": pi_types},
            optional={"message": messages_st | json_values, "timestamp": json_values,
                      "id": json_values, "parentSession": json_values, "name": json_values},
        ),
    ),
    max_size=12,
)  # fmt: skip


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(records_st)
def test_arbitrary_records_never_raise(objs: list[dict[str, Any]]) -> None:
    state: dict[str, Any] = {}
    chunks = parse(Path("/x/--p--/2026_abc.jsonl"), lines_to_records(objs), state)
    orjson.dumps(state)
    for chunk in chunks:
        assert isinstance(chunk.meta.native_id, str)
        for message in chunk.messages:
            assert isinstance(message.key, str) and isinstance(message.text, str)


def test_a_session_name_beats_the_first_prompt_and_later_prompts_never_replace_it(
    tmp_path: Path,
) -> None:
    def user(id_: str, at: str, text: str) -> dict[str, Any]:
        return entry("message", id_, at, message={"role": "user", "content": text})

    state: dict[str, Any] = {}
    first = parse(
        tmp_path / "x.jsonl",
        lines_to_records([user("c1", "2026-02-01T10:00:01Z", "Fix the\nflaky test")]),
        state,
    )
    assert merged(first)["title"] == "Fix the flaky test"
    # Resumed from its offset: a later prompt offers nothing, a session name wins.
    later = parse(
        tmp_path / "x.jsonl",
        lines_to_records(
            [
                user("c2", "2026-02-01T10:00:02Z", "and now the docs"),
                entry("session_info", "c3", "2026-02-01T10:00:03Z", name="Flaky test hunt"),
            ]
        ),
        state,
    )
    assert [c.meta.title for c in later] == ["Flaky test hunt"]
    assert merged(first + later)["title"] == "Flaky test hunt"
