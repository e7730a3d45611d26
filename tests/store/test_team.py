"""Member definitions and the skill library: validated, reported with path and reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import MEMBERS, copy_members
from viva_store.errors import AccessDenied
from viva_store.members.roster import list_members, load_team
from viva_store.members.team import read_team
from viva_store.skills.library import import_skills, list_library, read_library
from viva_store.store import Context


def test_the_shipped_team_is_valid() -> None:
    members, errors = read_team(MEMBERS)
    assert errors == []
    assert {m.name: m.role for m in members} == {
        "alice": "testing",
        "deven": "development",
        "oliver": "operations",
        "samuel": "planning",
        "victor": "trading",
    }
    assert [m.name for m in members if m.coordinator] == ["samuel"]
    assert all(len(m.soul.split()) > 150 for m in members), "souls are real content"


def test_the_library_has_real_skills_and_every_native_skill_exists() -> None:
    skills, errors = read_library(MEMBERS / "skills")
    assert errors == []
    assert len(skills) >= 15
    names = {s.name for s in skills}
    members, _ = read_team(MEMBERS)
    assert {n for m in members for n in m.native_skills} <= names
    assert all(len(s.body.splitlines()) >= 20 for s in skills)


def test_a_broken_member_yaml_is_named_and_the_rest_still_load(
    ctx: Context, tmp_path: Path
) -> None:
    team = copy_members(tmp_path / "team")
    (team / "alice" / "member.yaml").write_text("name: alice\nrole: [unclosed\n")
    members, errors = read_team(team)
    assert len(errors) == 1 and str(team / "alice" / "member.yaml") in errors[0]
    assert "alice" not in {m.name for m in members} and len(members) == 4


@pytest.mark.parametrize(
    ("yaml_text", "reason"),
    [
        ("display_name: A\nrole: r\nengine: e\nharnesses: []\ntools: []\n", "missing required key"),
        ("name: bob\ndisplay_name: A\nrole: r\nengine: e\nharnesses: []\ntools: []\n", "differs"),
        (
            "name: alice\ndisplay_name: A\nrole: r\nengine: e\nharnesses: [vim]\ntools: []\n",
            "unknown harness",
        ),
        ("- a list\n", "mapping"),
    ],
)
def test_member_validation_says_what_is_wrong(tmp_path: Path, yaml_text: str, reason: str) -> None:
    team = copy_members(tmp_path / "team")
    (team / "alice" / "member.yaml").write_text(yaml_text)
    _, errors = read_team(team)
    assert len(errors) == 1 and reason in errors[0] and "alice/member.yaml" in errors[0]


def _skill(folder: Path, front: str, body: str = "Step one.\n") -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{front}---\n{body}")


def test_bad_skill_folders_are_reported_not_loaded(ctx: Context, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    _skill(lib / "good-one", "name: good-one\ndescription: Does a thing. Use when needed.\n")
    _skill(lib / "Bad_Name", "name: Bad_Name\ndescription: x\n")
    _skill(lib / "no-description", "name: no-description\n")
    _skill(lib / "mismatch", "name: other\ndescription: x\n")
    _skill(lib / "too-long", "name: too-long\ndescription: " + "x" * 1025 + "\n")
    result = import_skills(ctx, lib)
    assert result.added == ("good-one",)
    assert len(result.errors) == 4
    assert any("Bad_Name" in e for e in result.errors)
    assert any("missing description" in e for e in result.errors)
    names = {s.name for s in list_library(ctx)}
    assert "good-one" in names and "mismatch" not in names and "other" not in names


def test_reimporting_is_idempotent_and_changes_are_updates(ctx: Context, tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    _skill(lib / "a-skill", "name: a-skill\ndescription: First.\n")
    assert import_skills(ctx, lib).added == ("a-skill",)
    assert import_skills(ctx, lib).unchanged == ("a-skill",)
    (lib / "a-skill" / "SKILL.md").write_text(
        "---\nname: a-skill\ndescription: Second.\n---\nNew.\n"
    )
    assert import_skills(ctx, lib).updated == ("a-skill",)


def test_loading_the_team_is_owner_only(ctx: Context) -> None:
    from viva_store.members.grants import issue_grant, resolve_actor

    member = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    with pytest.raises(AccessDenied):
        load_team(member, MEMBERS)
    with pytest.raises(AccessDenied):
        import_skills(member, MEMBERS / "skills")


def test_members_are_listed_coordinator_first(ctx: Context) -> None:
    members = list_members(ctx)
    assert members[0].name == "samuel" and members[0].coordinator
    assert len(members) == 5
