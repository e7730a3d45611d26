"""Gemini CLI reader: JSON and JSONL fixtures, $set/$rewindTo, layout, resume, robustness."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viva_store.importing.harness.gemini import reader as gemini
from viva_store.importing.harness.model import (
    Message,
    ParsedChunk,
    Problem,
    Record,
    SourceFile,
    Usage,
)

FIXTURES = Path(__file__).resolve().parents[2] / ".." / "shared" / "fixtures" / "harness-samples"
GEMINI = (FIXTURES / "gemini").resolve()
JSONL = GEMINI / "jsonl_v040.jsonl"

pytestmark = pytest.mark.skipif(not GEMINI.is_dir(), reason="shared fixtures not present")


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


def write_jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


def parse_jsonl(
    path: Path, records: list[Record] | None = None, state: dict[str, Any] | None = None
) -> list[ParsedChunk]:
    source = SourceFile(harness="gemini", path=path, kind="jsonl")
    recs = records_of(path) if records is None else records
    return list(gemini.parse_records(source, iter(recs), {} if state is None else state))


def read_json(path: Path) -> tuple[list[ParsedChunk], list[Problem]]:
    problems: list[Problem] = []
    chunks = list(gemini.read_source(SourceFile("gemini", path, "json"), problems))
    return chunks, problems


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


META = {"sessionId": "s-1", "projectHash": "h", "startTime": "2026-05-01T10:00:00Z", "kind": "main"}
UPDATES = [
    META,
    {"id": "u1", "timestamp": "2026-05-01T10:00:01Z", "type": "user", "content": "hi"},
    {"id": "a1", "timestamp": "2026-05-01T10:00:02Z", "type": "gemini", "content": "",
     "toolCalls": [{"id": "c1", "name": "read_file", "args": {"path": "x"},
                    "status": "executing"}]},
    {"$set": {"lastUpdated": "2026-05-01T10:00:03Z"}},
    {"id": "a1", "timestamp": "2026-05-01T10:00:02Z", "type": "gemini", "content": "done",
     "model": "gemini-x", "tokens": {"input": 50, "output": 5, "cached": 10, "thoughts": 2},
     "toolCalls": [{"id": "c1", "name": "read_file", "args": {"path": "x"}, "status": "success",
                    "result": [{"functionResponse": {"response": {"output": "content"}}}]}]},
    {"$set": {"summary": "Reading x", "lastUpdated": "2026-05-01T10:00:04Z"}},
    {"$rewindTo": "u1"},
    {"id": "u2", "timestamp": "2026-05-01T10:00:05Z", "type": "user", "content": [
        {"text": "again"}, {"inlineData": {"mimeType": "image/png", "data": "QUJD"}}]},
    {"$set": {"messages": [{"id": "u0", "type": "user", "content": "restored"}]}},
    {"something": "new"},
]  # fmt: skip


def test_jsonl_updates_rewind_and_set(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "session-x.jsonl", UPDATES)
    chunks = parse_jsonl(path)
    meta = chunks[0].meta
    assert meta.native_id == "s-1"
    assert meta.title == "Reading x" and meta.title_rank > 0
    assert meta.models == {"gemini-x"}
    assert meta.ended_at is not None and meta.ended_at.isoformat() == "2026-05-01T10:00:05+00:00"
    msgs = chunks[0].messages
    by_key = {m.key: m for m in msgs}
    assert len(by_key) == len(msgs)  # each id once
    # a1 was re-appended: the last write wins, at its first position
    assert [m.key for m in msgs][:3] == ["u1", "a1:tool:c1", "a1"]
    assert by_key["a1"].text == "done"
    assert by_key["a1:tool:c1"].tool_result == "content"
    assert by_key["u2"].text == "again\n\n[image]"
    assert "QUJD" not in repr(chunks)
    rewind = next(m for m in msgs if m.kind == "rewind")
    assert rewind.role == "event" and rewind.raw == {"$rewindTo": "u1"}
    assert by_key["u0"].text == "restored"  # $set.messages upserted
    assert any(m.role == "event" and m.raw == {"something": "new"} for m in msgs)
    assert totals(usage(chunks)) == (40, 5, 10, 2)


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


def test_resume_with_reappended_ids(tmp_path: Path) -> None:
    """Across a resume the importer keeps the first stored version of a key."""
    path = write_jsonl(tmp_path / "chats" / "session-r.jsonl", UPDATES)
    records = records_of(path)
    whole_kept, whole_spent = first_wins(parse_jsonl(path, records))
    for split in range(len(records) + 1):
        state: dict[str, Any] = {}
        chunks = parse_jsonl(path, records[:split], state)
        chunks += parse_jsonl(path, records[split:], orjson.loads(orjson.dumps(state)))
        kept, spent = first_wins(chunks)
        assert kept.keys() == whole_kept.keys(), split
        assert spent == whole_spent, split
        assert {c.meta.native_id for c in chunks} == {"s-1"}
    # the documented limitation: a split between the two writes of a1 keeps the first
    state = {}
    chunks = parse_jsonl(path, records[:3], state) + parse_jsonl(path, records[3:], state)
    assert first_wins(chunks)[0]["a1:tool:c1"].tool_result is None


# -- layout: project, cwd, sub-agents, discovery ---------------------------------------


def make_tree(tmp_path: Path) -> Path:
    root = tmp_path / ".gemini" / "tmp"
    slug = root / "my-app"
    write_jsonl(slug / "chats" / "session-2026-05-01T10-00-aaaa1111.jsonl",
                [{**META, "sessionId": "aaaa1111-main"}])  # fmt: skip
    write_jsonl(slug / "chats" / "aaaa1111-main" / "sub-1.jsonl",
                [{**META, "sessionId": "sub-1", "kind": "subagent"}])  # fmt: skip
    (slug / "chats" / "session-2026-04-01T10-00-bbbb2222.json").write_bytes(
        orjson.dumps(
            {"sessionId": "bbbb2222", "messages": [{"id": "m", "type": "user", "content": "x"}]}
        )
    )
    (slug / "chats" / "notes.txt").write_text("no")
    (slug / "checkpoint-tag.json").write_text('{"history": []}')
    (slug / "logs.json").write_text("[]")
    (slug / ".project_root").write_text("/home/u/my-app\n")
    hashed = hashlib.sha256(b"/home/u/old").hexdigest()
    write_jsonl(root / hashed / "chats" / "session-2025-01-01T00-00-cccc3333.jsonl",
                [{**META, "sessionId": "cccc3333"}])  # fmt: skip
    write_jsonl(root / "registered" / "chats" / "session-2026-01-01T00-00-dddd4444.jsonl",
                [{**META, "sessionId": "dddd4444"}])  # fmt: skip
    (root / "unknown").mkdir()
    (root.parent / "projects.json").write_bytes(
        orjson.dumps({"projects": {"/home/u/old": "old", "/home/u/reg": "registered"}})
    )
    return root


def test_discover_and_layout(tmp_path: Path) -> None:
    root = make_tree(tmp_path)
    found = list(gemini.discover(root))
    rel = [(str(s.path.relative_to(root)).split("/", 1)[1], s.kind) for s in found]
    assert rel == [
        ("chats/session-2025-01-01T00-00-cccc3333.jsonl", "jsonl"),
        ("chats/aaaa1111-main/sub-1.jsonl", "jsonl"),
        ("chats/session-2026-04-01T10-00-bbbb2222.json", "json"),
        ("chats/session-2026-05-01T10-00-aaaa1111.jsonl", "jsonl"),
        ("chats/session-2026-01-01T00-00-dddd4444.jsonl", "jsonl"),
    ]
    metas = {}
    for source in found:
        if source.kind == "jsonl":
            chunks = parse_jsonl(source.path)
        else:
            chunks, _ = read_json(source.path)
        metas[chunks[0].meta.native_id] = chunks[0].meta
    assert metas["aaaa1111-main"].cwd == "/home/u/my-app"
    assert metas["aaaa1111-main"].project == "my-app"
    assert metas["bbbb2222"].cwd == "/home/u/my-app"
    assert metas["sub-1"].parent_native_id == "aaaa1111-main"
    assert metas["sub-1"].relation == "subagent"
    assert metas["sub-1"].project == "my-app"
    assert metas["cccc3333"].cwd == "/home/u/old"  # sha256 project id matched via projects.json
    assert metas["dddd4444"].cwd == "/home/u/reg"  # slug registered in projects.json
    assert list(gemini.discover(tmp_path / "missing")) == []
    assert [s.path for s in gemini.discover(GEMINI / "tmp")] == [
        GEMINI / "tmp" / "hash123" / "chats" / "session-test.json"
    ]


def test_default_roots(tmp_path: Path) -> None:
    assert gemini.default_roots({}, tmp_path) == [tmp_path / ".gemini" / "tmp"]
    (tmp_path / "data" / "tmp").mkdir(parents=True)
    env = {"GEMINI_DATA_DIR": str(tmp_path / "data"), "GEMINI_CLI_HOME": "/h"}
    assert gemini.default_roots(env, tmp_path) == [
        tmp_path / "data" / "tmp", Path("/h/.gemini/tmp"), tmp_path / ".gemini" / "tmp"
    ]  # fmt: skip
    env = {"GEMINI_DATA_DIR": str(tmp_path / "elsewhere")}
    assert gemini.default_roots(env, tmp_path)[0] == tmp_path / "elsewhere"


# -- robustness ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"", "not JSON"),
        (b"{not json", "not JSON"),
        (b"42", "not a Gemini chat record"),
        (b'{"foo": 1}', "not a Gemini chat record"),
    ],
)
def test_bad_json_files_are_problems(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "session-bad.json"
    path.write_bytes(content)
    chunks, problems = read_json(path)
    assert chunks == []
    assert len(problems) == 1 and problems[0].reason.startswith(reason)
    assert problems[0].path == str(path)


def test_unreadable_and_odd_shapes(tmp_path: Path) -> None:
    chunks, problems = read_json(tmp_path / "missing.json")
    assert chunks == [] and problems[0].reason.startswith("unreadable")
    bare = tmp_path / "checkpoint-x.json"
    call = {"functionCall": {"name": "ls", "args": {"path": "/"}}}
    response = {"functionResponse": {"name": "ls", "response": {"output": "a b"}}}
    bare.write_bytes(
        orjson.dumps(
            [
                {"role": "user", "parts": [{"text": "q"}]},
                {"role": "model", "parts": [call]},
                {"role": "user", "parts": [response]},
            ]
        )
    )
    chunks, problems = read_json(bare)
    assert problems == []
    msgs = chunks[0].messages
    assert [(m.role, m.kind, m.tool) for m in msgs] == [
        ("user", "", None),
        ("assistant", "tool_call", "ls"),
        ("tool", "tool_result", "ls"),
    ]
    assert msgs[1].tool_input == "/"
    assert msgs[2].tool_result == "a b"
    weird = tmp_path / "session-weird.json"
    weird.write_bytes(orjson.dumps({"sessionId": "w", "messages": [1, "x", None, {"type": 5}, {}]}))
    chunks, problems = read_json(weird)
    assert problems == [] and chunks[0].meta.native_id == "w"
    assert [m.role for m in chunks[0].messages] == ["event"]


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
keys = st.sampled_from([
    "id", "type", "content", "parts", "timestamp", "tokens", "model", "thoughts", "toolCalls",
    "$set", "$rewindTo", "sessionId", "kind", "summary", "startTime", "lastUpdated", "messages",
])  # fmt: skip
message_st = st.fixed_dictionaries(
    {"id": st.text(max_size=4), "type": st.sampled_from(["user", "gemini", "model", "info", "x"])},
    optional={"content": json_values, "toolCalls": json_values, "thoughts": json_values,
              "tokens": json_values, "timestamp": json_values, "model": json_values},
)  # fmt: skip
records_st = st.lists(
    st.one_of(
        st.dictionaries(keys | st.text(max_size=6), json_values, max_size=6),
        message_st,
        st.fixed_dictionaries({"$set": st.dictionaries(keys, json_values, max_size=4)}),
        st.fixed_dictionaries({"$set": st.fixed_dictionaries({"messages": st.lists(message_st)})}),
    ),
    max_size=10,
)  # fmt: skip


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(records_st)
def test_arbitrary_records_never_raise(objs: list[dict[str, Any]]) -> None:
    state: dict[str, Any] = {}
    chunks = parse_jsonl(Path("/x/tmp/p/chats/session-a.jsonl"), lines_to_records(objs), state)
    orjson.dumps(state)
    for message in messages(chunks):
        assert isinstance(message.key, str) and isinstance(message.text, str)
    keys_seen = [m.key for m in messages(chunks)]
    assert len(keys_seen) == len(set(keys_seen))


@settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(json_values)
def test_arbitrary_json_documents_never_raise(tmp_path_factory: Any, value: Any) -> None:
    path = tmp_path_factory.mktemp("g") / "session-h.json"
    try:
        path.write_bytes(orjson.dumps(value))
    except TypeError:
        return
    problems: list[Problem] = []
    list(gemini.read_source(SourceFile("gemini", path, "json"), problems))


def test_first_prompt_is_the_title_until_a_summary_and_an_append_never_replaces_it() -> None:
    def user(id_: str, text: str) -> dict[str, Any]:
        return {"id": id_, "timestamp": "2026-05-01T10:00:01Z", "type": "user", "content": text}

    source = SourceFile(harness="gemini", path=Path("/nowhere/chats/session-t.jsonl"))
    state: dict[str, Any] = {"layout": True, "sid": "s-t"}
    header = {"sessionId": "s-t", "startTime": "2026-05-01T10:00:00Z"}
    first = list(
        gemini.parse_records(
            source, iter(lines_to_records([header, user("u1", "Why\nis CI red?")])), state
        )
    )
    assert (first[0].meta.title, first[0].meta.title_rank) == ("Why is CI red?", 10)
    appended = list(
        gemini.parse_records(source, iter(lines_to_records([user("u2", "and now?")])), state)
    )
    assert appended[0].meta.title is None
    summary = list(
        gemini.parse_records(
            source, iter(lines_to_records([{"$set": {"summary": "CI triage"}}])), state
        )
    )
    assert summary[0].meta.title == "CI triage"
    assert summary[0].meta.title_rank > first[0].meta.title_rank
