"""`viva project` and `viva launch` carry the task brief's knowledge section."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from tests.store.test_launch_support import install, path_with
from tests.store.test_principles_support import make_sessions
from viva_store.knowledge import service as knowledge
from viva_store.launch.service import preview
from viva_store.skills.project import project
from viva_store.store import Context


@pytest.fixture
def items(ctx: Context, tmp_path: Path) -> dict[str, str]:
    (s1, s2) = make_sessions(ctx, tmp_path / "claude", {"deven": 2})["deven"]
    out = {}
    for name, kind, where in (
        ("alpha", "project_knowledge", "alpha"),
        ("team", "team_knowledge", None),
        ("other", "project_knowledge", "beta"),
    ):
        out[name] = knowledge.propose(
            ctx, "deven", kind, f"flaky test fix: {name}", "recurred", [s1, s2], project=where
        )
        knowledge.admit(ctx, out[name])
    return out


def test_a_projection_lists_the_knowledge_its_project_may_see(
    ctx: Context, items: dict[str, str]
) -> None:
    p = project(ctx, "deven", "fix the flaky test", record=False, project="alpha")
    assert {k["id"] for k in p.knowledge} == {items["alpha"], items["team"]}
    assert all(k["sources"] and k["words"] == "recorded" for k in p.knowledge)
    without = project(ctx, "deven", "fix the flaky test", record=False)
    assert {k["id"] for k in without.knowledge} == {items["team"]}
    assert project(ctx, "deven", "", record=False).knowledge == ()


def test_the_launch_block_has_the_knowledge_section(
    ctx: Context, items: dict[str, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = Path(os.path.realpath(tmp_path)) / "alpha-src"
    folder.mkdir()
    install(tmp_path / "bin")
    monkeypatch.setenv("PATH", path_with(tmp_path / "bin"))
    config = dataclasses.replace(
        ctx.store.config, raw={"state": {"projects": {str(folder): "alpha"}}}
    )
    monkeypatch.setattr(ctx.store, "config", config)
    plan = preview(ctx, "deven", "claude-code", "fix the flaky test", folder)
    assert "## What the team recorded for this task" in plan.block
    assert f"knowledge show {items['alpha']}" in plan.block
    assert f"knowledge show {items['team']}" in plan.block
    assert items["other"] not in plan.block
    assert "recorded;" in plan.block and "learned" not in plan.block
