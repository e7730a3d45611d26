"""A token glued to a name's ``-``, ``_`` or ``.`` in a path is found: Claude Code names a
project's folder after its working folder with ``/`` and ``.`` turned into ``-``."""

from __future__ import annotations

import pytest

from tests.redact.planted import Example, example
from viva_store.redact import RULES, redact_path

PLAIN = [e for e in map(example, RULES) if e.alone and "\n" not in e.secret]


@pytest.mark.parametrize("separator", ["-", "_", "."])
def test_every_token_glued_into_a_folder_name_is_redacted(separator: str) -> None:
    leaked = [
        e.rule
        for e in PLAIN
        if e.secret in redact_path(f"/p/-home-dev{separator}{e.secret}/s.jsonl")[0]
        or e.secret in redact_path(f"/p/-src{separator}{e.secret}{separator}main-py/s")[0]
    ]
    assert not leaked


@pytest.mark.parametrize("plant", PLAIN[:40], ids=lambda e: e.rule)
def test_the_hits_say_where_each_marker_is(plant: Example) -> None:
    out, hits = redact_path(f"/p/-home-dev-{plant.secret}-x/{plant.secret}.jsonl")
    assert hits and all(out[h.start : h.end] == f"[REDACTED:{h.rule}]" for h in hits)
