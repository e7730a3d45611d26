"""What lets a live view keep up: the store's change stamp, and refusing a stale action."""

from __future__ import annotations

from pathlib import Path

import pytest

from viva_store.members.executions import start_execution
from viva_store.sessions.service import get_session
from viva_store.store import Context
from viva_store.triage.classify import (
    SessionChanged,
    classify,
    classify_nobody,
    queue_size,
    unclassify,
)

from .test_attribution import T0, do_import, write

QUEUED = ("unattributed", None)


def two_sessions(ctx: Context, root: Path) -> tuple[str, str]:
    first = write(root, "aaaaaaaa-0000-4000-8000-00000000000a")
    second = write(root, "bbbbbbbb-0000-4000-8000-00000000000b", cwd="/src/other")
    do_import(ctx, root)
    return first, second


def test_the_stamp_names_the_areas_written_since(ctx: Context, tmp_path: Path) -> None:
    before = ctx.store.change_stamp()
    assert before.changed_since(before) == frozenset()
    first, _ = two_sessions(ctx, tmp_path)
    imported = ctx.store.change_stamp()
    assert imported.changed_since(before) == {"sessions"}
    classify(ctx, [first], "deven")
    filed = ctx.store.change_stamp()
    assert "triage" in filed.changed_since(imported)
    assert "sessions" not in filed.changed_since(imported)
    assert ctx.store.change_stamp().changed_since(None) == set(filed.marks)


def test_an_action_on_a_session_filed_meanwhile_is_refused(ctx: Context, tmp_path: Path) -> None:
    first, second = two_sessions(ctx, tmp_path)
    classify(ctx, [first], "oliver")  # another window, or the CLI
    with pytest.raises(SessionChanged, match="filed into oliver meanwhile"):
        classify(ctx, [first, second], "deven", expect=QUEUED)
    with pytest.raises(SessionChanged):
        classify_nobody(ctx, [first], expect=QUEUED)
    assert get_session(ctx, first).member == "oliver"
    assert get_session(ctx, second).status == "unattributed"  # nothing of the batch written
    classify(ctx, [second], "deven", expect=QUEUED)
    assert get_session(ctx, second).member == "deven"


def test_undo_refuses_a_session_refiled_since(ctx: Context, tmp_path: Path) -> None:
    first, _ = two_sessions(ctx, tmp_path)
    classify(ctx, [first], "deven", expect=QUEUED)
    classify(ctx, [first], "alice")
    with pytest.raises(SessionChanged, match="filed into alice"):
        unclassify(ctx, [first], expect=("attributed", "deven"))
    assert get_session(ctx, first).member == "alice"
    unclassify(ctx, [first], expect=("attributed", "alice"))
    assert get_session(ctx, first).status == "unattributed"


def test_an_execution_attributed_session_is_not_queued(ctx: Context, tmp_path: Path) -> None:
    native = "cccccccc-0000-4000-8000-00000000000c"
    start_execution(ctx, "victor", "claude-code", "/x", native_session_id=native, started_at=T0)
    write(tmp_path, native)
    do_import(ctx, tmp_path)
    with pytest.raises(SessionChanged, match="filed into victor"):
        classify(ctx, [native], "deven", expect=QUEUED)


def test_the_queue_size_counts_what_waits(ctx: Context, tmp_path: Path) -> None:
    first, _ = two_sessions(ctx, tmp_path)
    assert queue_size(ctx) == 2
    classify_nobody(ctx, [first])
    assert queue_size(ctx) == 1


def test_stamps_read_out_of_order_merge_to_the_newest(ctx: Context, tmp_path: Path) -> None:
    old = ctx.store.change_stamp()
    two_sessions(ctx, tmp_path)
    new = ctx.store.change_stamp()
    assert old.changed_since(new) == frozenset()  # a late answer to an earlier poll
    assert old.merged(new) == new.merged(old) == new
