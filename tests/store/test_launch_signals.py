"""A launch interrupted: the user's files come back, the grant dies, the session lands.

``viva launch`` runs here as a real process (signals need one) around a stand-in
harness that writes its transcript and then waits to be stopped.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.cli.runner import run
from tests.store.test_launch_support import install, path_with, seen
from viva_store.access import OWNER
from viva_store.config import load_config
from viva_store.errors import GrantRefused
from viva_store.members.executions import list_executions
from viva_store.members.grants import resolve_actor
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.store import Context, Store

ORIGINAL = b"# Team notes\n\nKeep this exactly.\n"
pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: str) -> Path:
    folder = Path(os.path.realpath(tmp_path)) / "proj"
    folder.mkdir()
    (folder / "CLAUDE.md").write_bytes(ORIGINAL)
    install(tmp_path / "bin")
    monkeypatch.setenv("PATH", path_with(tmp_path / "bin"))
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "seen.json"))
    monkeypatch.setenv("STANDIN_READS", "code-review")
    monkeypatch.setenv("STANDIN_WAIT", "60")
    assert run(["init"]).code == 0
    return folder


def start(project: Path) -> subprocess.Popen[bytes]:
    """``viva launch deven --harness claude-code`` in its own process group; wait till the
    stand-in is up (its transcript written, the projection in place)."""
    argv = ["launch", "deven", "--harness", "claude-code", "--task", "x", "--cwd", str(project)]
    with open(project.parent / "viva.out", "wb") as out:  # the child keeps its own copy
        proc = subprocess.Popen(
            [sys.executable, "-m", "viva_tui.cli", *argv],
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    ready = Path(os.environ["STANDIN_LOG"] + ".ready")
    for _ in range(600):
        if ready.exists():
            break
        assert proc.poll() is None, (project.parent / "viva.out").read_text()
        time.sleep(0.05)
    assert b"<!-- viva:begin" in (project / "CLAUDE.md").read_bytes()
    return proc


def owner() -> Context:
    return Context(Store.open(load_config()), OWNER)


def assert_closed(project: Path, status: int) -> None:
    """Files restored, execution finished with ``status``, grant revoked, session attributed."""
    assert (project / "CLAUDE.md").read_bytes() == ORIGINAL
    assert sorted(p.name for p in project.iterdir()) == ["CLAUDE.md"]
    ctx = owner()
    try:
        [x] = list_executions(ctx, "deven")
        assert (x.exit_status, x.outcome) == (status, "failure")
        with pytest.raises(GrantRefused, match="revoked"):
            resolve_actor(ctx.store, seen(Path(os.environ["STANDIN_LOG"]))["env"]["VIVA_GRANT"])
        [session] = list_sessions(ctx, SessionFilter(member="deven"))
        assert session.native_id == x.native_session_id
    finally:
        ctx.store.close()


def test_sigterm_is_passed_to_the_harness_and_the_launch_cleans_up(project: Path) -> None:
    proc = start(project)
    os.kill(proc.pid, signal.SIGTERM)
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    assert_closed(project, 128 + signal.SIGTERM)


def test_ctrl_c_stops_the_harness_not_the_cleanup(project: Path) -> None:
    proc = start(project)
    os.killpg(proc.pid, signal.SIGINT)  # as a terminal does: the whole foreground group
    assert proc.wait(timeout=60) == 128 + signal.SIGINT
    assert_closed(project, 128 + signal.SIGINT)


def test_after_kill_9_the_next_launch_refuses_and_repair_restores(project: Path) -> None:
    proc = start(project)
    harness = seen(Path(os.environ["STANDIN_LOG"]))["pid"]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    os.kill(harness, signal.SIGKILL)
    assert b"<!-- viva:begin" in (project / "CLAUDE.md").read_bytes()

    again = run(["launch", "deven", "--harness", "claude-code", "--cwd", str(project)])
    assert again.code == 1
    assert "ended without restoring its files" in again.err
    assert "viva launch --repair" in again.err
    assert again.err.count("\n") == 1

    fixed = run(["launch", "--repair", "--cwd", str(project)])
    assert fixed.code == 0, fixed.err
    assert "4 files restored or removed" in fixed.out  # CLAUDE.md and three skills
    assert "attributed to deven" in fixed.out
    assert_closed(project, 255)
    assert run(["launch", "--repair"]).out == "nothing to repair\n"
