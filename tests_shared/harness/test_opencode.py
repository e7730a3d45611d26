"""OpenCode reader: legacy storage fixtures, opencode.db built from its table definitions."""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import orjson

from tests.harness.support import read_whole
from tests_shared.conftest import SHARED
from viva_store.importing.harness.model import Message, ParsedChunk, Problem, SourceFile
from viva_store.importing.harness.opencode.reader import READER as opencode

OC = (SHARED / "opencode").resolve()
V2 = OC / "agent-sessions" / "storage_v2"
LEGACY = OC / "agent-sessions" / "storage_legacy"
CASS = OC / "cass"


# From packages/core/src/session/sql.ts (Drizzle): the tables a v1.2+ opencode.db holds.
SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
    time_created INTEGER, time_updated INTEGER);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, workspace_id TEXT,
    parent_id TEXT, fork_session_id TEXT, fork_message_id TEXT, slug TEXT NOT NULL,
    directory TEXT NOT NULL, path TEXT, title TEXT NOT NULL, version TEXT NOT NULL,
    share_url TEXT, summary_additions INTEGER, summary_deletions INTEGER, summary_files INTEGER,
    summary_diffs TEXT, metadata TEXT, cost REAL NOT NULL DEFAULT 0,
    tokens_input INTEGER NOT NULL DEFAULT 0, tokens_output INTEGER NOT NULL DEFAULT 0,
    tokens_reasoning INTEGER NOT NULL DEFAULT 0, tokens_cache_read INTEGER NOT NULL DEFAULT 0,
    tokens_cache_write INTEGER NOT NULL DEFAULT 0, revert TEXT, permission TEXT, agent TEXT,
    model TEXT, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
    time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id),
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE INDEX message_session_time_created_id_idx ON message (session_id, time_created, id);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id),
    session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
    data TEXT NOT NULL);
CREATE INDEX part_message_id_id_idx ON part (message_id, id);
"""


def read(source: SourceFile) -> tuple[list[ParsedChunk], list[Problem]]:
    return read_whole(opencode, source)


def read_root(root: Path) -> tuple[list[ParsedChunk], list[Problem]]:
    chunks: list[ParsedChunk] = []
    problems: list[Problem] = []
    for source in opencode.discover(root):
        found, trouble = read_whole(opencode, source)
        chunks += found
        problems += trouble
    return chunks, problems


def load(path: Path) -> dict[str, Any]:
    data = orjson.loads(path.read_bytes())
    assert isinstance(data, dict)
    return data


def build_db(path: Path, storage: Path, *, drop_messages: frozenset[str] = frozenset()) -> Path:
    """An opencode.db holding the sessions, messages and parts of a legacy storage tree.

    Rows are written the way the JSON→SQLite migration writes them: ids in
    columns, the rest of the JSON in ``data``.
    """
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    for session_file in sorted((storage / "session").glob("*/*.json")):
        s = load(session_file)
        conn.execute(
            "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version,"
            " time_created, time_updated, model) VALUES (?,?,?,?,?,?,?,?,?,?)",
            (s["id"], s.get("projectID", "global"), s.get("parentID"), s.get("slug", ""),
             s["directory"], s["title"], s.get("version", ""), s["time"]["created"],
             s["time"]["updated"], orjson.dumps({"id": "gpt-4o-mini", "providerID": "openai"})),
        )  # fmt: skip
        for message_file in sorted((storage / "message" / s["id"]).glob("*.json")):
            m = load(message_file)
            if m["id"] in drop_messages:
                continue
            data = {k: v for k, v in m.items() if k not in ("id", "sessionID")}
            created = m["time"]["created"]
            conn.execute(
                "INSERT INTO message VALUES (?,?,?,?,?)",
                (m["id"], s["id"], created, created, orjson.dumps(data)),
            )
            parts = sorted((storage / "part" / m["id"]).glob("*.json"))
            for step, part_file in enumerate(parts):
                p = load(part_file)
                pdata = {k: v for k, v in p.items() if k not in ("id", "sessionID", "messageID")}
                conn.execute(
                    "INSERT INTO part VALUES (?,?,?,?,?,?)",
                    (p["id"], m["id"], s["id"], created + step, created, orjson.dumps(pdata)),
                )
    conn.commit()
    conn.close()
    return path


def by_id(chunks: list[ParsedChunk]) -> dict[str, ParsedChunk]:
    out: dict[str, ParsedChunk] = {}
    for chunk in chunks:
        assert chunk.meta.native_id not in out
        out[chunk.meta.native_id] = chunk
    return out


def roles(messages: list[Message]) -> list[tuple[str, str]]:
    return [(m.role, m.kind) for m in messages]


LARGE_ROLES = [
    ("user", ""),
    ("tool", "tool_result"),
    ("assistant", "synthetic"),
    ("assistant", ""),
    ("assistant", "thinking"),
    ("event", "step-start"),
    ("event", "step-finish"),
    ("event", "compaction"),
    ("event", "patch"),
    ("user", ""),
    ("assistant", ""),
]


def check_storage_v2(sessions: dict[str, ParsedChunk]) -> None:
    assert set(sessions) == {"s_stage0_large", "s_stage0_small"}
    large = sessions["s_stage0_large"]
    meta = large.meta
    assert (meta.title, meta.cwd, meta.project) == ("OpenCode Large", "/tmp/large", "proj_test")
    assert meta.models == {"gpt-4o-mini"}
    assert meta.parent_native_id is None
    assert meta.started_at is not None and meta.started_at.timestamp() == 1730000100
    assert meta.ended_at is not None and meta.ended_at.timestamp() == 1730000109
    assert roles(large.messages) == LARGE_ROLES
    msgs = {m.key: m for m in large.messages}
    tool = msgs["m_assistant_large_1:p_tool_large_1"]
    assert (tool.tool, tool.tool_input) == ("bash", "ls /non-existent-directory")
    assert tool.tool_result == "ls: /non-existent-directory: No such file or directory\n"
    synthetic = msgs["m_assistant_large_1:p_text_large_1"]
    assert synthetic.synthetic and synthetic.text == "Command failed with exit code 1."
    main = msgs["m_assistant_large_1"]
    assert main.text == (
        "[file: text/plain]\n\n[error] MessageAbortedError: The operation was aborted."
    )
    assert main.model == "gpt-4o-mini"
    assert msgs["m_assistant_large_1:p_patch_large_1"].raw is not None
    assert [(u.usage_key, u.input_tokens, u.output_tokens) for u in large.usage] == [
        ("opencode:s_stage0_large:m_assistant_large_1", 120, 16)
    ]
    small = sessions["s_stage0_small"]
    assert (small.meta.title, small.meta.cwd) == ("OpenCode Small", "/tmp/repo")
    assert [(m.key, m.role, m.text) for m in small.messages] == [
        ("m_user_small", "user", "Hello"),
        ("m_assistant_small:p_tool_1", "tool", ""),
        ("m_assistant_small", "assistant", "Found 2 files."),
    ]
    assert small.messages[1].tool_result == "a.txt\nb.txt\n"
    assert small.usage == []


# -- legacy storage tree ------------------------------------------------------------


def test_storage_v2_tree() -> None:
    chunks, problems = read_root(V2)
    assert problems == []
    check_storage_v2(by_id(chunks))


def test_storage_legacy_flat_parts() -> None:
    chunks, problems = read_root(LEGACY)
    assert problems == []
    (chunk,) = chunks
    meta = chunk.meta
    assert (meta.native_id, meta.title, meta.cwd) == (
        "s_stage0_drift",
        "OpenCode Drift",
        "/tmp/drift",
    )
    assert meta.models == {"gpt-4o-mini"}
    assert [(m.key, m.role) for m in chunk.messages] == [
        ("m_user_drift", "user"),
        ("m_assistant_drift:prt_tool_1", "tool"),
        ("m_assistant_drift", "assistant"),
    ]
    assert chunk.messages[1].tool_input == "cat README.md"
    assert chunk.messages[1].tool_result == "# Title\n\nBody\n"
    assert chunk.messages[2].text == "Read README and extracted the title."


def test_cass_tree() -> None:
    sources = list(opencode.discover(CASS))
    assert [(s.path.name, s.kind) for s in sources] == [("ses_test1.json", "tree")]
    chunks, problems = read_root(CASS)
    assert problems == []
    (chunk,) = chunks
    assert (chunk.meta.native_id, chunk.meta.title) == ("ses_test1", "OpenCode JSON Session")
    assert chunk.meta.cwd == "/tmp/test-project" and chunk.meta.project == "proj1"
    assert chunk.meta.models == {"claude-3-opus"}
    # both messages have a part named part1: keys stay distinct
    assert [(m.key, m.role) for m in chunk.messages] == [
        ("msg_test1", "user"),
        ("msg_test2", "assistant"),
    ]
    assert chunk.messages[1].text.startswith("Of course! I'd be happy to help you with Rust.")


def test_tree_bad_files(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(V2, storage)
    (storage / "message" / "s_stage0_small" / "msg_0003.json").write_text("{broken")
    (storage / "part" / "m_user_small" / "002.json").write_text("[1, 2]")
    (storage / "session" / "proj_test" / "ses_zz.json").write_text("")
    chunks, problems = read_root(tmp_path)
    assert {c.meta.native_id for c in chunks} == {"s_stage0_large", "s_stage0_small"}
    reasons = sorted((Path(p.path).name, p.reason.split(":")[0]) for p in problems)
    assert reasons == [("002.json", "not a JSON object"), ("msg_0003.json", "not JSON"),
                       ("ses_zz.json", "not JSON")]  # fmt: skip


# -- opencode.db ------------------------------------------------------------------------


def test_database_reads_like_the_tree(tmp_path: Path) -> None:
    db = build_db(tmp_path / "opencode.db", V2)
    chunks, problems = read(SourceFile("opencode", db, "sqlite"))
    assert problems == []
    sessions = by_id(chunks)
    check_storage_v2(sessions)
    tree = by_id(read_root(V2)[0])
    for sid, chunk in sessions.items():
        # the DB's part JSON lacks the ids held in columns; everything else is equal
        assert [replace(m, raw=None) for m in chunk.messages] == [
            replace(m, raw=None) for m in tree[sid].messages
        ]
        assert chunk.usage == tree[sid].usage


def test_database_wins_over_tree(tmp_path: Path) -> None:
    shutil.copytree(V2, tmp_path / "storage")
    # the migration lost one message: the tree recovers exactly that one
    build_db(tmp_path / "opencode.db", V2, drop_messages=frozenset({"m_assistant_large_2"}))
    sources = list(opencode.discover(tmp_path))
    assert [(s.path.name, s.kind) for s in sources] == [
        ("opencode.db", "sqlite"),
        ("ses_s_stage0_large.json", "tree"),
        ("ses_s_stage0_small.json", "tree"),
    ]
    db_chunks, _ = read(sources[0])
    tree_chunks = [c for s in sources[1:] for c in read(s)[0]]
    db_keys = {m.key for c in db_chunks for m in c.messages}
    tree_keys = {m.key for c in tree_chunks for m in c.messages}
    assert tree_keys == {"m_assistant_large_2"}
    assert db_keys.isdisjoint(tree_keys)
    assert {c.meta.native_id for c in tree_chunks} == {"s_stage0_large", "s_stage0_small"}
