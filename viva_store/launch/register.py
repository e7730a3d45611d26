"""``viva mcp`` registered in the launched harness, for that session only.

A launch adds the server to the harness's command line, never to a file: Claude Code
reads it from ``--mcp-config`` (a JSON document given inline), Codex from ``-c
mcp_servers.viva.*`` overrides. The user's own configuration is not touched, and the
registration ends with the process.

The grant is not written anywhere either: the server gets it from the environment the
harness starts it with. Claude Code starts its MCP servers with its own environment (which
holds ``VIVA_GRANT``); Codex passes only a few variables on by default, so the override
names the ones ``viva mcp`` needs in ``env_vars``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from viva_store.records import JsonRecord

SERVER = "viva"
"""The server's name in the harness (its tools appear as ``mcp__viva__recall``)."""
FORWARDED = (
    "VIVA_GRANT",
    "VIVA_MEMBER",
    "VIVA_EXECUTION",
    "VIVA_HOME",
    "VIVA_DB_URL",
    "VIVA_NOW",
    "XDG_DATA_HOME",  # where VIVA_HOME defaults to on Linux
)
"""What the server needs from the harness's environment: the grant and the store's place."""


@dataclass(frozen=True, slots=True)
class McpRegistration(JsonRecord):
    """How one launch registers the server: the command, what reaches it, the harness flags.

    ``env``: the variables the harness passes on to the server — ``("*",)`` when it passes
    its whole environment.
    """

    server: str
    harness: str
    command: tuple[str, ...]
    env: tuple[str, ...]
    harness_args: tuple[str, ...]


def viva_argv(env: Mapping[str, str]) -> list[str]:
    """The program that runs ``viva``, as an argv (absolute: the harness resolves nothing)."""
    found = shutil.which("viva", path=env.get("PATH", os.defpath))
    if found:
        return [str(Path(found).absolute())]
    script = Path(sys.argv[0])
    if script.name == "viva" and script.is_file():
        return [str(script.absolute())]
    return [sys.executable, "-m", "viva_tui.cli"]


def viva_command(env: Mapping[str, str]) -> str:
    """How the member calls Viva back in a shell: ``viva`` when it is on the harness's PATH."""
    if shutil.which("viva", path=env.get("PATH", os.defpath)):
        return "viva"
    return shlex.join(viva_argv(env))


def _claude_code(command: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    server = {"type": "stdio", "command": command[0], "args": [*command[1:]]}
    document = json.dumps({"mcpServers": {SERVER: server}}, separators=(",", ":"))
    # `=`: the flag takes several values, and a separate one would swallow the user's
    # own arguments that follow it.
    return (f"--mcp-config={document}",), ("*",)


def _codex(command: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    # Each value is TOML; a JSON string or list of strings is one.
    values = {"command": command[0], "args": [*command[1:]], "env_vars": list(FORWARDED)}
    args: list[str] = []
    for key, value in values.items():
        args += ["-c", f"mcp_servers.{SERVER}.{key}={json.dumps(value)}"]
    return tuple(args), FORWARDED


_BY_HARNESS = {"claude-code": _claude_code, "codex": _codex}


def registration(harness: str, viva: Sequence[str]) -> McpRegistration:
    """The registration of ``viva mcp`` (``viva`` is :func:`viva_argv`) in ``harness``."""
    command = (*viva, "mcp")
    harness_args, env = _BY_HARNESS[harness](command)
    return McpRegistration(SERVER, harness, command, env, harness_args)
