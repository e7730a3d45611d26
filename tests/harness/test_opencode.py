"""OpenCode reader: what is specific to its stores, over the project's fixtures.

The legacy ``storage/`` tree (parts per message, or flat in older builds) and
``opencode.db``, built here from the same tree; the database wins, and the tree
recovers only what the JSON→SQLite migration lost.
"""

from __future__ import annotations

import shutil
import sqlite3
from dataclasses import replace
from pathlib import Path

import orjson
import pytest

from tests.fixture_layout import LOST_IN_MIGRATION, build_opencode_db, lay_out, root
from tests.harness.cases import OC_MAIN
from tests.harness.support import read_whole, token_totals
from viva_store.importing.harness.common import TITLE_RANK_AI, TITLE_RANK_FIRST_PROMPT
from viva_store.importing.harness.model import ParsedChunk, Problem, SourceFile
from viva_store.importing.harness.opencode.reader import READER as opencode

OC = root("opencode")
STORAGE = OC / "storage"


def read(source: SourceFile) -> tuple[list[ParsedChunk], list[Problem]]:
    return read_whole(opencode, source)


def read_root(path: Path) -> tuple[list[ParsedChunk], list[Problem]]:
    chunks: list[ParsedChunk] = []
    problems: list[Problem] = []
    for source in opencode.discover(path):
        found, trouble = read(source)
        chunks += found
        problems += trouble
    return chunks, problems


def test_a_session_of_the_tree_and_its_parts() -> None:
    chunks, problems = read_root(OC)
    assert problems == []
    main = by_id(chunks)[OC_MAIN]
    assert [(m.key.split(":")[-1], m.role, m.kind) for m in main.messages] == [
        ("msg_shop_u1", "user", ""),
        ("prt_a1_step", "event", "step-start"),
        ("prt_a1_reason", "assistant", "thinking"),
        ("prt_a1_tool", "tool", "tool_result"),
        ("msg_shop_a1", "assistant", ""),  # its text, where its first text part was
        ("prt_a1_bad", "tool", "tool_error"),
        ("prt_a1_finish", "event", "step-finish"),
        ("msg_shop_a2", "assistant", ""),
        ("prt_a2_synth", "assistant", "synthetic"),
        ("prt_a2_patch", "event", "patch"),
    ]
    msgs = {m.key: m for m in main.messages}
    read_call = msgs["msg_shop_a1:prt_a1_tool"]
    assert (read_call.tool, read_call.tool_input) == ("read", "/home/dev/shop/checkout.py")
    assert msgs["msg_shop_a1:prt_a1_bad"].tool_result == "File changed on disk"
    assert msgs["msg_shop_a2"].text == (
        "Fixed: total() applies each coupon once.\n\n[file: text/x-python]"
    )
    assert msgs["msg_shop_a2:prt_a2_synth"].synthetic
    assert [u.usage_key for u in main.usage] == [
        f"opencode:{OC_MAIN}:msg_shop_a1",
        f"opencode:{OC_MAIN}:msg_shop_a2",
    ]
    assert main.meta.entrypoint == "build" and main.meta.project == "proj_shop"


def test_a_placeholder_title_ranks_below_a_written_one() -> None:
    sessions = by_id(read_root(OC)[0])
    assert sessions[OC_MAIN].meta.title_rank == TITLE_RANK_AI
    assert sessions["ses_shop_review"].meta.title_rank == TITLE_RANK_FIRST_PROMPT


def test_flat_parts_of_an_older_build_find_their_messages() -> None:
    notes = by_id(read_root(OC)[0])["ses_notes_search"]
    assert [(m.key, m.role) for m in notes.messages] == [
        ("msg_notes_u1", "user"),
        ("msg_notes_a1:prt_na1", "tool"),
        ("msg_notes_a1", "assistant"),
    ]
    assert notes.messages[1].tool_result == "index.py:3:CUTOFF = today()\n"


def test_bad_files_of_the_tree_are_problems(tmp_path: Path) -> None:
    storage = tmp_path / "storage"
    shutil.copytree(STORAGE, storage)
    (storage / "message" / OC_MAIN / "msg_0003.json").write_text("{broken")
    (storage / "part" / "msg_shop_u1" / "prt_0001.json").write_text("[1, 2]")
    (storage / "session" / "proj_shop" / "ses_zz.json").write_text("")
    chunks, problems = read_root(tmp_path)
    assert {c.meta.native_id for c in chunks} == {OC_MAIN, "ses_shop_review", "ses_notes_search"}
    reasons = sorted((Path(p.path).name, p.reason.split(":")[0]) for p in problems)
    assert reasons == [("msg_0003.json", "not JSON"), ("prt_0001.json", "not a JSON object"),
                       ("ses_zz.json", "not JSON")]  # fmt: skip


def test_the_database_reads_like_the_tree(tmp_path: Path) -> None:
    db = build_opencode_db(tmp_path / "opencode.db", STORAGE)
    chunks, problems = read(SourceFile("opencode", db, "sqlite"))
    assert problems == []
    tree = by_id(read_root(OC)[0])
    sessions = by_id(chunks)
    assert sessions.keys() == tree.keys()
    for sid, chunk in sessions.items():
        # the database's part JSON lacks the ids held in columns; everything else is equal
        assert [replace(m, raw=None) for m in chunk.messages] == [
            replace(m, raw=None) for m in tree[sid].messages
        ]
        assert chunk.usage == tree[sid].usage
        assert (chunk.meta.title, chunk.meta.parent_native_id) == (
            tree[sid].meta.title,
            tree[sid].meta.parent_native_id,
        )


def test_the_database_wins_and_the_tree_recovers_what_it_lost(tmp_path: Path) -> None:
    data = lay_out("opencode", tmp_path)
    sources = list(opencode.discover(data))
    assert [(s.path.name, s.kind) for s in sources] == [
        ("opencode.db", "sqlite"),
        ("ses_notes_search.json", "tree"),
        (f"{OC_MAIN}.json", "tree"),
        ("ses_shop_review.json", "tree"),
    ]
    db_chunks, _ = read(sources[0])
    tree_chunks = [c for s in sources[1:] for c in read(s)[0]]
    tree_keys = {m.key.split(":")[0] for c in tree_chunks for m in c.messages}
    assert tree_keys == LOST_IN_MIGRATION
    assert {m.key for c in db_chunks for m in c.messages}.isdisjoint(
        {m.key for c in tree_chunks for m in c.messages}
    )
    lost_usage = [u for c in tree_chunks for u in c.usage]
    assert token_totals(lost_usage) == (200, 60, 10500, 0, 0)  # msg_shop_a2's tokens, once


def by_id(chunks: list[ParsedChunk]) -> dict[str, ParsedChunk]:
    out: dict[str, ParsedChunk] = {}
    for chunk in chunks:
        assert chunk.meta.native_id not in out
        out[chunk.meta.native_id] = chunk
    return out


def test_database_children_tolerance_and_problems(tmp_path: Path) -> None:
    db = tmp_path / "opencode-beta.db"
    conn = sqlite3.connect(db)
    # an older / partial schema: few columns, no part table
    conn.executescript(
        "CREATE TABLE session (id TEXT, parent_id TEXT, title TEXT, directory TEXT);"
        "CREATE TABLE message (id TEXT, session_id TEXT, data TEXT);"
    )
    conn.execute("INSERT INTO session VALUES ('ses_parent', NULL, 'Parent', '/p')")
    conn.execute(
        "INSERT INTO session VALUES ('ses_child', 'ses_parent', 'Child session - x', '/p')"
    )
    conn.execute(
        "INSERT INTO message VALUES ('msg_1', 'ses_child', ?)",
        (orjson.dumps({"role": "assistant", "modelID": "m-1", "time": {"created": 1},
                       "tokens": {"input": 3, "output": 4, "reasoning": 5,
                                  "cache": {"read": 6, "write": 7}}}),),
    )  # fmt: skip
    conn.execute("INSERT INTO message VALUES ('msg_2', 'ses_child', '{not json')")
    conn.execute("INSERT INTO message VALUES ('msg_3', 'ses_child', ?)", (b'{"role": "tool"}',))
    conn.commit()
    conn.close()
    assert [s.path.name for s in opencode.discover(tmp_path)] == ["opencode-beta.db"]
    chunks, problems = read(SourceFile("opencode", db, "sqlite"))
    sessions = by_id(chunks)
    child = sessions["ses_child"]
    assert (child.meta.parent_native_id, child.meta.relation) == ("ses_parent", "subagent")
    assert sessions["ses_parent"].meta.title_rank > child.meta.title_rank  # placeholder title
    assert child.meta.models == {"m-1"}
    (usage,) = child.usage
    figures = (usage.input_tokens, usage.output_tokens, usage.reasoning_tokens,
               usage.cache_read_tokens, usage.cache_write_tokens)  # fmt: skip
    assert figures == (3, 4, 5, 6, 7)
    assert [(m.key, m.role) for m in child.messages] == [("msg_1", "assistant"), ("msg_3", "event")]
    assert [p.reason for p in problems] == ["message msg_2: data is not a JSON object"]


@pytest.mark.parametrize(
    "content", [b"", b"this is not a database at all, just text" * 20], ids=["empty", "garbage"]
)
def test_unusable_database_is_a_problem(tmp_path: Path, content: bytes) -> None:
    db = tmp_path / "opencode.db"
    db.write_bytes(content)
    chunks, problems = read(SourceFile("opencode", db, "sqlite"))
    assert chunks == []
    assert len(problems) == 1 and problems[0].path == str(db)


def test_missing_database_and_foreign_schema(tmp_path: Path) -> None:
    chunks, problems = read(SourceFile("opencode", tmp_path / "nope.db", "sqlite"))
    assert chunks == [] and len(problems) == 1
    other = tmp_path / "opencode.db"
    sqlite3.connect(other).executescript("CREATE TABLE sessions (x TEXT);")
    chunks, problems = read(SourceFile("opencode", other, "sqlite"))
    assert chunks == [] and [p.reason for p in problems] == ["no OpenCode session table"]


def test_database_opened_read_only(tmp_path: Path) -> None:
    db = build_opencode_db(tmp_path / "opencode.db", STORAGE)
    before = db.read_bytes()
    read(SourceFile("opencode", db, "sqlite"))
    assert db.read_bytes() == before
    assert not (tmp_path / "opencode.db-wal").exists()


def test_default_roots(tmp_path: Path) -> None:
    home = tmp_path
    assert opencode.default_roots({}, home) == [home / ".local" / "share" / "opencode"]
    env = {"OPENCODE_DATA_DIR": "/o", "XDG_DATA_HOME": "/x"}
    assert opencode.default_roots(env, home) == [
        Path("/o"), Path("/x/opencode"), home / ".local" / "share" / "opencode"
    ]  # fmt: skip
    assert list(opencode.discover(tmp_path / "missing")) == []
