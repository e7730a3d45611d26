"""``viva launch --dry-run``: everything a launch would project and run, nothing changed."""

from __future__ import annotations

import os
import shlex
from pathlib import Path

import pytest
from sqlalchemy import func, select

from tests.store.test_launch_support import install, path_with
from viva_store.db.schema import SKILL_EVENT
from viva_store.launch.render import LAYOUTS, LaunchView, SkillDoc, render
from viva_store.launch.service import SESSION_PLACEHOLDER, command_line, preview
from viva_store.members.executions import list_executions
from viva_store.members.grants import list_grants
from viva_store.members.roster import get_member
from viva_store.principles.service import approve, propose
from viva_store.skills.library import get_skill, read_skill
from viva_store.store import Context

PRINCIPLE = "Reproduce a flaky test under repetition before changing it."


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = Path(os.path.realpath(tmp_path)) / "proj"
    folder.mkdir()
    install(tmp_path / "bin")
    monkeypatch.setenv("PATH", path_with(tmp_path / "bin"))
    return folder


def state(ctx: Context) -> tuple[int, int, int]:
    events = ctx.store.read(
        lambda c: c.execute(select(func.count()).select_from(SKILL_EVENT)).scalar()
    )
    return len(list_executions(ctx)), len(list_grants(ctx)), int(events or 0)


def test_the_dry_run_shows_skills_principles_and_the_exact_command(
    ctx: Context, project: Path
) -> None:
    approve(ctx, propose(ctx, "deven", PRINCIPLE, "it flaked twice last week").id)
    before = state(ctx)

    plan = preview(ctx, "deven", "claude-code", "fix the flaky test", project, ["--model", "x"])

    picks = plan.projection.skills
    assert 1 <= len(picks) <= 10
    assert all("relevance" in s.reason and "weight" in s.reason for s in picks)
    assert [p["text"] for p in plan.projection.principles] == [PRINCIPLE]
    claude = str(project.parent / "bin" / "claude")
    mcp = plan.mcp.harness_args
    assert plan.command == (claude, "--session-id", SESSION_PLACEHOLDER, *mcp, "--model", "x")
    assert plan.shell.endswith(shlex.join(plan.command))
    assert f"{claude} --session-id '{SESSION_PLACEHOLDER}' '--mcp-config=" in plan.shell
    assert "VIVA_MEMBER=deven" in plan.shell and "VIVA_GRANT=" in plan.shell
    assert plan.found and not plan.warnings and not plan.problems
    assert [f["path"] for f in plan.files] == [str(project / "CLAUDE.md")] + [
        str(project / ".claude/skills" / s.name / "SKILL.md") for s in picks
    ]
    assert {f["action"] for f in plan.files} == {"create"}
    assert PRINCIPLE in plan.block and "viva recall" in plan.block
    assert all(f"`{s.name}`" in plan.block for s in picks)
    # Nothing changed: no execution, grant, event, file or journal.
    assert state(ctx) == before
    assert list(project.iterdir()) == []
    assert not (ctx.store.config.home / "launches").exists()


def test_the_dry_run_reports_what_would_stop_the_launch(
    ctx: Context, project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (project / "AGENTS.md").write_text("<!-- viva:begin member=alice -->\nstale\n")
    monkeypatch.setenv("PATH", str(project))

    plan = preview(ctx, "alice", "codex", "", project)

    assert not plan.found and "codex is not on PATH" in plan.warnings[0]
    assert "no launch journal explains" in plan.problems[0]
    assert plan.files[0]["action"] == "append-block"
    assert plan.command == ("codex", *plan.mcp.harness_args)


def test_projected_skills_are_valid_skill_folders(
    ctx: Context, project: Path, tmp_path: Path
) -> None:
    """Each projected ``SKILL.md`` reads back as the library's skill (name, description,
    body), so Claude Code loads it as a project skill."""
    member = get_member(ctx, "deven")
    skill = get_skill(ctx, "code-review")
    view = LaunchView(
        layout=LAYOUTS["claude-code"],
        member=member,
        task="",
        principles=(),
        skills=(SkillDoc(skill.name, skill.description, skill.body, "weight 1.000"),),
        unprojected=(),
        execution_id="x1",
        viva="viva",
    )
    rendering = render(view)
    [(rel, text)] = rendering.skill_files
    assert rel == ".claude/skills/code-review/SKILL.md"
    (tmp_path / rel).parent.mkdir(parents=True)
    (tmp_path / rel).write_text(text)
    back = read_skill((tmp_path / rel).parent)
    assert (back.name, back.description, back.body) == (skill.name, skill.description, skill.body)
    assert "None approved yet." in rendering.block
    assert "viva_g1_" not in rendering.block and "`VIVA_GRANT`" in rendering.block


def test_the_tui_gets_the_command_line() -> None:
    assert command_line("deven", "codex", "fix it", "/w d") == (
        "viva launch deven --harness codex --task 'fix it' --cwd '/w d'"
    )
