"""A re-import of an unchanged history loads no reader, writer or attribution code."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.fixture_layout import lay_out

READ_PATH = (
    "viva_store.importing.changed",
    "viva_store.importing.read",
    "viva_store.importing.harness.lines",
    "viva_store.importing.batch",
    "viva_store.importing.write",
    "viva_store.importing.prepare",
    "viva_store.importing.pool",
    "viva_store.importing.harness.claude_code.parse",
    "viva_store.skills.uses",
    "multiprocessing",
)
"""What reading and storing a changed file needs."""

NEVER = ("viva_store.importing.harness.codex.reader", "rich", "yaml")
"""What a re-import of Claude Code alone, printing no progress bar, does not need."""

PROBE = """
import json, sys
from viva_tui import cli
sys.argv = ["viva", "import", "--json", "--harness", "claude-code", "--root", sys.argv[1]]
try:
    cli.main()
except SystemExit as exc:
    assert not exc.code, exc.code
watched = {watched!r}
print(json.dumps([m for m in watched if m in sys.modules]), file=sys.stderr)
"""


def _import(root: Path) -> tuple[dict[str, object], list[str]]:
    """One ``viva import`` of ``root`` in a fresh process: its summary and what it loaded."""
    probe = PROBE.format(watched=READ_PATH + NEVER)
    done = subprocess.run(
        [sys.executable, "-c", probe, f"claude-code={root}"],
        env=dict(os.environ),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr[-1500:]
    summary = json.loads(done.stdout)
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    return summary, loaded


def test_an_unchanged_history_is_walked_without_the_readers(tmp_path: Path) -> None:
    root = lay_out("claude-code", tmp_path)
    first, loaded_first = _import(root)
    assert first["messages_added"] and first["sessions_new"]
    assert set(READ_PATH) <= set(loaded_first)  # the probe sees what a real read loads
    again, loaded_again = _import(root)
    assert loaded_again == []
    assert again["files_scanned"] == again["files_unchanged"] == first["files_scanned"]
    assert again["sessions_unchanged"] == first["sessions_new"]
    assert (again["messages_added"], again["sessions_new"], again["problems"]) == (0, 0, [])
