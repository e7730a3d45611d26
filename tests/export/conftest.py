"""Stores holding the harness fixtures of every harness, for the export and resume tests."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.runner import run
from tests.fixture_layout import ROOTS, lay_out


@pytest.fixture
def every_harness(cli_env: str, tmp_path: Path) -> list[dict[str, object]]:
    """Every harness's fixtures imported; the sessions as ``viva sessions --all --json``."""
    roots: list[str] = []
    for harness in ROOTS:
        roots += ["--root", f"{harness}={lay_out(harness, tmp_path / 'files')}"]
    result = run(["import", *roots, "--json"])
    assert result.code == 0, result.err
    found = json.loads(run(["sessions", "--all", "--json"]).out)
    assert {s["harness"] for s in found} == set(ROOTS)
    return list(found)
