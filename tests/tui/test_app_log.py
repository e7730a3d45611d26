"""A failure of the app's background work goes to Viva's log with its traceback; the
screen shows the one-line notice only."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.pilot import Pilot

from viva_store.store import Context
from viva_tui.app import VivaApp
from viva_tui.screens.backend import Backend

from .helpers import drive, settle


def test_a_worker_failure_is_logged_with_its_traceback(
    demo_home: Path, demo_ctx: Context, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise RuntimeError("the transcript went missing")

    monkeypatch.setattr(Backend, "transcript", broken)

    async def script(pilot: Pilot[None]) -> list[str]:
        await settle(pilot)
        pilot.app.screen.open_transcript("any")  # type: ignore[attr-defined]
        await settle(pilot)
        return [n.message for n in pilot.app._notifications]

    shown = drive(VivaApp(demo_ctx), script)
    assert shown == ["internal error: RuntimeError: the transcript went missing"]
    text = (demo_home / "logs" / "viva.log").read_text(encoding="utf-8")
    assert "ERROR viva.app: failed: transcript:open" in text
    assert "Traceback (most recent call last)" in text and "in broken" in text
