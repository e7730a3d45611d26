"""The app around the panes: themes, keys, errors, import progress, the command."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from textual.pilot import Pilot

from viva_store.config import Config, load_config
from viva_store.demo.harness_files import WRITERS, SessionSpec, Turn
from viva_store.sessions.service import SessionFilter, get_session, list_sessions
from viva_store.store import Context
from viva_tui import themes
from viva_tui.app import VivaApp
from viva_tui.dialogs.report import ReportDialog
from viva_tui.screens.backend import Backend
from viva_tui.widgets.import_bar import ImportBar
from viva_tui.widgets.triage_pane import TriagePane

from .conftest import open_context
from .helpers import drive, settle


def test_theme_choice_persists(demo_home: Path, demo_ctx: Context) -> None:
    async def switch(pilot: Pilot[None]) -> None:
        await settle(pilot)
        assert pilot.app.theme == "viva-dark"
        pilot.app.theme = "viva-light"
        await settle(pilot)

    drive(VivaApp(demo_ctx), switch)
    assert json.loads((demo_home / "ui.json").read_text())["theme"] == "viva-light"

    async def read(pilot: Pilot[None]) -> str:
        await settle(pilot)
        return pilot.app.theme

    assert drive(VivaApp(demo_ctx), read) == "viva-light"


def test_themes_define_every_semantic_variable() -> None:
    loaded = themes.load_themes([themes.shipped_theme_dir()])
    assert loaded.errors == []
    names = {t.name for t in loaded.themes}
    assert {"viva-dark", "viva-light", "viva-high-contrast"} <= names
    for theme in loaded.themes:
        assert set(themes.SEMANTIC_DEFAULTS) <= set(theme.variables), theme.name


def test_bad_user_themes_are_reported_together(demo_home: Path, demo_ctx: Context) -> None:
    folder = demo_home / "themes"
    folder.mkdir()
    (folder / "mine.yaml").write_text("name: mine\nprimary: '#123456'\n")
    (folder / "bad1.yaml").write_text("name: bad1\nprimary: notacolour\n")
    (folder / "bad2.yaml").write_text("name: bad2\nprimary: '#fff'\nvariables: {decay-curve: 12}\n")

    async def script(pilot: Pilot[None]) -> list[str]:
        await settle(pilot)
        assert "mine" in pilot.app.available_themes
        assert "bad1" not in pilot.app.available_themes
        return [n.message for n in pilot.app._notifications if n.title == "Themes not loaded"]

    [message] = drive(VivaApp(demo_ctx), script)
    assert "bad1.yaml" in message and "bad2.yaml" in message and "decay-curve" in message


def test_keys_are_remapped_by_id(demo_home: Path) -> None:
    config = demo_home / "config.toml"
    config.write_text(config.read_text() + '\n[keys]\n"triage.nobody" = "N"\n"nope" = "x"\n')
    ctx = open_context(demo_home)

    async def script(pilot: Pilot[None]) -> tuple[str | None, list[str]]:
        await settle(pilot)
        notes = [n.message for n in pilot.app._notifications]
        await pilot.press("2")
        await settle(pilot)
        pane = pilot.app.screen.query_one(TriagePane)
        sid = pane.current()
        await pilot.press("n")  # no longer bound: nothing happens
        await settle(pilot)
        assert get_session(ctx, sid or "").status == "unattributed"
        await pilot.press("N")
        await settle(pilot)
        return sid, notes

    sid, notes = drive(VivaApp(ctx), script)
    assert get_session(ctx, sid or "").status == "nobody"
    assert any("'nope'" in n for n in notes)
    ctx.store.close()


def test_worker_errors_are_shown_not_swallowed(
    demo_ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kw: object) -> None:
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(Backend, "page", broken)
    app = VivaApp(demo_ctx)

    async def script(pilot: Pilot[None]) -> list[tuple[str, str]]:
        await settle(pilot)
        await pilot.press("2")
        await settle(pilot)
        return [(n.title, n.message) for n in pilot.app._notifications]

    notes = drive(app, script)
    assert any("disk on fire" in message and "triage:page" in title for title, message in notes)


def test_requests_made_while_the_store_opens_wait_for_it(demo_home: Path) -> None:
    opened = threading.Event()
    contexts: list[Context] = []

    def connect() -> Context:
        opened.wait(20)
        contexts.append(open_context(demo_home))
        return contexts[0]

    app = VivaApp(connect, config=load_config({"VIVA_HOME": str(demo_home)}))

    async def script(pilot: Pilot[None]) -> None:
        await pilot.press("2", "ctrl+r")  # the store is not open yet
        await pilot.pause(0.2)
        assert not pilot.app.screen.query(TriagePane)
        assert [w.group for w in pilot.app.workers] == ["store:open"]  # the rest waits
        opened.set()
        await settle(pilot)
        assert isinstance(pilot.app.screen, ReportDialog)
        pane = pilot.app.screen_stack[0].query_one(TriagePane)
        assert pane.display and pane.order
        assert set(pane.keys) == {"samuel", "alice", "deven", "oliver", "victor"}

    try:
        drive(app, script)
    finally:
        for ctx in contexts:
            ctx.store.close()


def test_import_shows_progress_only_while_it_runs(demo_home: Path, demo_ctx: Context) -> None:
    root = demo_home / "harness-files" / "codex"
    before = {s.id for s in list_sessions(demo_ctx, SessionFilter(status="unattributed"))}
    spec = SessionSpec(
        "0b6f9a52-1111-4222-8333-444455556666",
        "/home/haisu/src/viva",
        get_session(demo_ctx, next(iter(before))).started_at,  # type: ignore[arg-type]
        (Turn("what changed in the importer today?", "Two readers gained resume support."),),
        "gpt-5-codex",
    )
    WRITERS["codex"](root, spec)
    seen: list[bool] = []
    original = ImportBar.advance

    def spy(bar: ImportBar, done: int, total: int, label: str) -> None:
        original(bar, done, total, label)
        seen.append(bool(bar.display))

    async def script(pilot: Pilot[None]) -> None:
        await settle(pilot)
        assert not [bar for bar in pilot.app.screen.query(ImportBar) if bar.display]
        ImportBar.advance = spy  # type: ignore[method-assign]
        try:
            await pilot.press("i")
            await settle(pilot)
        finally:
            ImportBar.advance = original  # type: ignore[method-assign]
        assert not [bar for bar in pilot.app.screen.query(ImportBar) if bar.display]

    drive(VivaApp(demo_ctx), script)
    assert seen and all(seen)
    after = {s.id for s in list_sessions(demo_ctx, SessionFilter(status="unattributed"))}
    assert len(after - before) == 1


def test_the_cli_does_not_import_textual() -> None:
    code = "import viva_tui.cli, sys; assert 'textual' not in sys.modules"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_bare_viva_opens_the_app(monkeypatch: pytest.MonkeyPatch, demo_home: Path) -> None:
    from tests.cli.runner import run

    opened: list[Path] = []

    def fake_run(config: Config, connect: object) -> None:
        opened.append(config.home)

    monkeypatch.setattr("viva_tui.app.run_app", fake_run)
    assert run([]).code == 0
    assert run(["tui"]).code == 0
    assert opened == [demo_home, demo_home]
    monkeypatch.setenv("VIVA_GRANT", "anything")
    refused = run([])
    assert refused.code == 1 and "owner" in refused.err
