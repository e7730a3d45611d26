"""DESIGN I6: only an execution record attributes a session without the owner."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from sqlalchemy.exc import DBAPIError

from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.errors import AccessDenied
from viva_store.importing.pipeline import run_import
from viva_store.members.executions import finish_execution, start_execution
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.sessions.service import SessionFilter, get_session, list_sessions
from viva_store.store import Context
from viva_store.triage.classify import classify, classify_nobody, unclassify

T0 = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def write(root: Path, native: str, cwd: str = "/src/viva", at: datetime = T0) -> str:
    spec = SessionSpec(native, cwd, at, (Turn("do the thing", "done"),), "claude-sonnet-4")
    claude_code(root, spec)
    return native


def do_import(ctx: Context, root: Path) -> None:
    for _ in run_import(ctx, ["claude-code"], {"claude-code": str(root)}):
        pass


def status(ctx: Context, native: str) -> tuple[str, str | None, str]:
    s = get_session(ctx, native)
    return s.status, s.member, s.note


def test_matching_by_the_harness_session_id(ctx: Context, tmp_path: Path) -> None:
    native = write(tmp_path, "aaaaaaaa-0000-4000-8000-000000000001")
    start_execution(
        ctx, "deven", "claude-code", "/elsewhere", native_session_id=native, started_at=T0
    )
    write(tmp_path, "bbbbbbbb-0000-4000-8000-000000000002", cwd="/src/other")
    do_import(ctx, tmp_path)
    assert status(ctx, native)[:2] == ("attributed", "deven")
    assert get_session(ctx, native).attribution_source == "execution"
    assert status(ctx, "bbbbbbbb")[:2] == ("unattributed", None)


def test_matching_by_harness_cwd_and_start_window(ctx: Context, tmp_path: Path) -> None:
    near = write(tmp_path, "cccccccc-0000-4000-8000-000000000003", at=T0 + timedelta(seconds=20))
    far = write(tmp_path, "dddddddd-0000-4000-8000-000000000004", at=T0 + timedelta(hours=2))
    start_execution(ctx, "alice", "claude-code", "/src/viva", started_at=T0)
    do_import(ctx, tmp_path)
    assert status(ctx, near)[:2] == ("attributed", "alice")
    assert status(ctx, far)[:2] == ("unattributed", None)


def test_an_ambiguous_match_attributes_nothing_and_says_why(ctx: Context, tmp_path: Path) -> None:
    native = write(tmp_path, "eeeeeeee-0000-4000-8000-000000000005")
    start_execution(ctx, "alice", "claude-code", "/src/viva", started_at=T0 - timedelta(seconds=30))
    start_execution(
        ctx, "oliver", "claude-code", "/src/viva", started_at=T0 + timedelta(seconds=30)
    )
    do_import(ctx, tmp_path)
    state, member, note = status(ctx, native)
    assert (state, member) == ("unattributed", None)
    assert "ambiguous" in note and "alice" in note and "oliver" in note


def test_sub_agents_follow_their_parent_unless_classified_on_their_own(
    ctx: Context, tmp_path: Path
) -> None:
    parent = write(tmp_path, "ffffffff-0000-4000-8000-000000000006")
    child_dir = tmp_path / "-src-viva" / parent / "subagents"
    child_dir.mkdir(parents=True)
    sub = claude_code(
        tmp_path / "x", SessionSpec("agent-1", "/src/viva", T0, (Turn("sub", "ok"),), "m")
    )
    (child_dir / "agent-abc123.jsonl").write_bytes(sub.read_bytes())
    do_import(ctx, tmp_path)
    child = next(s for s in list_sessions(ctx, SessionFilter()) if s.parent_id)
    assert status(ctx, child.id)[0] == "unattributed"
    classify(ctx, [parent], "victor")
    assert status(ctx, child.id)[:2] == ("attributed", "victor")
    classify(ctx, [child.id], "samuel")
    classify(ctx, [parent], "deven")
    assert status(ctx, child.id)[:2] == ("attributed", "samuel")


def test_classify_nobody_unclassify_are_events_and_owner_only(ctx: Context, tmp_path: Path) -> None:
    native = write(tmp_path, "12121212-0000-4000-8000-000000000007")
    do_import(ctx, tmp_path)
    classify(ctx, [native[:8]], "deven")
    classify_nobody(ctx, [native])
    assert status(ctx, native)[0] == "nobody"
    unclassify(ctx, [native])
    assert status(ctx, native)[0] == "unattributed"
    member = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    for action in (
        lambda: classify(member, [native], "deven"),
        lambda: classify_nobody(member, [native]),
        lambda: unclassify(member, [native]),
    ):
        with pytest.raises(AccessDenied):
            action()
    engine = create_engine(ctx.store.config.db_url)
    with engine.connect() as conn:
        count = conn.execute(text("SELECT count(*) FROM classification")).scalar()
        assert count == 3, "three decisions, three events"
    for sql in ("UPDATE classification SET member = 'alice'", "DELETE FROM classification"):
        with pytest.raises(DBAPIError, match="append-only"), engine.begin() as conn:
            conn.execute(text(sql))
    engine.dispose()


def test_a_finished_execution_records_its_outcome(ctx: Context) -> None:
    ex = start_execution(ctx, "deven", "codex", "/src/viva", task="fix the flaky test")
    done = finish_execution(ctx, ex.id, 1)
    assert (done.outcome, done.exit_status) == ("failure", 1) and done.ended_at is not None
    member = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    with pytest.raises(AccessDenied):
        start_execution(member, "deven", "codex", "/x")
