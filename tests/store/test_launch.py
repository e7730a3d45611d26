"""``viva launch`` end to end with stand-in harnesses (issue 9).

The stand-ins (:mod:`tests.store.test_launch_support`) write real transcripts where the
real harnesses would; the launch must leave the session attributed to its member, one
credited use per skill read (valued by the outcome), the user's files byte-identical,
and the grant revoked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import func, select

from tests.store.test_launch_support import install, path_with, seen
from viva_store.access import OWNER
from viva_store.db.schema import SKILL_EVENT
from viva_store.errors import AccessDenied, GrantRefused, InvalidInput, NotFound
from viva_store.launch.records import LaunchResult
from viva_store.launch.service import launch
from viva_store.members.executions import list_executions
from viva_store.members.grants import issue_grant, list_grants, resolve_actor
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.store import Context

ORIGINAL = "# My project\r\n\r\nUse tabs.\tÜnïcode, and no newline at the end".encode()


@dataclass
class Place:
    """A project folder, the stand-ins on PATH, and where they log what they saw."""

    project: Path
    bin: Path
    log: Path
    monkeypatch: pytest.MonkeyPatch

    def behave(self, reads: str = "", exit: int = 0, calls: str = "") -> None:
        self.monkeypatch.setenv("STANDIN_READS", reads)
        self.monkeypatch.setenv("STANDIN_EXIT", str(exit))
        self.monkeypatch.setenv("STANDIN_CALLS", calls)


@pytest.fixture
def place(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Place:
    project = Path(os.path.realpath(tmp_path)) / "work" / "viva"
    project.mkdir(parents=True)
    install(tmp_path / "bin")
    monkeypatch.setenv("PATH", path_with(tmp_path / "bin"))
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "seen.json"))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return Place(project, tmp_path / "bin", tmp_path / "seen.json", monkeypatch)


def uses(ctx: Context, result: LaunchResult) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    for use in result.uses:
        out.setdefault(use["skill"], []).append(use["value"])
    return out


def tree(folder: Path) -> dict[str, bytes | None]:
    """Every path under ``folder`` with its bytes (None for a folder)."""
    return {
        str(p.relative_to(folder)): (p.read_bytes() if p.is_file() else None)
        for p in sorted(folder.rglob("*"))
    }


def test_claude_code_session_is_attributed_with_one_use_per_skill_read(
    ctx: Context, place: Place
) -> None:
    (place.project / "CLAUDE.md").write_bytes(ORIGINAL)
    before = tree(place.project)
    place.behave("code-review,code-review,file:sqlite-migrations,file:sqlite-migrations")

    result = launch(ctx, "deven", "claude-code", "fix the flaky test", place.project)

    saw = seen(place.log)
    x = result.execution
    assert saw["argv"][:2] == ["--session-id", x.native_session_id]
    assert saw["cwd"] == str(place.project)
    assert saw["env"]["VIVA_MEMBER"] == "deven"
    assert saw["env"]["VIVA_EXECUTION"] == x.id
    token = saw["env"]["VIVA_GRANT"]
    assert token.startswith("viva_g1_")
    # During the session: the user's text, then Viva's block; the skills in place.
    assert saw["instruction"].encode().startswith(ORIGINAL.replace(b"\r\n", b"\n"))
    assert "<!-- viva:begin member=deven" in saw["instruction"]
    assert "You are Deven (development)" in saw["instruction"]
    assert "fix the flaky test" in saw["instruction"]
    assert token not in saw["instruction"]
    assert saw["skills"] == {"code-review": True, "file:sqlite-migrations": True}
    # After: attributed by the execution record, exact native id.
    assert (x.outcome, x.exit_status, x.ended_at is not None) == ("success", 0, True)
    assert result.attributed_to == "deven"
    assert result.native_session_id == x.native_session_id == saw["session"]
    [session] = list_sessions(ctx, SessionFilter(member="deven"))
    assert session.id == result.session_id and session.status == "attributed"
    # Read twice each = one use each, valued 1.0; the unread third pick is not a use.
    assert uses(ctx, result) == {"code-review": [1.0], "sqlite-migrations": [1.0]}
    # The user's folder is exactly as it was; the grant is dead.
    assert tree(place.project) == before
    assert result.grant_revoked and not result.notes
    with pytest.raises(GrantRefused, match="revoked"):
        resolve_actor(ctx.store, token)
    assert not (ctx.store.config.home / "launches").exists() or not list(
        (ctx.store.config.home / "launches").iterdir()
    )


def test_a_failed_run_values_its_uses_at_a_quarter(ctx: Context, place: Place) -> None:
    (place.project / "CLAUDE.md").write_bytes(ORIGINAL)
    place.behave("code-review", exit=3)

    result = launch(ctx, "deven", "claude-code", "fix the flaky test", place.project)

    assert (result.execution.outcome, result.execution.exit_status) == ("failure", 3)
    assert result.attributed_to == "deven"
    assert uses(ctx, result) == {"code-review": [0.25]}
    assert (place.project / "CLAUDE.md").read_bytes() == ORIGINAL
    assert not (place.project / ".claude").exists()
    assert result.grant_revoked


def test_codex_session_is_matched_by_folder_and_start(ctx: Context, place: Place) -> None:
    (place.project / "AGENTS.md").write_bytes(ORIGINAL)
    place.behave("code-review,code-review,python-refactoring", exit=1)

    result = launch(ctx, "deven", "codex", "refactor the importer", place.project)

    saw = seen(place.log)
    # Codex takes no session id (it chooses its own uuid): only the MCP server's registration.
    assert [a for a in saw["argv"] if not a.startswith("mcp_servers.viva.")] == ["-c"] * 3
    assert "<!-- viva:begin member=deven" in saw["instruction"]
    assert "cat .codex/skills/<name>/SKILL.md" in saw["instruction"]
    assert saw["skills"] == {"code-review": True, "python-refactoring": True}
    assert result.execution.native_session_id is None
    assert result.native_session_id == saw["session"]
    assert result.attributed_to == "deven"
    assert uses(ctx, result) == {"code-review": [0.25], "python-refactoring": [0.25]}
    assert (place.project / "AGENTS.md").read_bytes() == ORIGINAL
    assert not (place.project / ".codex").exists()


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
@pytest.mark.parametrize("status", [0, 2])
def test_no_instruction_file_before_means_none_after(
    ctx: Context, place: Place, harness: str, status: int
) -> None:
    place.behave("code-review", exit=status)

    result = launch(ctx, "deven", harness, "review", place.project)

    assert seen(place.log)["instruction"] is not None  # there during the session
    assert tree(place.project) == {}
    assert result.attributed_to == "deven"


def test_a_skill_folder_of_the_user_is_never_touched(ctx: Context, place: Place) -> None:
    mine = place.project / ".claude" / "skills" / "code-review" / "SKILL.md"
    mine.parent.mkdir(parents=True)
    mine.write_bytes(b"---\nname: code-review\ndescription: my own\n---\nMine.\n")
    before = tree(place.project)
    place.behave("file:code-review,sqlite-migrations")

    result = launch(ctx, "deven", "claude-code", "fix the flaky test", place.project)

    saw = seen(place.log)
    assert "this folder already has a skill of that name" in saw["instruction"]
    assert tree(place.project) == before
    # Reading the user's own file is still a read of a library skill by that name.
    assert set(uses(ctx, result)) == {"code-review", "sqlite-migrations"}


def test_live_callbacks_act_as_the_member_under_the_grant(
    ctx: Context, place: Place, cli_env: str
) -> None:
    place.behave(calls="skill show code-review;state get deven;state get alice;recall flaky")

    result = launch(ctx, "deven", "claude-code", "fix the flaky test", place.project)

    calls = {c["call"]: c for c in seen(place.log)["calls"]}
    assert calls["skill show code-review"]["code"] == 0
    assert "Code review" in calls["skill show code-review"]["out"]
    assert calls["state get deven"]["code"] == 0
    assert calls["state get alice"]["code"] == 1
    assert "member deven" in calls["state get alice"]["err"]
    assert calls["recall flaky"]["code"] == 0
    # The live read is the session's one use of the skill.
    assert uses(ctx, result) == {"code-review": [1.0]}


def test_refusals_change_nothing(ctx: Context, place: Place) -> None:
    def counts() -> tuple[int, int, int]:
        events = ctx.store.read(
            lambda c: c.execute(select(func.count()).select_from(SKILL_EVENT)).scalar()
        )
        return len(list_executions(ctx)), len(list_grants(ctx)), int(events or 0)

    before = counts()
    with pytest.raises(InvalidInput, match="pi"):
        launch(ctx, "deven", "pi", "", place.project)
    with pytest.raises(NotFound, match="no member"):
        launch(ctx, "nobody", "codex", "", place.project)
    with pytest.raises(InvalidInput, match="--session-id"):
        launch(ctx, "deven", "claude-code", "", place.project, ["--session-id", "x"])
    with pytest.raises(InvalidInput, match="--cwd"):
        launch(ctx, "deven", "codex", "", place.project, ["--cd=/tmp"])
    with pytest.raises(InvalidInput, match="not a folder"):
        launch(ctx, "deven", "codex", "", place.project / "missing")
    member = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    with pytest.raises(AccessDenied):
        launch(member, "deven", "codex", "", place.project)
    place.monkeypatch.setenv("PATH", str(place.bin.parent / "empty"))
    with pytest.raises(NotFound, match="claude is not on PATH"):
        launch(ctx, "deven", "claude-code", "", place.project)
    ctx.store.config.raw["launch"] = {"codex": "/opt/none/codex"}  # type: ignore[index]
    with pytest.raises(NotFound, match=r"\[launch\] codex = '/opt/none/codex': not an executable"):
        launch(ctx, "deven", "codex", "", place.project)
    (place.project / "CLAUDE.md").symlink_to(place.project / "gone.md")
    with pytest.raises(InvalidInput, match="symbolic link to nothing"):
        launch(ctx, "deven", "claude-code", "", place.project)
    (place.project / "CLAUDE.md").unlink()
    assert counts() == (before[0], before[1] + 1, before[2])
    assert tree(place.project) == {}


def test_the_configured_executable_wins(ctx: Context, place: Place, tmp_path: Path) -> None:
    elsewhere = tmp_path / "opt" / "my-claude"
    elsewhere.parent.mkdir()
    elsewhere.write_bytes((place.bin / "claude").read_bytes())
    elsewhere.chmod(0o755)
    (place.bin / "claude").unlink()
    ctx.store.config.raw["launch"] = {"claude-code": str(elsewhere)}  # type: ignore[index]
    place.behave()

    result = launch(ctx, "deven", "claude-code", "", place.project)

    assert result.attributed_to == "deven"
    assert [e.id for e in list_executions(ctx.as_actor(OWNER), "deven")] == [result.execution.id]


def test_a_secret_in_the_task_reaches_no_disk(ctx: Context, place: Place) -> None:
    secret = "ghp_" + "a1B2c3D4e5" * 3 + "F6G7H8"
    place.behave()

    result = launch(ctx, "deven", "claude-code", f"deploy with {secret}", place.project)

    assert result.execution.task == "deploy with [REDACTED:github-pat]"
    assert secret not in seen(place.log)["instruction"]
    assert "deploy with [REDACTED:github-pat]" in seen(place.log)["instruction"]
