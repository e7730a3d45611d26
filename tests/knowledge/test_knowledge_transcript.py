"""A read of an item's body in a session Viva launched, seen in its transcript, is a use."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from tests.store.test_principles_support import make_sessions
from tests.store.test_skillset_support import T0, set_born, set_now
from tests.store.test_skillset_uses import CWD, NATIVE, import_claude, launched_session
from viva_store.demo.harness_files import Turn
from viva_store.importing.prepare import session_id
from viva_store.knowledge import service as knowledge
from viva_store.knowledge.transcript import items_read
from viva_store.members.executions import finish_execution, start_execution
from viva_store.store import Context


def test_shell_and_mcp_reads_are_found_and_nothing_else() -> None:
    calls = [
        (1, "Bash", "viva knowledge show k0000abcd"),
        (2, "mcp__viva__knowledge_show", '{"id": "k1111abcd"}'),
        (3, "Bash", "viva knowledge list --json"),
        (4, "Bash", "viva knowledge show --project alpha k0000abcd"),
        (5, "Read", "/notes/k2222abcd.md"),
    ]
    assert items_read(calls) == {"k0000abcd": [1, 4], "k1111abcd": [2]}


def test_a_launched_sessions_read_records_one_use_per_item(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    set_born(ctx, T0 - timedelta(days=90))
    set_now(monkeypatch, T0 - timedelta(days=2))
    made = make_sessions(
        ctx, tmp_path / "earlier", {"deven": 1, "alice": 1}, T0 - timedelta(days=3)
    )
    mine = knowledge.propose(ctx, "deven", "team_knowledge", "Pin the base image", "costly",
                             made["deven"], evidence="a broken build")  # fmt: skip
    alices = knowledge.propose(ctx, "alice", "personal_memory", "Alice's own habit", "costly",
                               made["alice"], evidence="hers")  # fmt: skip
    for item in (mine, alices):
        knowledge.admit(ctx, item)
    set_now(monkeypatch, T0)
    run = start_execution(ctx, "deven", "claude-code", CWD, native_session_id=NATIVE)
    show = f"viva knowledge show {mine}"
    launched_session(
        tmp_path / "claude",
        (
            Turn("check", "ok", tool="Bash", tool_input={"command": show}),
            Turn("again", "ok", tool="Bash", tool_input={"command": show}),
            Turn(
                "peek", "ok", tool="Bash", tool_input={"command": f"viva knowledge show {alices}"}
            ),
        ),
    )
    set_now(monkeypatch, T0 + timedelta(minutes=30))
    finish_execution(ctx, run.id, 0)
    import_claude(ctx, tmp_path / "claude")
    import_claude(ctx, tmp_path / "claude")  # again: nothing more
    used = knowledge.get_item(ctx, mine)
    assert used.words == "reused 1 time"
    assert used.used_in == (session_id("claude-code", NATIVE),)
    assert used.history[-1].actor == "viva" and "transcript" in used.history[-1].reason
    # alice's personal memory is not deven's to use: no use recorded
    assert knowledge.get_item(ctx, alices).uses == 0
