"""pi reader: what is specific to its session files, over the project's fixtures.

All three versions (v1 without entry ids, v2/v3 trees), the entry types, the
fork rule (copied history is not emitted again), usage keyed by the entry's
timestamp so that pi's rewrite of a v1 file counts nothing twice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from tests.fixture_layout import root
from tests.harness.cases import PI_V3
from tests.harness.support import merged, messages, parse_lines, records_of, usage
from viva_store.importing.harness.common import TITLE_RANK_CUSTOM
from viva_store.importing.harness.model import ParsedChunk, Record
from viva_store.importing.harness.pi.reader import READER as pi

PI = root("pi")
V3 = PI / "--home-dev-shop--" / f"2026-04-02T08-00-00-000Z_{PI_V3}.jsonl"
FORK = (
    PI / "--home-dev-shop--" / "2026-04-03T08-00-00-000Z_0196b1c2-d3e4-7f50-b6c7-d8e9f0a1b2c3.jsonl"
)
V1 = (
    PI
    / "--home-dev-notes--"
    / "2025-11-15T08-00-00-000Z_4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8.jsonl"
)


def parse(path: Path, records: list[Record] | None = None, state: Any = None) -> list[ParsedChunk]:
    return parse_lines(pi, path, records_of(path) if records is None else records, state)


def test_v3_entry_types() -> None:
    chunks = parse(V3)
    by_key = {m.key: m for m in messages(chunks)}
    model = by_key["e0000001"]
    assert (model.role, model.kind, model.text) == (
        "event",
        "model_change",
        "model: anthropic/claude-sonnet-4-5",
    )
    assert model.raw is not None and model.raw["modelId"] == "claude-sonnet-4-5"
    # One assistant entry: its thinking, its text, one message per tool call.
    assert [(m.key, m.kind) for m in messages(chunks) if m.key.startswith("e0000004")] == [
        ("e0000004:thinking", "thinking"),
        ("e0000004", ""),
        ("e0000004:call:tc_pi_ls", "tool_call"),
    ]
    assert by_key["e0000004:call:tc_pi_ls"].tool_input == "ls tests/"
    result = by_key["e0000005"]
    assert (result.role, result.tool, result.tool_result) == (
        "tool",
        "bash",
        "test_cart.py\ntest_checkout.py\n",
    )
    bash = by_key["e0000007"]
    assert (bash.role, bash.kind, bash.tool_input, bash.tool_result) == (
        "tool",
        "bash",
        "pytest -q tests/test_cart.py",
        "3 passed\n",
    )
    compaction = by_key["e0000009"]
    assert (compaction.role, compaction.synthetic, compaction.kind) == (
        "summary",
        True,
        "compaction",
    )
    assert compaction.raw is not None and "summary" not in compaction.raw
    assert (by_key["e000000a"].role, by_key["e000000a"].text) == ("system", "Keep answers short.")
    assert [by_key[k].kind for k in ("e000000b", "e000000c", "e000000f")] == [
        "label",
        "custom",
        "future_entry_kind",
    ]
    assert by_key["e000000d"].text == "Thanks\n[image]"
    assert "aW1hZ2U" not in repr(chunks)  # an image's data is never kept
    assert by_key["e000000e"].text == "[error] overloaded"


def test_a_session_name_is_the_title() -> None:
    meta = merged(parse(V3))
    assert (meta["title"], meta["rank"]) == ("Cart test survey", TITLE_RANK_CUSTOM)
    assert (meta["project"], meta["cwd"]) == ("--home-dev-shop--", "/home/dev/shop")


def test_v1_entries_are_keyed_by_file_and_offset() -> None:
    chunks = parse(V1)
    prompt, call, result, answer, level = (f"{V1.name}:{r.offset}" for r in records_of(V1)[1:])
    # An entry whose only content is a tool call has no text message: just the call's.
    assert [m.key for m in messages(chunks)] == [
        prompt,
        f"{call}:call:tc_v1_mv",
        result,
        answer,
        level,
    ]
    failed = next(m for m in messages(chunks) if m.role == "tool")
    assert (failed.kind, failed.tool_result) == ("tool_error", "fatal: not under version control")


def test_usage_is_keyed_by_the_entry_timestamp_and_survives_pis_rewrite_of_v1() -> None:
    records = records_of(V1)
    v1_keys = [u.usage_key for u in usage(parse(V1, records))]
    assert v1_keys == [
        "pi:4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8:2025-11-15T08:00:02.000Z",
        "pi:4e5f6a7b-8c9d-4e0f-a1b2-c3d4e5f6a7b8:2025-11-15T08:00:04.000Z",
    ]
    # pi migrates a v1 file to v3 when it opens it: new entry ids, new offsets.
    migrated: list[Record] = []
    offset = 0
    for n, r in enumerate(records):
        obj = dict(r.obj)
        if obj["type"] == "session":
            obj["version"] = 3
        else:
            obj["id"], obj["parentId"] = f"m{n:07d}", f"m{n - 1:07d}"
        migrated.append(Record(n + 1, offset, obj))
        offset += len(orjson.dumps(obj)) + 1
    chunks = parse(V1, migrated)
    assert [u.usage_key for u in usage(chunks)] == v1_keys
    assert not {m.key for m in messages(chunks)} & {m.key for m in messages(parse(V1, records))}


def test_a_fork_skips_the_history_it_copied() -> None:
    state: dict[str, Any] = {}
    chunks = parse(FORK, state=state)
    assert state["copied"] == 6
    meta = merged(chunks)
    assert (meta["parent"], meta["relation"]) == (PI_V3, "fork")
    copied = {r.obj.get("id") for r in records_of(V3)}
    assert not copied & {m.key for m in messages(chunks)}
    assert [u.usage_key for u in usage(chunks)] == [
        "pi:0196b1c2-d3e4-7f50-b6c7-d8e9f0a1b2c3:2026-04-03T08:00:05.000Z"
    ]
    assert str(meta["start"]) == "2026-04-03 08:00:00+00:00"


def lines_to_records(lines: list[dict[str, Any]]) -> list[Record]:
    """Records for in-memory lines (offsets are nominal: 100 bytes a line)."""
    return [Record(number, (number - 1) * 100, obj) for number, obj in enumerate(lines, 1)]


def merged_sets(chunks: list[ParsedChunk]) -> dict[str, Any]:
    """Chunk metadata gathered per field (a set of the values each chunk gave)."""
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
    meta = merged_sets(chunks)
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
    custom, unknown = by_key["b0000007"], by_key["b0000008"]
    assert custom.role == "event" and custom.raw is not None and custom.raw["data"] == {"n": 1}
    assert unknown.role == "event" and unknown.raw is not None and unknown.raw["extra"] == [1, 2]
    assert by_key["b0000009"].text == "[image]"
    assert "AAAA" not in repr(by_key["b0000009"])


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


def test_default_roots(tmp_path: Path) -> None:
    home = tmp_path
    assert pi.default_roots({}, home) == [home / ".pi" / "agent" / "sessions"]
    env = {"PI_CODING_AGENT_SESSION_DIR": "/s", "PI_CODING_AGENT_DIR": "/a"}
    assert pi.default_roots(env, home) == [
        Path("/s"), Path("/a/sessions"), home / ".pi" / "agent" / "sessions"
    ]  # fmt: skip
    assert pi.name == "pi" and pi.env_roots == (
        "PI_CODING_AGENT_SESSION_DIR",
        "PI_CODING_AGENT_DIR",
    )


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
    assert merged_sets(first)["title"] == "Fix the flaky test"
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
    assert merged_sets(first + later)["title"] == "Flaky test hunt"
