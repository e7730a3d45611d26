"""The transcript dialog's actions: resume after a yes (with a stand-in ``claude`` on
PATH), copy, export, find, and following a link to a sub-agent's session."""

from __future__ import annotations

import contextlib
import os
import stat
from datetime import UTC, datetime
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Input

from tests.fixture_layout import lay_out
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.importing.pipeline import run_import
from viva_store.sessions.service import get_session
from viva_store.store import Context
from viva_tui.app import VivaApp
from viva_tui.dialogs.confirm import ConfirmModal
from viva_tui.dialogs.transcript import TranscriptDialog
from viva_tui.widgets.timeline_pane import TimelinePane
from viva_tui.widgets.transcript import TranscriptView

from .helpers import drive, settle

NATIVE = "d1a10900-0000-4000-8000-000000000077"
CART = "7d3e5f10-2b4c-4d6e-8f01-23456789abcd"
STAND_IN = """#!/bin/sh
{{ pwd; for a in "$@"; do printf '%s\\n' "$a"; done; }} > "{record}"
"""


def _import(ctx: Context, root: Path) -> None:
    for _ in run_import(ctx, ["claude-code"], {"claude-code": str(root)}):
        pass


@pytest.fixture
def session_here(demo_ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A Claude Code session run in ``tmp_path/work`` (in the demo store), the fixtures'
    sessions with sub-agents, and a stand-in ``claude`` that records how it was run."""
    work = tmp_path / "work"
    work.mkdir()
    turns = (
        Turn("first question about the cache", "an answer"),
        Turn("second question", "the cache again, here"),
    )
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    claude_code(tmp_path / "claude", SessionSpec(NATIVE, str(work), start, turns, "m"))
    _import(demo_ctx, tmp_path / "claude")
    _import(demo_ctx, lay_out("claude-code", tmp_path / "fixtures"))
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "claude"
    exe.write_text(STAND_IN.format(record=tmp_path / "ran.txt"), "utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    return work


async def open_dialog(pilot: Pilot[None], ref: str) -> TranscriptDialog:
    await settle(pilot)
    pilot.app.screen_stack[0].open_transcript(ref)  # type: ignore[attr-defined]
    await settle(pilot)
    dialog = pilot.app.screen
    assert isinstance(dialog, TranscriptDialog)
    return dialog


def test_resume_asks_first_and_runs_the_harness_in_the_sessions_folder(
    app: VivaApp, session_here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)  # headless: no terminal

    async def script(pilot: Pilot[None]) -> None:
        await open_dialog(pilot, NATIVE)
        await pilot.press("r")
        await settle(pilot)
        modal = pilot.app.screen
        assert isinstance(modal, ConfirmModal)
        assert modal.detail == f"cd {session_here} && claude --resume {NATIVE}"
        await pilot.press("n")
        await settle(pilot)
        assert isinstance(pilot.app.screen, TranscriptDialog)
        assert not (tmp_path / "ran.txt").exists()
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(pilot.app.screen, ConfirmModal)
        await pilot.press("y")
        await settle(pilot)

    drive(app, script)
    assert (tmp_path / "ran.txt").read_text().splitlines() == [
        str(session_here),
        "--resume",
        NATIVE,
    ]


def test_copy_keys_put_the_command_the_id_and_a_message_on_the_clipboard(
    app: VivaApp, session_here: Path, demo_ctx: Context
) -> None:
    sid = get_session(demo_ctx, NATIVE).id

    async def script(pilot: Pilot[None]) -> list[str]:
        await open_dialog(pilot, NATIVE)
        copied = []
        for key in ("c", "y", "m"):
            await pilot.press(key)
            await settle(pilot)
            copied.append(pilot.app.clipboard)
        return copied

    command, copied_id, message = drive(app, script)
    assert command == f"cd {session_here} && claude --resume {NATIVE}"
    assert copied_id == sid
    assert "first question about the cache" in message


def test_e_exports_the_session_and_shows_the_path(
    app: VivaApp, session_here: Path, demo_home: Path
) -> None:
    async def script(pilot: Pilot[None]) -> list[str]:
        await open_dialog(pilot, NATIVE)
        await pilot.press("e")
        await settle(pilot)
        return [n.message for n in pilot.app._notifications]

    shown = drive(app, script)
    written = list((demo_home / "exports").glob("*.html"))
    assert len(written) == 1 and "first question about the cache" in written[0].read_text()
    assert any(str(written[0]) in text for text in shown)


def test_find_moves_between_the_messages_that_hold_the_text(
    app: VivaApp, session_here: Path
) -> None:
    async def script(pilot: Pilot[None]) -> list[int | None]:
        dialog = await open_dialog(pilot, NATIVE)
        view = dialog.query_one(TranscriptView)
        await pilot.press("ctrl+f")
        assert dialog.query_one("#find", Input).has_focus
        await pilot.press(*"CACHE", "enter")
        first = view.found
        await pilot.press("escape")  # closes find, not the dialog
        assert isinstance(pilot.app.screen, TranscriptDialog) and view.has_focus
        await pilot.press("n")
        second = view.found
        await pilot.press("N")
        return [first, second, view.found]

    first, second, back = drive(app, script)
    assert first is not None and second is not None and first != second
    assert back == first


def test_a_linked_sub_agent_opens_with_enter(
    app: VivaApp, session_here: Path, demo_ctx: Context
) -> None:
    async def script(pilot: Pilot[None]) -> tuple[str, str]:
        await open_dialog(pilot, CART)
        await pilot.press("l", "enter")
        await settle(pilot)
        child = pilot.app.screen
        assert isinstance(child, TranscriptDialog)
        return child.transcript.session.id, child.transcript.session.relation or ""

    sid, relation = drive(app, script)
    assert (
        relation == "subagent"
        and get_session(demo_ctx, sid).parent_id == get_session(demo_ctx, CART).id
    )


def _keeper(tmp_path: Path, name: str, body: str) -> Path:
    exe = tmp_path / name
    exe.write_text(f"#!/bin/sh\n{body}\n", "utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return exe


def test_p_hands_the_transcript_to_the_pager_and_o_a_message_to_the_editor(
    app: VivaApp, session_here: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paged, edited = tmp_path / "paged.txt", tmp_path / "edited.txt"
    monkeypatch.setenv("PAGER", str(_keeper(tmp_path, "pager", f'cat > "{paged}"')))
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(_keeper(tmp_path, "editor", f'cp "$1" "{edited}"')))
    monkeypatch.setattr(app, "suspend", contextlib.nullcontext)

    async def script(pilot: Pilot[None]) -> None:
        await open_dialog(pilot, NATIVE)
        await pilot.press("p")
        await settle(pilot)
        await pilot.press("o")
        await settle(pilot)

    drive(app, script)
    assert "first question about the cache" in paged.read_text()
    assert "the cache again, here" in paged.read_text() and "### user" in paged.read_text()
    assert "first question about the cache" in edited.read_text()
    assert "second question" not in edited.read_text()  # the one message, not the transcript


def test_e_in_the_timeline_exports_the_highlighted_session(
    app: VivaApp, demo_home: Path, demo_ctx: Context
) -> None:
    async def script(pilot: Pilot[None]) -> str | None:
        await settle(pilot)
        screen = pilot.app.screen
        screen.choose_member("deven", announce=False)  # type: ignore[attr-defined]
        await pilot.press("3")
        await settle(pilot)
        pane = screen.query_one(TimelinePane)
        for _ in range(8):  # past the day headings and skill events to a session
            if pane._current_session():
                break
            await pilot.press("down")
        sid = pane._current_session()
        await pilot.press("e")
        await settle(pilot)
        return sid

    sid = drive(app, script)
    assert sid is not None and get_session(demo_ctx, sid).member == "deven"
    written = list((demo_home / "exports").glob(f"*_{sid}.html"))
    assert len(written) == 1 and "<!DOCTYPE html>" in written[0].read_text()
