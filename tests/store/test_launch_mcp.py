"""``viva launch`` registers ``viva mcp`` in the harness, for the session only.

The stand-ins (:mod:`tests.store.test_launch_support`, ``STANDIN_MCP``) read the server
from their command line the way each harness does, start it with the environment that
harness gives its MCP servers, and call it through the SDK's stdio client: the server
must answer as the launched member, while the user's own harness configuration — files
holding MCP servers of their own — stays byte for byte as it was.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.store.test_launch_support import install, path_with, seen
from viva_store.launch.render import MCP_TOOLS
from viva_store.launch.service import launch, preview
from viva_store.store import Context
from viva_tui.mcp.tools import TOOLS

USER_FILES = {
    ".claude.json": '{"mcpServers": {"mine": {"type": "stdio", "command": "my-server"}}}\n',
    ".claude/settings.json": '{"permissions": {"allow": ["Bash(ls:*)"]}}\n',
    ".codex/config.toml": '[mcp_servers.mine]\ncommand = "my-server"\nargs = ["--flag"]\n',
}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, cli_env: str) -> Path:
    """A project folder with a ``.mcp.json`` of its own; the user's configs in ``$HOME``."""
    folder = Path(os.path.realpath(tmp_path)) / "work" / "viva"
    folder.mkdir(parents=True)
    (folder / ".mcp.json").write_text('{"mcpServers": {"project": {"command": "p"}}}\n')
    home = Path(os.environ["HOME"])
    for name, text in USER_FILES.items():
        (home / name).parent.mkdir(parents=True, exist_ok=True)
        (home / name).write_text(text)
    install(tmp_path / "bin")
    monkeypatch.setenv("PATH", path_with(tmp_path / "bin"))
    monkeypatch.setenv("STANDIN_LOG", str(tmp_path / "seen.json"))
    monkeypatch.setenv("STANDIN_MCP", "1")
    for var in ("CODEX_HOME", "CLAUDE_CONFIG_DIR", "STANDIN_READS", "STANDIN_CALLS"):
        monkeypatch.delenv(var, raising=False)
    return folder


def configuration(project: Path) -> dict[str, bytes]:
    """The user's own harness configuration: every file but the transcripts harnesses write."""
    home = Path(os.environ["HOME"])
    transcripts = (home / ".claude" / "projects", home / ".codex" / "sessions")
    files = [p for p in home.rglob("*") if p.is_file() and not p.is_relative_to(transcripts[0])]
    files = [p for p in files if not p.is_relative_to(transcripts[1])]
    return {str(p): p.read_bytes() for p in sorted([*files, project / ".mcp.json"])}


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_the_harness_reaches_viva_mcp_as_the_member_and_the_users_config_is_kept(
    ctx: Context, project: Path, harness: str
) -> None:
    before = configuration(project)

    result = launch(ctx, "deven", harness, "fix the flaky test", project, ["--model", "m"])

    saw = seen(Path(os.environ["STANDIN_LOG"]))
    mcp = saw["mcp"]
    assert mcp is not None, "no viva server on the harness's command line"
    assert mcp["tools"] == [t.name for t in TOOLS]
    assert not mcp["is_error"], mcp["state_get"]
    assert json.loads(mcp["state_get"][0])["member"] == "deven"
    assert mcp["config"]["args"][-1] == "mcp"
    # The grant reached the server through the environment only, never the command line.
    token = saw["env"]["VIVA_GRANT"]
    assert token not in json.dumps(saw["argv"]) and token not in json.dumps(mcp["config"])
    assert "VIVA_GRANT" in mcp["env_names"]
    assert saw["argv"][-2:] == ["--model", "m"]  # the user's own arguments come last
    assert configuration(project) == before
    assert result.attributed_to == "deven" and result.grant_revoked


def test_codex_passes_the_server_only_what_it_names(ctx: Context, project: Path) -> None:
    launch(ctx, "deven", "codex", "", project)

    env = set(seen(Path(os.environ["STANDIN_LOG"]))["mcp"]["env_names"])
    assert {"VIVA_GRANT", "VIVA_MEMBER", "VIVA_EXECUTION", "VIVA_HOME", "PATH"} <= env
    assert "STANDIN_LOG" not in env  # Codex's whitelist, not the whole environment


@pytest.mark.parametrize("harness", ["claude-code", "codex"])
def test_the_dry_run_shows_the_registration_and_it_is_the_one_launched(
    ctx: Context, project: Path, harness: str
) -> None:
    plan = preview(ctx, "deven", harness, "fix the flaky test", project, ["--model", "m"])

    launch(ctx, "deven", harness, "fix the flaky test", project, ["--model", "m"])

    args = list(plan.mcp.harness_args)
    assert plan.command[-len(args) - 2 :] == (*args, "--model", "m")
    launched = seen(Path(os.environ["STANDIN_LOG"]))["argv"]
    assert launched[-len(args) - 2 : -2] == args


def test_the_block_names_the_tools_the_server_serves(ctx: Context, project: Path) -> None:
    plan = preview(ctx, "deven", "claude-code", "", project)

    assert tuple(t.name for t in TOOLS) == MCP_TOOLS
    assert "`viva` MCP server" in plan.block and "`session_show`" in plan.block
