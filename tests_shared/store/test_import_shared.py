"""Session recovery over the shared harness samples, laid out as each harness writes them."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.store.test_import import _reader_native_ids, run
from tests_shared.conftest import SHARED
from tests_shared.fixture_layout import lay_out
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.store import Context

# Sessions per harness in the shared samples. One per session file; a Claude
# sub-agent file is a session of its own, linked to its parent.
SAMPLE_SESSIONS = {
    "claude-code": 17,
    "codex": 14,
    "pi": 4,
    "gemini": 9,
    "opencode": 4,
    "hermes": 3,
}


@pytest.mark.parametrize("harness", sorted(SAMPLE_SESSIONS))
def test_every_sample_imports_and_reimport_adds_nothing(
    ctx: Context, tmp_path: Path, harness: str
) -> None:
    roots = lay_out(harness, tmp_path / harness)
    first = run(ctx, **{harness: roots})
    expected = _reader_native_ids(harness, roots)
    stored = {s.native_id for s in list_sessions(ctx, SessionFilter(harness=harness))}
    assert stored == expected
    assert len(stored) == SAMPLE_SESSIONS[harness], sorted(stored)
    assert first.sessions_new == len(expected)
    assert all(p.path and p.reason for p in first.problems)
    second = run(ctx, **{harness: roots})
    assert (second.sessions_new, second.messages_added, second.sessions_updated) == (0, 0, 0)
    assert second.files_unchanged == second.files_scanned > 0


def test_touching_a_file_reads_nothing_twice(ctx: Context, tmp_path: Path) -> None:
    root = tmp_path / "claude"
    shutil.copytree(SHARED / "claude-code", root)
    # Settled long ago, whatever the checkout's mtimes: a fresh checkout would
    # otherwise withhold unterminated tails on the first run and rightly take
    # them on the second, which is not what this test is about.
    for path in root.rglob("*.jsonl"):
        os.utime(path, (1, 1))
    first = run(ctx, **{"claude-code": root})
    for path in root.rglob("*.jsonl"):
        os.utime(path, (2, 2))  # same bytes, new mtime: looked at again, nothing added
    again = run(ctx, **{"claude-code": root})
    assert again.files_unchanged == 0 and again.messages_added == 0 and again.sessions_new == 0
    assert first.messages_added > 0
