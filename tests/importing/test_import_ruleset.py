"""What the importer writes says which rule set redacted it, so `viva redact` does not
count a fresh import as records of older rule sets."""

from __future__ import annotations

import json

from tests.cli.runner import run
from tests.fixture_layout import root


def test_a_fresh_import_leaves_nothing_for_the_upgrade(cli_env: str) -> None:
    done = run(
        ["import", "--harness", "claude-code", "--root", f"claude-code={root('claude-code')}"]
    )
    assert done.code == 0, done.err
    report = json.loads(run(["redact", "--json"]).out)
    assert report["older"].get("import_run", 0) == 0
    assert report["older"].get("message", 0) == 0 and report["older"].get("quarantine", 0) == 0
