"""The JSON-lines layer over the shared samples: every line a record, or said why not."""

from __future__ import annotations

import json

from tests.harness.line_support import check_accounting
from tests_shared.conftest import SHARED as FIXTURES
from viva_store.importing.harness.lines import Progress, iter_lines, open_source


def test_every_fixture_line_is_a_clean_record() -> None:
    files = sorted(FIXTURES.rglob("*.jsonl"))
    assert files
    for path in files:
        data = path.read_bytes()
        with open_source(path) as fh:
            progress = Progress()
            outcomes = list(iter_lines(fh, 0, 1, progress=progress))
        check_accounting(data, outcomes, progress)
        for out, line in zip(outcomes, data.split(b"\n"), strict=False):
            if not line.strip():
                assert out.kind == "blank", (path, out.line)
                continue
            value = json.loads(line)
            if isinstance(value, dict):
                assert (out.kind, out.records, out.reason) == ("record", (value,), None)
            else:  # e.g. claude-code/edge_cases.jsonl has a bare string, number, array
                assert (out.kind, out.reason) == ("quarantined", "not a JSON object")
