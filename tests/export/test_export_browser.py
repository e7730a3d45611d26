"""An HTML export opened in headless Chromium renders a page (not a blank one), with no
network. Skips only when no Chromium is installed (CI installs it)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.cli.runner import run
from tests.export.png import ink, pixels

CHROMIUM = next(
    (p for p in map(shutil.which, ("chromium", "chromium-browser", "google-chrome")) if p), None
)
CART = "7d3e5f10-2b4c-4d6e-8f01-23456789abcd"
"""The Claude Code fixture session with tool calls and two sub-agent sessions."""


def screenshot(page: Path, shot: Path, profile: Path) -> None:
    assert CHROMIUM is not None
    subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            "--window-size=640,900",
            f"--screenshot={shot}",
            page.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed")
def test_an_html_export_renders_in_headless_chromium(
    every_harness: list[dict[str, Any]], tmp_path: Path
) -> None:
    page = tmp_path / "cart.html"
    result = run(["session", "export", CART, "--format", "html", "-o", str(page)])
    assert result.code == 0, result.err
    shot = tmp_path / "shot.png"
    screenshot(page, shot, tmp_path / "profile")
    width, height, _ = pixels(shot)
    assert (width, height) == (640, 900)
    assert ink(shot) > 0.02  # text, rules and the sub-agent panel, not one flat colour
    blank = tmp_path / "blank.html"
    blank.write_text("<!DOCTYPE html><html><body></body></html>", "utf-8")
    screenshot(blank, tmp_path / "blank.png", tmp_path / "profile2")
    assert ink(tmp_path / "blank.png") < 0.001  # the measure tells a blank page apart
