"""Hermes reader: legacy session JSON fixtures and a state.db built from SCHEMA_SQL."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.harness.support import read_whole
from tests_shared.conftest import SHARED
from viva_store.importing.harness.hermes.reader import READER as hermes
from viva_store.importing.harness.model import ParsedChunk, Problem, SourceFile

HERMES = (SHARED / "hermes").resolve()


# A subset of SCHEMA_SQL (NousResearch/hermes-agent hermes_state_common.py, SCHEMA_VERSION 30).
SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY, source TEXT NOT NULL, user_id TEXT, model TEXT, model_config TEXT,
    system_prompt TEXT, parent_session_id TEXT, started_at REAL NOT NULL, ended_at REAL,
    end_reason TEXT, message_count INTEGER DEFAULT 0, tool_call_count INTEGER DEFAULT 0,
    input_tokens INTEGER DEFAULT 0, output_tokens INTEGER DEFAULT 0,
    cache_read_tokens INTEGER DEFAULT 0, cache_write_tokens INTEGER DEFAULT 0,
    reasoning_tokens INTEGER DEFAULT 0, cwd TEXT, git_branch TEXT, git_repo_root TEXT,
    title TEXT, title_source TEXT, last_activity_at REAL, profile_name TEXT,
    archived INTEGER NOT NULL DEFAULT 0,
    FOREIGN KEY (parent_session_id) REFERENCES sessions(id));
CREATE TABLE messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL REFERENCES sessions(id),
    role TEXT NOT NULL, content TEXT, tool_call_id TEXT, tool_calls TEXT, tool_name TEXT,
    timestamp REAL NOT NULL, token_count INTEGER, finish_reason TEXT, reasoning TEXT,
    reasoning_content TEXT, reasoning_details TEXT, codex_reasoning_items TEXT,
    _compressed_summary INTEGER NOT NULL DEFAULT 0, active INTEGER NOT NULL DEFAULT 1,
    compacted INTEGER NOT NULL DEFAULT 0, display_kind TEXT);
CREATE TABLE session_model_usage (
    session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE, model TEXT NOT NULL,
    billing_provider TEXT NOT NULL DEFAULT '', input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (session_id, model, billing_provider));
"""
T0 = 1777500000.0  # 2026-04-29T21:20:00Z


def read(source: SourceFile) -> tuple[list[ParsedChunk], list[Problem]]:
    return read_whole(hermes, source)


def by_id(chunks: list[ParsedChunk]) -> dict[str, ParsedChunk]:
    return {c.meta.native_id: c for c in chunks}


def insert(conn: sqlite3.Connection, table: str, **values: Any) -> None:
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", tuple(values.values()))


def build_state_db(path: Path) -> Path:
    """A state.db with a CLI session, its compression continuation and a sub-agent run."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    insert(conn, "sessions", id="20260429_212000_abc123", source="cli", model="claude-sonnet-4-6",
           started_at=T0, ended_at=T0 + 60, end_reason="compression", cwd="/home/u/proj",
           git_branch="main", git_repo_root="/home/u/proj", title="Fix the parser",
           title_source="user", input_tokens=1200, output_tokens=340, cache_read_tokens=5000,
           cache_write_tokens=800, reasoning_tokens=50)  # fmt: skip
    root_id = "20260429_212000_abc123"
    insert(conn, "sessions", id="20260429_212100_def456", source="cli", model="claude-sonnet-4-6",
           parent_session_id=root_id, started_at=T0 + 61, title="Fix the parser #2",
           title_source="derived", model_config=orjson.dumps({"cwd": "/home/u/proj"}).decode(),
           input_tokens=10, output_tokens=2)  # fmt: skip
    insert(conn, "sessions", id="a1b2c3d4", source="telegram", model="gpt-5.2",
           parent_session_id=root_id, started_at=T0 + 30,
           model_config=orjson.dumps({"_delegate_from": root_id}).decode())  # fmt: skip
    insert(conn, "session_model_usage", session_id=root_id, model="haiku-aux")
    sid = root_id
    function = {"name": "terminal", "arguments": '{"command": "pytest -q"}'}
    calls = [{"id": "call_1", "type": "function", "function": function}]
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,QUJDRA=="}}
    parts = [{"type": "text", "text": "What is in this screenshot?"}, image]
    rows = [
        dict(role="user", content="Run the tests", timestamp=T0 + 1),
        dict(role="assistant", content="", tool_calls=orjson.dumps(calls).decode(),
             reasoning="Tests first.", timestamp=T0 + 2),
        dict(role="tool", content="3 passed", tool_call_id="call_1", tool_name="terminal",
             timestamp=T0 + 3),
        dict(role="assistant", content="old answer", timestamp=T0 + 4, active=0),
        dict(role="user", content="\x00json:" + orjson.dumps(parts).decode(), timestamp=T0 + 5),
        dict(role="assistant", content="All 3 tests pass.", finish_reason="stop", timestamp=T0 + 6),
    ]  # fmt: skip
    for row in rows:
        insert(conn, "messages", session_id=sid, **row)
    insert(conn, "messages", session_id="20260429_212100_def456", role="user", content="go on",
           timestamp=T0 + 62)  # fmt: skip
    conn.commit()
    conn.close()
    return path


# -- legacy JSON fixtures ------------------------------------------------------------

LEGACY = {
    # file: (session id, model, cwd, originator, start, end, roles)
    "small.json": (
        "20260429_hermes_small", "claude-sonnet-4-6", "/tmp/hermes-small", "cli",
        "2026-04-29T20:00:00+00:00", "2026-04-29T20:00:04+00:00", ["user", "assistant"],
    ),
    "large.json": (
        "20260429_hermes_large", "gpt-5.2", "~/Repository/Codex-History", "telegram",
        "2026-04-29T20:05:00+00:00", "2026-04-29T20:05:12+00:00",
        ["user", "assistant", "assistant", "assistant", "tool", "assistant", "event"],
    ),
    "schema_drift.json": (
        "20260429_hermes_schema_drift", "gpt-5.2", "/tmp/hermes-drift", "cli",
        "2026-04-29T20:10:00+00:00", "2026-04-29T20:10:08+00:00",
        ["user", "assistant", "assistant", "tool", "event"],
    ),
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(LEGACY))
def test_legacy_fixture_facts(name: str) -> None:
    sid, model, cwd, originator, start, end, roles = LEGACY[name]
    chunks, problems = read(SourceFile("hermes", HERMES / name, "json"))
    assert problems == []
    (chunk,) = chunks
    meta = chunk.meta
    assert (meta.native_id, meta.cwd, meta.originator) == (sid, cwd, originator)
    assert meta.models == {model}
    assert meta.title is None and meta.parent_native_id is None
    assert meta.started_at is not None and meta.started_at.isoformat() == start
    assert meta.ended_at is not None and meta.ended_at.isoformat() == end
    assert [m.role for m in chunk.messages] == roles
    assert chunk.usage == []  # legacy logs carry no token counts
    assert len({m.key for m in chunk.messages}) == len(chunk.messages)


def test_legacy_tool_calls_and_reasoning() -> None:
    (chunk,), _ = read(SourceFile("hermes", HERMES / "large.json", "json"))
    msgs = {m.key: m for m in chunk.messages}
    assert msgs["json:1:thinking"].text == "Need a shell lookup."  # reasoning == reasoning_content
    call = msgs["json:1:call:call_001"]
    assert (call.tool, call.tool_input, call.kind) == ("shell", "pwd", "tool_call")
    result = msgs["json:2"]
    assert (result.tool, result.tool_result) == ("shell", "/Users/alexm/Repository/Codex-History")
    assert msgs["json:4"].kind == "session_meta" and msgs["json:4"].raw == {"role": "session_meta"}
    (drift,), _ = read(SourceFile("hermes", HERMES / "schema_drift.json", "json"))
    failed = next(m for m in drift.messages if m.role == "tool")
    assert (failed.kind, failed.tool, failed.tool_result) == ("tool_error", "memory", "No results.")
    call = next(m for m in drift.messages if m.kind == "tool_call")
    assert call.tool_input == "session format"


# -- state.db ------------------------------------------------------------------------


# -- discovery, roots, DB wins ---------------------------------------------------------


def test_discover_profiles_and_db_wins(tmp_path: Path) -> None:
    build_state_db(tmp_path / "state.db")
    build_state_db(tmp_path / "profiles" / "work" / "state.db")
    (tmp_path / "sessions").mkdir()
    (tmp_path / "profiles" / "work" / "sessions").mkdir()
    shutil.copy(HERMES / "small.json", tmp_path / "sessions" / "session_20260429_hermes_small.json")
    legacy_in_db = {"session_id": "20260429_212000_abc123", "messages": [{"role": "user"}]}
    (tmp_path / "sessions" / "session_20260429_212000_abc123.json").write_bytes(
        orjson.dumps(legacy_in_db)
    )
    shutil.copy(
        HERMES / "large.json", tmp_path / "profiles" / "work" / "sessions" / "session_x.json"
    )
    (tmp_path / "sessions" / "notes.txt").write_text("x")
    sources = list(hermes.discover(tmp_path))
    assert [(str(s.path.relative_to(tmp_path)), s.kind) for s in sources] == [
        ("state.db", "sqlite"),
        ("profiles/work/state.db", "sqlite"),
        ("sessions/session_20260429_212000_abc123.json", "json"),
        ("sessions/session_20260429_hermes_small.json", "json"),
        ("profiles/work/sessions/session_x.json", "json"),
    ]
    legacy = {s.path.name: read(s)[0] for s in sources if s.kind == "json"}
    assert legacy["session_20260429_212000_abc123.json"] == []  # the database has it
    assert [c.meta.native_id for c in legacy["session_20260429_hermes_small.json"]] == [
        "20260429_hermes_small"
    ]
    assert [c.meta.native_id for c in legacy["session_x.json"]] == ["20260429_hermes_large"]
    assert list(hermes.discover(tmp_path / "missing")) == []
