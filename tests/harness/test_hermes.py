"""Hermes reader: what is specific to its stores, over the project's fixtures.

``state.db`` (built from ``tests/fixtures/hermes/state.sql``): live rows only,
structured content, lineage and per-session token totals; legacy
``session_<id>.json`` logs; the database wins over a log of the same session.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from tests.fixture_layout import build_state_db, lay_out, root
from tests.harness.cases import HM_ROOT
from tests.harness.support import read_whole
from viva_store.importing.harness.hermes.reader import READER as hermes
from viva_store.importing.harness.model import ParsedChunk, Problem, SourceFile

HM = root("hermes")
T0 = 1773133200.0  # 2026-03-10T09:00:00Z, the root session's start in state.sql


def read(source: SourceFile) -> tuple[list[ParsedChunk], list[Problem]]:
    return read_whole(hermes, source)


@pytest.fixture
def state_db(tmp_path: Path) -> Path:
    return build_state_db(HM / "state.sql", tmp_path / "state.db")


def test_a_state_db_session_and_its_live_messages(state_db: Path) -> None:
    chunks, problems = read(SourceFile("hermes", state_db, "sqlite"))
    assert problems == []
    sessions = by_id(chunks)
    assert list(sessions) == [HM_ROOT, "b7c8d9e0", "20260310_090130_def456"]  # by start
    root_session = sessions[HM_ROOT]
    meta = root_session.meta
    assert (meta.cwd, meta.git_branch, meta.project) == ("/home/dev/shop", "main", "/home/dev/shop")
    assert (meta.title, meta.originator) == ("Fix the flaky cart test", "cli")
    assert meta.models == {"claude-sonnet-4-6", "claude-haiku-4-5"}  # + session_model_usage
    assert meta.started_at is not None and meta.started_at.timestamp() == T0
    assert meta.ended_at is not None and meta.ended_at.timestamp() == T0 + 90
    assert [(m.key, m.role, m.kind) for m in root_session.messages] == [
        ("1", "user", ""),
        ("2:thinking", "assistant", "thinking"),
        ("2:call:call_db1", "assistant", "tool_call"),
        ("3", "tool", "tool_result"),
        ("5", "user", ""),  # row 4 was archived (active = 0)
        ("6", "assistant", ""),
    ]
    msgs = {m.key: m for m in root_session.messages}
    assert msgs["2:call:call_db1"].tool_input == "pytest -q -p randomly tests/test_cart.py"
    assert (msgs["3"].tool, msgs["3"].tool_result) == ("terminal", "1 failed, 3 passed")
    assert msgs["5"].text == "Here is the failure\n\n[image]"  # the \0json: sentinel's parts
    assert "ZmFpbA" not in repr(chunks)
    (usage,) = root_session.usage
    figures = (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens,
               usage.cache_write_tokens, usage.reasoning_tokens)  # fmt: skip
    assert (usage.usage_key, figures) == (f"hermes:{HM_ROOT}", (2100, 380, 7000, 900, 60))


def test_lineage_of_continuations_and_delegated_runs(state_db: Path) -> None:
    sessions = by_id(read(SourceFile("hermes", state_db, "sqlite"))[0])
    continuation = sessions["20260310_090130_def456"].meta
    assert (continuation.parent_native_id, continuation.relation) == (HM_ROOT, "continuation")
    assert continuation.cwd == "/home/dev/shop"  # from model_config
    assert sessions[HM_ROOT].meta.title_rank > continuation.title_rank  # user title > derived
    delegated = sessions["b7c8d9e0"]
    assert (delegated.meta.relation, delegated.meta.originator) == ("subagent", "telegram")
    assert delegated.messages == [] and delegated.usage == []


def test_a_legacy_log() -> None:
    (chunk,), problems = read(
        SourceFile("hermes", HM / "sessions" / "session_20260301_101500_a1b2c3.json", "json")
    )
    assert problems == []
    msgs = {m.key: m for m in chunk.messages}
    assert msgs["json:1:thinking"].text == "Ask git first."
    call = msgs["json:1:call:call_h1"]
    assert (call.tool, call.tool_input) == ("terminal", "git status --short")
    assert (msgs["json:2"].tool, msgs["json:2"].tool_result) == ("terminal", " M shop/cart.py\n")
    assert (msgs["json:4"].role, msgs["json:4"].kind) == ("event", "session_meta")
    # A time without an offset is taken as UTC.
    assert (
        chunk.meta.started_at is not None
        and chunk.meta.started_at.isoformat() == "2026-03-01T10:15:00+00:00"
    )
    assert chunk.usage == []  # legacy logs carry no token counts


def test_a_legacy_message_that_is_not_an_object_is_a_problem() -> None:
    path = HM / "profiles" / "phone" / "sessions" / "session_20260302_083000_d4e5f6.json"
    (chunk,), problems = read(SourceFile("hermes", path, "json"))
    assert [p.reason for p in problems] == ["message 2 is not an object"]
    assert [m.key for m in chunk.messages] == ["json:0", "json:1", "json:3"]
    assert chunk.messages[0].text == "Remind me what we fixed"


def test_the_database_wins_over_a_legacy_log_of_the_same_session(tmp_path: Path) -> None:
    home = lay_out("hermes", tmp_path)
    sources = list(hermes.discover(home))
    assert [(str(s.path.relative_to(home)), s.kind) for s in sources] == [
        ("state.db", "sqlite"),
        ("sessions/session_20260301_101500_a1b2c3.json", "json"),
        (f"sessions/session_{HM_ROOT}.json", "json"),
        ("profiles/phone/sessions/session_20260302_083000_d4e5f6.json", "json"),
    ]
    legacy = {s.path.name: read(s)[0] for s in sources if s.kind == "json"}
    assert legacy[f"session_{HM_ROOT}.json"] == []
    assert [c.meta.native_id for c in legacy["session_20260301_101500_a1b2c3.json"]] == [
        "20260301_101500_a1b2c3"
    ]


def by_id(chunks: list[ParsedChunk]) -> dict[str, ParsedChunk]:
    return {c.meta.native_id: c for c in chunks}


def insert(conn: sqlite3.Connection, table: str, **values: Any) -> None:
    columns = ", ".join(values)
    marks = ", ".join("?" for _ in values)
    conn.execute(f"INSERT INTO {table} ({columns}) VALUES ({marks})", tuple(values.values()))


def test_state_db_missing_columns(tmp_path: Path) -> None:
    db = tmp_path / "state.db"
    conn = sqlite3.connect(db)
    conn.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, source TEXT, started_at REAL);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY, session_id TEXT, role TEXT, content TEXT);"
    )
    insert(conn, "sessions", id="s1", source="cron", started_at=T0)
    insert(conn, "messages", session_id="s1", role="user", content="hello")
    insert(conn, "messages", session_id="s1", role="assistant", content=None)
    insert(conn, "messages", session_id="s1", role="weird-role", content="x")
    conn.commit()
    conn.close()
    (chunk,), problems = read(SourceFile("hermes", db, "sqlite"))
    assert problems == []
    assert chunk.meta.native_id == "s1" and chunk.meta.models == set()
    assert [(m.key, m.role, m.text) for m in chunk.messages] == [
        ("1", "user", "hello"),
        ("2", "assistant", ""),
        ("3", "event", ""),
    ]
    assert chunk.usage == []
    # no messages table at all: sessions still come through, with a problem
    bare = tmp_path / "bare" / "state.db"
    bare.parent.mkdir()
    conn = sqlite3.connect(bare)
    conn.executescript("CREATE TABLE sessions (id TEXT PRIMARY KEY, input_tokens INTEGER);")
    insert(conn, "sessions", id="s2", input_tokens=7)
    conn.commit()
    conn.close()
    (chunk,), problems = read(SourceFile("hermes", bare, "sqlite"))
    assert chunk.meta.native_id == "s2" and chunk.usage[0].input_tokens == 7
    assert [p.reason for p in problems] == ["no readable Hermes messages table"]


@pytest.mark.parametrize("content", [b"", b"garbage " * 100], ids=["empty", "garbage"])
def test_unusable_state_db(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "state.db"
    db.write_bytes(content)
    chunks, problems = read(SourceFile("hermes", db, "sqlite"))
    assert chunks == [] and len(problems) == 1


def test_locked_database_is_retried(tmp_path: Path) -> None:
    db = build_state_db(HM / "state.sql", tmp_path / "state.db")
    writer = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    writer.execute("BEGIN EXCLUSIVE")
    released = threading.Timer(0.3, lambda: writer.execute("COMMIT"))
    released.start()
    try:
        started = time.monotonic()
        chunks, problems = read(SourceFile("hermes", db, "sqlite"))
    finally:
        released.join()
        writer.close()
    assert problems == [] and len(chunks) == 3
    assert time.monotonic() - started >= 0.25


def test_legacy_json_problems(tmp_path: Path) -> None:
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    cases = {
        "session_a.json": b"{nope",
        "session_b.json": b"[]",
        "session_c.json": b'{"session_id": "c", "messages": {"not": "a list"}}',
        "session_d.json": b'{"messages": [1, {"role": "user", "content": [{"type": "text"}]}]}',
    }
    for name, content in cases.items():
        (sessions / name).write_bytes(content)
    results = {}
    for source in hermes.discover(tmp_path):
        results[source.path.name] = read(source)
    assert [p.reason.split(":")[0] for p in results["session_a.json"][1]] == ["not JSON"]
    assert [p.reason for p in results["session_b.json"][1]] == ["not a Hermes session log"]
    assert [p.reason for p in results["session_c.json"][1]] == ["not a Hermes session log"]
    chunks, problems = results["session_d.json"]
    assert chunks[0].meta.native_id == "d"  # from the file name
    assert [p.reason for p in problems] == ["message 0 is not an object"]


def test_default_roots(tmp_path: Path) -> None:
    assert hermes.default_roots({}, tmp_path) == [tmp_path / ".hermes"]
    assert hermes.default_roots({"HERMES_HOME": "/h"}, tmp_path) == [
        Path("/h"),
        tmp_path / ".hermes",
    ]
    assert hermes.name == "hermes" and hermes.env_roots == ("HERMES_HOME",)
