"""A launched session is attributed and its skill uses credited whatever stops an import:
SIGKILL at several points of ``viva import``, SIGTERM to ``viva import --watch``; the
next run finishes the job and no process of the killed import is left."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select

from tests.store.test_skillset_support import T0, set_born, set_now
from tests.store.test_skillset_uses import (
    CWD,
    NATIVE,
    PROJECTED_READ,
    SKILL_TOOL,
    events,
    import_claude,
    launched_session,
)
from viva_store.db.schema import ATTRIBUTION, MESSAGE
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.importing.prepare import session_id
from viva_store.members.executions import finish_execution, start_execution
from viva_store.store import Context

REPO = Path(__file__).resolve().parents[2]
SID = session_id("claude-code", NATIVE)
TURNS = (
    Turn("look around", "ok", tool="Read", tool_input={"file_path": f"{CWD}/README.md"}),
    SKILL_TOOL,
    Turn("and then", "fine"),
    PROJECTED_READ,  # several transactions after the first
)


def launched(ctx: Context, monkeypatch: pytest.MonkeyPatch, root: Path) -> str:
    """An ended execution of deven's and its session's transcript under ``root``."""
    set_born(ctx, T0 - timedelta(days=90))
    set_now(monkeypatch, T0)
    run = start_execution(ctx, "deven", "claude-code", CWD, native_session_id=NATIVE)
    launched_session(root, TURNS)
    for n in range(3):  # other people's sessions beside it
        claude_code(
            root,
            SessionSpec(
                native_id=f"00000000-0000-4000-8000-00000000b00{n}",
                cwd="/home/else/where",
                start=T0 + timedelta(minutes=n),
                turns=(Turn("hello", "hi"), Turn("more", "sure")),
                model="claude-sonnet-4",
            ),
        )
    set_now(monkeypatch, T0 + timedelta(minutes=30))
    finish_execution(ctx, run.id, 0)
    return run.id


def child(mode: str, at: int, root: Path, *extra: str) -> subprocess.Popen[bytes]:
    """The importer in a process group of its own (so its workers can be found)."""
    argv = [sys.executable, "-m", "tests.importing.import_child", mode, str(at), str(root)]
    with open(root.parent / "child.out", "wb") as out:
        return subprocess.Popen(
            [*argv, *extra], cwd=REPO, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )


def output(root: Path) -> str:
    return (root.parent / "child.out").read_text(errors="replace")


def assert_group_gone(pgid: int) -> None:
    """No process of the group is left (workers exit once their parent is gone)."""
    for _ in range(200):
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.05)
    leftover = subprocess.run(["ps", "-o", "pid,args", "-g", str(pgid)], capture_output=True)
    raise AssertionError(f"processes of the import are left: {leftover.stdout.decode()}")


def stored_keys(ctx: Context) -> int:
    return len(
        ctx.store.read(
            lambda c: c.execute(select(MESSAGE.c.key).where(MESSAGE.c.session_id == SID)).all()
        )
    )


def assert_finished(ctx: Context, run_id: str) -> None:
    """After a normal run: attributed to deven by the execution, both uses credited."""
    import_claude(ctx, Path())  # nothing new to read there: only what is stored counts
    row = ctx.store.read(
        lambda c: c.execute(select(ATTRIBUTION).where(ATTRIBUTION.c.session_id == SID)).one()
    )
    assert (row.status, row.member, row.source) == ("attributed", "deven", "execution")
    used = events(ctx, "used")
    assert sorted(u.skill for u in used) == ["code-review", "sqlite-migrations"]
    assert {(u.session_id, u.execution_id) for u in used} == {(SID, run_id)}


@pytest.mark.parametrize(
    ("mode", "at"),
    [
        ("kill-in-commit", 1),  # the session's first transaction is lost whole
        ("kill-after-commit", 1),  # the session is stored in part
        ("kill-in-commit", 3),
        ("kill-before-record", 0),  # everything stored, the run not recorded
        ("kill-with-workers", 1),
    ],
)
def test_a_killed_import_is_finished_by_the_next_run(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cli_env: str, mode: str, at: int
) -> None:
    root = tmp_path / "claude"
    run_id = launched(ctx, monkeypatch, root)
    proc = child(mode, at, root)
    assert proc.wait(timeout=120) == -signal.SIGKILL, output(root)
    assert_group_gone(proc.pid)
    if mode == "kill-after-commit":
        # Stored in part, and attributed with what was stored already.
        assert 0 < stored_keys(ctx) < 2 * len(TURNS) + 2
        [row] = ctx.store.read(
            lambda c: c.execute(select(ATTRIBUTION).where(ATTRIBUTION.c.session_id == SID)).all()
        )
        assert (row.status, row.member) == ("attributed", "deven")
    import_claude(ctx, root)
    assert_finished(ctx, run_id)


def test_sigterm_stops_the_watcher_mid_batch_and_the_next_run_attributes(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, cli_env: str
) -> None:
    root = tmp_path / "claude"
    run_id = launched(ctx, monkeypatch, root)
    proc = child("hold-in-commit", 2, root, "--watch")
    held = tmp_path / "held"
    for _ in range(1200):
        if held.exists():
            break
        assert proc.poll() is None, output(root)
        time.sleep(0.05)
    assert held.exists(), output(root)
    os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=30) == 0, output(root)
    assert "stopped watching" in output(root)
    assert_group_gone(proc.pid)
    import_claude(ctx, root)
    assert_finished(ctx, run_id)
