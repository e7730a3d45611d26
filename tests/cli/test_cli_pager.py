"""Long output on a terminal goes through ``$PAGER``; ``--no-pager`` and pipes never page."""

from __future__ import annotations

import os
import shutil
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.cli.runner import run
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_tui.commands import pager

NATIVE = "9a9e0000-0000-4000-8000-000000000001"


@pytest.fixture
def long_session(cli_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A 30-turn session, a terminal 20 lines high, and a stand-in pager that keeps what
    it was given; returns where it keeps it."""
    turns = tuple(Turn(f"question {n}", f"answer {n}") for n in range(30))
    start = datetime(2026, 6, 1, 9, tzinfo=UTC)
    claude_code(tmp_path / "claude", SessionSpec(NATIVE, "/src/x", start, turns, "m"))
    assert run(["import", "--root", f"claude-code={tmp_path / 'claude'}"]).code == 0
    kept = tmp_path / "paged.txt"
    exe = tmp_path / "stand-in-pager"
    exe.write_text(f'#!/bin/sh\ncat > "{kept}"\n', "utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PAGER", str(exe))
    monkeypatch.setattr(pager, "stdout_is_terminal", lambda: True)
    monkeypatch.setattr(shutil, "get_terminal_size", lambda: os.terminal_size((100, 20)))
    return kept


def test_a_long_show_goes_through_the_pager(long_session: Path) -> None:
    result = run(["session", "show", NATIVE])
    assert result.code == 0, result.err
    paged = long_session.read_text("utf-8")
    assert "question 29" in paged and "answer 0" in paged
    assert "question 29" not in result.out


def test_no_pager_prints_straight(long_session: Path) -> None:
    result = run(["session", "show", NATIVE, "--no-pager"])
    assert "question 29" in result.out and not long_session.exists()
    exported = run(["session", "export", NATIVE, "--no-pager"])
    assert "question 29" in exported.out and not long_session.exists()


def test_an_export_on_a_terminal_is_paged_and_json_never(long_session: Path) -> None:
    assert run(["session", "export", NATIVE]).out == ""
    assert "### user" in long_session.read_text("utf-8")
    long_session.unlink()
    assert '"messages"' in run(["session", "export", NATIVE, "--format", "json"]).out
    assert '"messages"' in run(["session", "show", NATIVE, "--json"]).out
    assert not long_session.exists()


def test_short_output_is_not_paged(long_session: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(shutil, "get_terminal_size", lambda: os.terminal_size((100, 500)))
    assert "question 29" in run(["session", "show", NATIVE]).out
    assert not long_session.exists()
