"""``viva demo``: a second run opens the store built before unless something it depends
on changed; ``--rebuild`` always builds anew; a folder that is not a demo is refused."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from viva_store.demo.reuse import fingerprint, mark_built, reusable

from .runner import run

NOW = "2026-03-02T12:00:00+00:00"


def test_the_fingerprint_follows_the_day() -> None:
    today = fingerprint(date(2026, 3, 2))
    assert today == fingerprint(date(2026, 3, 2))
    assert today != fingerprint(date(2026, 3, 3))


def test_only_a_complete_store_with_the_same_fingerprint_is_reused(tmp_path: Path) -> None:
    assert not reusable(tmp_path, "abc")
    mark_built(tmp_path, "abc")
    assert not reusable(tmp_path, "abc")  # no store file: an interrupted build
    (tmp_path / "viva.db").write_bytes(b"")
    assert reusable(tmp_path, "abc")
    assert not reusable(tmp_path, "abd")


def test_a_second_run_reuses_the_store_and_rebuild_replaces_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIVA_NOW", NOW)
    home = tmp_path / "demo"
    first = run(["demo", "--no-tui", "--home", str(home)])
    assert first.code == 0, first.err
    assert "replaying" in first.err
    store = home / "viva.db"
    built = store.stat().st_mtime_ns
    again = run(["demo", "--no-tui", "--home", str(home)])
    assert again.code == 0 and "opening the demo store built earlier" in again.err
    assert store.stat().st_mtime_ns == built
    fresh = run(["demo", "--no-tui", "--home", str(home), "--rebuild"])
    assert fresh.code == 0 and "replaying" in fresh.err
    assert "opening" not in fresh.err


def test_a_folder_that_is_not_a_demo_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    result = run(["demo", "--no-tui", "--home", str(tmp_path)])
    assert result.code != 0 and "not a demo store" in result.err
    assert (tmp_path / "notes.txt").read_text() == "mine"
