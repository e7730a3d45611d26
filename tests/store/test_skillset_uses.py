"""Where uses come from (DESIGN §3 "A use"), who may record them, and corrections."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from tests.store.test_skillset_support import (
    T0,
    Axis,
    assert_cache_is_a_rebuild,
    set_born,
    set_now,
    skills,
)
from viva_store.db.schema import SKILL_EVENT
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.errors import AccessDenied, InvalidInput, NotFound
from viva_store.importing.pipeline import ImportSummary, run_import
from viva_store.importing.prepare import session_id
from viva_store.members.executions import finish_execution, start_execution
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.skills.project import project
from viva_store.skills.skillset import (
    add_skill,
    list_skills,
    reclaim_skill,
    set_track,
    skill_curve,
    skill_history,
)
from viva_store.skills.uses import credit_execution, read_skill, record_use
from viva_store.store import Context

CWD = "/home/deven/work"
NATIVE = "1b2c3d4e-0000-4000-8000-00000000a001"


@pytest.fixture
def deven(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> Axis:
    set_born(ctx, T0 - timedelta(days=90))
    return Axis(ctx, monkeypatch, "deven", timedelta(hours=1))


def as_member(ctx: Context, member: str) -> Context:
    return ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, member).token))


def events(ctx: Context, kind: str) -> list[Any]:
    return ctx.store.read(
        lambda c: list(
            c.execute(
                select(SKILL_EVENT).where(SKILL_EVENT.c.kind == kind).order_by(SKILL_EVENT.c.id)
            )
        )
    )


def import_claude(ctx: Context, root: Path) -> ImportSummary:
    run = run_import(ctx, ["claude-code"], {"claude-code": str(root)})
    while True:
        try:
            next(run)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]


def launched_session(root: Path, turns: tuple[Turn, ...]) -> None:
    claude_code(
        root,
        SessionSpec(
            native_id=NATIVE,
            cwd=CWD,
            start=T0 + timedelta(seconds=5),
            turns=turns,
            model="claude-sonnet-4",
            title="review and migrate",
        ),
    )


SKILL_TOOL = Turn("review it", "done", tool="Skill", tool_input={"skill": "code-review"})
PROJECTED_READ = Turn(
    "migrate",
    "done",
    tool="Read",
    tool_input={"file_path": f"{CWD}/.claude/skills/sqlite-migrations/SKILL.md"},
)


@pytest.mark.parametrize(("status", "value"), [(0, 1.0), (1, 0.25)])
def test_a_recovered_transcript_of_a_launched_session_credits_one_use_per_skill(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, status: int, value: float
) -> None:
    set_born(ctx, T0 - timedelta(days=90))
    set_now(monkeypatch, T0)
    run = start_execution(ctx, "deven", "claude-code", CWD, native_session_id=NATIVE)
    root = tmp_path / "claude"
    launched_session(
        root,
        (
            SKILL_TOOL,
            SKILL_TOOL,  # read twice in one session: one use
            PROJECTED_READ,
            Turn(
                "triage",
                "ok",
                tool="Read",
                tool_input={"file_path": "/x/skills/incident-triage/SKILL.md"},
            ),
            Turn("look", "ok", tool="Read", tool_input={"file_path": f"{CWD}/README.md"}),
        ),
    )
    set_now(monkeypatch, T0 + timedelta(minutes=30))
    finish_execution(ctx, run.id, status)
    import_claude(ctx, root)
    used = events(ctx, "used")
    assert sorted((u.skill, u.value) for u in used) == [
        ("code-review", value),
        ("sqlite-migrations", value),
    ]
    sid = session_id("claude-code", NATIVE)
    assert {(u.session_id, u.execution_id) for u in used} == {(sid, run.id)}
    # incident-triage is not in deven's set: the read is kept, no use is credited.
    [read] = [e for e in events(ctx, "read") if e.skill == "incident-triage"]
    assert read.session_id == sid
    # Importing again, or crediting the execution again, adds nothing.
    import_claude(ctx, root)
    assert credit_execution(ctx, run.id) == []
    assert len(events(ctx, "used")) == 2
    assert skills(ctx, "deven")["code-review"].uses == 1
    assert_cache_is_a_rebuild(ctx)


def test_a_live_read_is_credited_once_the_execution_has_an_outcome(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    set_born(ctx, T0 - timedelta(days=90))
    set_now(monkeypatch, T0)
    grant = issue_grant(ctx, "deven")
    run = start_execution(
        ctx, "deven", "claude-code", CWD, native_session_id=NATIVE, grant_id=grant.id
    )
    deven = ctx.as_actor(resolve_actor(ctx.store, grant.token))
    set_now(monkeypatch, T0 + timedelta(minutes=1))
    body = read_skill(deven, "python-refactoring")
    assert "refactor" in body.body.lower()
    assert [e.skill for e in events(ctx, "read")] == ["python-refactoring"]
    assert events(ctx, "used") == []  # the outcome is not known yet
    root = tmp_path / "claude"
    launched_session(root, (SKILL_TOOL,))
    set_now(monkeypatch, T0 + timedelta(minutes=30))
    finish_execution(ctx, run.id, 0)
    import_claude(ctx, root)
    assert sorted(u.skill for u in events(ctx, "used")) == ["code-review", "python-refactoring"]
    # Reading it again after the end: the session already has its use.
    read_skill(deven, "python-refactoring")
    assert len(events(ctx, "used")) == 2
    # The owner reading a body records nothing.
    read_skill(ctx, "code-review")
    assert len(events(ctx, "read")) == 2
    assert_cache_is_a_rebuild(ctx)


def test_a_read_without_an_execution_is_logged_not_credited(ctx: Context, deven: Axis) -> None:
    read_skill(as_member(ctx, "deven"), "code-review")
    assert [e.kind for e in skill_history(ctx, "deven", "code-review")][:1] == ["read"]
    assert events(ctx, "used") == []


def test_a_use_without_a_session_counts_once_a_day(
    ctx: Context, deven: Axis, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert record_use(ctx, "deven", "code-review", "success").credited
    assert not record_use(ctx, "deven", "code-review", "success").credited
    set_now(monkeypatch, T0 + timedelta(days=1))
    assert record_use(ctx, "deven", "code-review", "success").credited
    assert skills(ctx, "deven")["code-review"].uses == 2


def test_the_owner_corrects_a_use_with_a_new_event(ctx: Context, deven: Axis) -> None:
    add_skill(ctx, "deven", "log-investigation")
    deven.to(3)
    used = record_use(ctx, "deven", "log-investigation", "success", session=deven.ids[0])
    deven.to(6)
    before = skills(ctx, "deven")["log-investigation"]
    assert before.weight == pytest.approx(2 ** (-6 / 30) + 2 ** (-5 / 30))
    with pytest.raises(AccessDenied):
        record_use(as_member(ctx, "deven"), "deven", "log-investigation", "corrected")
    fixed = record_use(ctx, "deven", "log-investigation", "corrected", session=deven.ids[0])
    after = skills(ctx, "deven")["log-investigation"]
    assert after.weight == pytest.approx(2 ** (-6 / 30))
    assert after.last_used is None  # its only use is now worth nothing
    [original] = events(ctx, "used")
    assert (original.id, original.value) == (used.event_id, 1.0)
    [revalued] = events(ctx, "revalued")
    assert (revalued.target_id, revalued.value, revalued.id) == (used.event_id, 0.0, fixed.event_id)
    with pytest.raises(InvalidInput, match="already corrected"):
        record_use(ctx, "deven", "log-investigation", "corrected", session=deven.ids[0])
    assert_cache_is_a_rebuild(ctx)


def test_a_use_needs_the_skill_in_the_set(ctx: Context, deven: Axis) -> None:
    with pytest.raises(InvalidInput, match="not in deven's skill set"):
        record_use(ctx, "deven", "incident-triage", "success")
    with pytest.raises(InvalidInput, match="outcome"):
        record_use(ctx, "deven", "code-review", "great")
    deven.to(2)
    with pytest.raises(InvalidInput, match="not one of alice's"):
        record_use(ctx, "alice", "regression-test-first", "success", session=deven.ids[0])


def test_a_member_touches_only_its_own_set(ctx: Context, deven: Axis) -> None:
    me = as_member(ctx, "deven")
    deven.to(1)
    record_use(me, "deven", "code-review", "success", session=deven.ids[0])
    add_skill(me, "deven", "log-investigation")
    set_track(me, "deven", "log-investigation", "time")
    assert {s.name for s in list_skills(me, "deven")} >= {"code-review", "log-investigation"}
    assert skill_history(me, "deven") and skill_curve(me, "deven", "code-review")
    refused = [
        lambda: list_skills(me, "alice"),
        lambda: skill_history(me, "alice"),
        lambda: skill_curve(me, "alice", "regression-test-first"),
        lambda: project(me, "alice", "tests"),
        lambda: add_skill(me, "alice", "log-investigation"),
        lambda: reclaim_skill(me, "alice", "log-investigation"),
        lambda: record_use(me, "alice", "regression-test-first", "success"),
        lambda: set_track(me, "alice", "regression-test-first", "time"),
        lambda: add_skill(me, "deven", "incident-triage", from_member="oliver"),
    ]
    for call in refused:
        with pytest.raises(AccessDenied):
            call()
    # The owner syncs a skill from one member to another.
    synced = add_skill(ctx, "deven", "incident-triage", from_member="oliver")
    assert (synced.kind, synced.weight) == ("synced", 1.0)
    with pytest.raises(NotFound):
        add_skill(ctx, "deven", "no-such-skill")
    with pytest.raises(NotFound):
        list_skills(ctx, "nobody-here")
