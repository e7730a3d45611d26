"""Benign real transcripts of the shared samples are not mangled by redaction."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import orjson

from tests_shared.conftest import SHARED as SAMPLES
from viva_store.redact import redact_obj, redact_text

# None of the fixtures holds a real secret; allow a handful of harmless hits
# before calling the rules too eager (none fire today).
MAX_HITS = 3


def _lines() -> Iterator[tuple[str, int, bytes]]:
    for path in sorted(SAMPLES.rglob("*")):
        if not path.is_file() or path.suffix not in (".jsonl", ".json"):
            continue
        data = path.read_bytes()
        chunks = data.splitlines() if path.suffix == ".jsonl" else [data]
        for n, line in enumerate(chunks, 1):
            if line.strip():
                yield str(path.relative_to(SAMPLES)), n, line


def test_fixtures_exist_and_are_scanned() -> None:
    assert sum(1 for _ in _lines()) > 500


def test_decoded_fixture_lines_are_not_mangled() -> None:
    hits: list[str] = []
    for name, n, line in _lines():
        try:
            obj: Any = orjson.loads(line)
        except orjson.JSONDecodeError:
            continue
        out, found = redact_obj(obj)
        hits += [f"{name}:{n} {h.path} {h.rule}" for h in found]
        if not found:
            assert out is obj
    assert len(hits) <= MAX_HITS, "\n".join(hits)


def test_raw_fixture_lines_are_not_mangled() -> None:
    hits: list[str] = []
    for name, n, line in _lines():
        text = line.decode("utf-8", "replace")
        out, found = redact_text(text)
        hits += [f"{name}:{n} {h.rule} {out[max(0, h.start - 40) : h.end + 20]!r}" for h in found]
    assert len(hits) <= MAX_HITS, "\n".join(hits)
