"""Gemini CLI reader: what is specific to its chats, over the project's fixtures.

JSON records (<= 0.39) and JSON lines (>= 0.40) with ``$set`` and ``$rewindTo``;
a message re-appended under its id (last write wins, at its first position);
project, cwd and sub-agent parent from where a file lives.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.fixture_layout import root
from tests.harness.cases import GM_MAIN
from tests.harness.support import merged, messages, parse_lines, read_whole, records_of, usage
from viva_store.importing.harness.common import TITLE_RANK_SUMMARY
from viva_store.importing.harness.gemini.reader import READER as gemini
from viva_store.importing.harness.model import (
    Message,
    ParsedChunk,
    Problem,
    Record,
    SourceFile,
    Usage,
)

GM = root("gemini")
MAIN = GM / "shop" / "chats" / "session-2026-05-06T10-00-5b6c7d8e.jsonl"
OLD = GM / "shop" / "chats" / "session-2026-01-20T10-00-7d8e9f0a.json"


def parse_jsonl(
    path: Path, records: list[Record] | None = None, state: dict[str, Any] | None = None
) -> list[ParsedChunk]:
    return parse_lines(gemini, path, records_of(path) if records is None else records, state)


def read_json(path: Path) -> tuple[list[ParsedChunk], list[Problem]]:
    return read_whole(gemini, SourceFile("gemini", path, "json"))


def totals(items: list[Usage]) -> tuple[int, int, int, int]:
    """(input, output, cache read, reasoning) summed."""
    return (
        sum(u.input_tokens for u in items),
        sum(u.output_tokens for u in items),
        sum(u.cache_read_tokens for u in items),
        sum(u.reasoning_tokens for u in items),
    )


def test_a_reappended_message_keeps_its_first_place_and_its_last_content() -> None:
    records = records_of(MAIN)
    assert [r.obj.get("id") for r in records].count("g-a1") == 2  # executing, then success
    msgs = messages(parse_jsonl(MAIN))
    assert [m.key for m in msgs][:4] == [
        "g-u1",
        "g-a1:thinking",
        "g-a1:tool:run_shell_command_1",
        "g-a2",
    ]
    tool = msgs[2]
    assert (tool.tool, tool.tool_input, tool.tool_result) == (
        "run_shell_command",
        "npm test -- cart",
        "5 passing\n",
    )


def test_tokens_count_the_uncached_prompt_as_input() -> None:
    items = usage(parse_jsonl(MAIN))
    assert [u.usage_key for u in items] == [f"gemini:{GM_MAIN}:g-a1", f"gemini:{GM_MAIN}:g-a2"]
    first = items[0]  # input 2400 + tool 10 - cached 1800
    assert (first.input_tokens, first.cache_read_tokens, first.reasoning_tokens) == (610, 1800, 30)


def test_set_updates_the_session_and_rewind_keeps_what_happened() -> None:
    chunks = parse_jsonl(MAIN)
    meta = merged(chunks)
    assert (meta["title"], meta["rank"]) == ("Cart tests check", TITLE_RANK_SUMMARY)
    assert str(meta["end"]) == "2026-05-06 10:00:11+00:00"  # the last $set.lastUpdated
    msgs = messages(chunks)
    rewind = next(m for m in msgs if m.kind == "rewind")
    assert (rewind.role, rewind.text, rewind.raw) == (
        "event",
        "rewind to g-u2",
        {"$rewindTo": "g-u2"},
    )
    assert any(m.key == "g-u2" for m in msgs)  # history rewound away really happened
    image = next(m for m in msgs if m.key == "g-u3")
    assert image.text == "Show the coverage report\n\n[image]"
    assert "Y292ZXJhZ2U" not in repr(chunks)  # inline data is never kept
    unknown = msgs[-1]
    assert (unknown.role, unknown.kind, unknown.raw) == (
        "event",
        "unknown",
        {"schemaNote": "a record kind this reader does not know"},
    )


def test_a_json_record() -> None:
    chunks, problems = read_json(OLD)
    assert problems == []
    (chunk,) = chunks
    by_key = {m.key: m for m in chunk.messages}
    assert by_key["o-a1:thinking"].text == "**Reading** Open the manifest."
    tool = by_key["o-a1:tool:read_file_1"]
    assert (tool.tool, tool.tool_result) == ("read_file", '{"scripts": {}}')
    assert [(m.kind, m.text) for m in chunk.messages if m.role == "system"] == [
        ("warning", "Model fell back to flash."),
        ("error", "Quota exceeded."),
    ]
    meta = chunk.meta
    assert (str(meta.started_at), str(meta.ended_at)) == (
        "2026-01-20 10:00:00+00:00",
        "2026-01-20 10:00:20+00:00",
    )
    assert (meta.project, meta.entrypoint) == ("shop", "main")


def test_a_sub_agent_chat_names_its_parent_by_its_folder() -> None:
    sub = GM / "shop" / "chats" / GM_MAIN / "6c7d8e9f-0a1b-4c2d-9e3f-4a5b6c7d8e9f.jsonl"
    meta = merged(parse_jsonl(sub))
    assert (meta["parent"], meta["relation"], meta["entrypoint"]) == (
        GM_MAIN,
        "subagent",
        "subagent",
    )
    assert (meta["project"], meta["cwd"]) == ("shop", "/home/dev/shop")


def lines_to_records(lines: list[dict[str, Any]]) -> list[Record]:
    """Records for in-memory lines (offsets are nominal: 100 bytes a line)."""
    return [Record(number, (number - 1) * 100, obj) for number, obj in enumerate(lines, 1)]


def write_jsonl(path: Path, lines: list[dict[str, Any]]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"".join(orjson.dumps(line) + b"\n" for line in lines))
    return path


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


META = {"sessionId": "s-1", "projectHash": "h", "startTime": "2026-05-01T10:00:00Z", "kind": "main"}


UPDATES: list[dict[str, Any]] = [
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


def test_default_roots(tmp_path: Path) -> None:
    assert gemini.default_roots({}, tmp_path) == [tmp_path / ".gemini" / "tmp"]
    (tmp_path / "data" / "tmp").mkdir(parents=True)
    env = {"GEMINI_DATA_DIR": str(tmp_path / "data"), "GEMINI_CLI_HOME": "/h"}
    assert gemini.default_roots(env, tmp_path) == [
        tmp_path / "data" / "tmp", Path("/h/.gemini/tmp"), tmp_path / ".gemini" / "tmp"
    ]  # fmt: skip
    env = {"GEMINI_DATA_DIR": str(tmp_path / "elsewhere")}
    assert gemini.default_roots(env, tmp_path)[0] == tmp_path / "elsewhere"


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


def test_first_prompt_is_the_title_until_a_summary_and_an_append_never_replaces_it() -> None:
    def user(id_: str, text: str) -> dict[str, Any]:
        return {"id": id_, "timestamp": "2026-05-01T10:00:01Z", "type": "user", "content": text}

    path = Path("/nowhere/chats/session-t.jsonl")
    state: dict[str, Any] = {"layout": True, "sid": "s-t"}
    header = {"sessionId": "s-t", "startTime": "2026-05-01T10:00:00Z"}
    first = parse_lines(
        gemini, path, lines_to_records([header, user("u1", "Why\nis CI red?")]), state
    )
    assert (first[0].meta.title, first[0].meta.title_rank) == ("Why is CI red?", 10)
    appended = parse_lines(gemini, path, lines_to_records([user("u2", "and now?")]), state)
    assert appended[0].meta.title is None
    summary = parse_lines(
        gemini, path, lines_to_records([{"$set": {"summary": "CI triage"}}]), state
    )
    assert summary[0].meta.title == "CI triage"
    assert summary[0].meta.title_rank > first[0].meta.title_rank
