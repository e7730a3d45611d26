"""A store that cannot be opened is a screen that says why, at once — never a wait."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static

from tests.conftest import PG_URL
from viva_store.config import load_config
from viva_store.store import Context, Store
from viva_tui.app import VivaApp
from viva_tui.screens.unavailable import StoreUnavailable

from .helpers import drive, settle


@pytest.mark.skipif(bool(PG_URL), reason="a damaged SQLite file")
def test_a_damaged_store_shows_why_and_q_quits(tmp_path: Path) -> None:
    home = tmp_path / "home"
    config = load_config({"VIVA_HOME": str(home)})
    Store.open(config).close()
    (home / "viva.db").write_bytes(os.urandom(64 * 1024))

    def connect() -> Context:
        return Context(Store.open(config))

    app = VivaApp(connect, config=config)

    async def script(pilot: Pilot[None]) -> str:
        await settle(pilot, timeout=10)
        screen = pilot.app.screen
        assert isinstance(screen, StoreUnavailable)
        reason = str(screen.query_one("#reason", Static).render())
        await pilot.press("q")
        return reason

    reason = drive(app, script)
    assert "damaged" in reason and "not a database" in reason
    assert app.return_code == 0
