"""Every command and flag that docs/CLI.md lists exists: each one's ``--help`` runs.

docs/CLI.md is the repository's copy of the command contract. Commands still being
built elsewhere are in :data:`NOT_BUILT_YET`; the test checks they are still missing, so
whoever adds one must take it off the list (and the walk then checks its flags).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer.main

from tests.cli.runner import run
from viva_tui import cli

CLI_MD = Path(__file__).resolve().parents[2] / "docs" / "CLI.md"

NOT_BUILT_YET = frozenset({})
"""Commands (and one flag) of docs/CLI.md that other work in progress adds: expected to
be missing. Take a command off this list in the change that adds it."""

_WORD = re.compile(r"^[a-z][a-z-]*$")
_FLAG = re.compile(r"(?<![\w-])(--?[a-z][a-z-]*)")


@dataclass(frozen=True)
class Listed:
    """One command as docs/CLI.md lists it: its words after ``viva`` and its flags."""

    path: tuple[str, ...]
    flags: tuple[str, ...]

    @property
    def name(self) -> str:
        return " ".join(("viva", *self.path))


def listed_commands(text: str) -> list[Listed]:
    """The commands of the contract's ``## Commands`` block, continuation lines joined.

    ``a | viva b`` and ``a | b`` (``b`` in ``a``'s group) are two commands; the text after
    two spaces is the description.
    """
    block = text.split("## Commands", 1)[1].split("```", 2)[1]
    entries: list[str] = []
    for raw in block.splitlines():
        usage = re.split(r"\s{2,}", raw.strip())[0] if raw.strip() else ""
        if raw.startswith("viva"):
            entries.append(usage)
        elif entries and usage.startswith(("[", "--")):
            entries[-1] += " " + usage
    out: list[Listed] = []
    for entry in entries:
        words = entry.split()[1:]
        group = words[:1] if words and _WORD.match(words[0]) else []
        for number, part in enumerate(_alternatives(" ".join(words))):
            tokens = part.split()
            if tokens[:1] == ["viva"]:
                tokens = tokens[1:]
            elif number:
                tokens = [*group, *tokens]
            path: list[str] = []
            for token in tokens:
                if not _WORD.match(token):
                    break
                path.append(token)
            flags = tuple(dict.fromkeys(_FLAG.findall(" ".join(tokens[len(path) :]))))
            out.append(Listed(tuple(path), flags))
    return out


def _alternatives(usage: str) -> list[str]:
    """``usage`` split at each `` | `` outside brackets (``[--a | --b]`` is one command)."""
    parts, depth, start = [], 0, 0
    for at, char in enumerate(usage):
        depth += {"[": 1, "]": -1}.get(char, 0)
        if depth == 0 and usage.startswith(" | ", at):
            parts.append(usage[start:at])
            start = at + 3
    return [*parts, usage[start:]]


def _command(path: tuple[str, ...]) -> tuple[Any | None, tuple[str, ...]]:
    """The click command at ``path`` and the words of ``path`` it names (None: no such
    command). Words past a command that has no subcommands are its arguments
    (``viva grant revoke``)."""
    command: Any = typer.main.get_command(cli.app)
    for depth, word in enumerate(path):
        children = getattr(command, "commands", None)
        if children is None and depth:
            return command, path[:depth]
        if not children or word not in children:
            return None, path
        command = children[word]
    return command, path


def _options(command: Any) -> set[str]:
    return {opt for p in command.params for opt in (*p.opts, *p.secondary_opts)} | {"-h"}


def _missing(item: Listed) -> list[str]:
    """What of ``item`` the CLI lacks: the command, or the flags it does not take."""
    command, _ = _command(item.path)
    if command is None:
        return [item.name]
    return [f"{item.name} {flag}" for flag in item.flags if flag not in _options(command)]


LISTED = listed_commands(CLI_MD.read_text(encoding="utf-8"))


def test_the_contract_lists_the_commands_it_should() -> None:
    names = {item.name for item in LISTED}
    assert {"viva", "viva suggest", "viva timeline", "viva skill reclaim", "viva restore"} <= names
    assert {"--since", "--json"} <= set(next(i for i in LISTED if i.path == ("sessions",)).flags)
    assert not {n for n in NOT_BUILT_YET if not n.startswith("viva --")} - names


@pytest.mark.parametrize("item", LISTED, ids=lambda item: item.name)
def test_every_listed_command_and_flag_exists(item: Listed) -> None:
    gaps = _missing(item)
    expected = sorted(gap for gap in gaps if gap in NOT_BUILT_YET)
    if item.name in NOT_BUILT_YET or expected:
        assert gaps, f"{item.name} exists now: take it off NOT_BUILT_YET"
        return
    assert gaps == []
    _, named = _command(item.path)
    result = run([*named, "--help"])
    assert result.code == 0, result.err
    assert f"Usage: {' '.join(('viva', *named))} " in " ".join(result.out.split())
    for flag in item.flags:
        assert flag in result.out


def test_a_flag_not_built_yet_is_still_missing() -> None:
    """Each ``NOT_BUILT_YET`` entry naming a flag must still be a gap."""
    for name in NOT_BUILT_YET:
        words = name.split()[1:]
        path = tuple(w for w in words if not w.startswith("-"))
        flags = tuple(w for w in words if w.startswith("-"))
        assert _missing(Listed(path, flags)), f"{name} exists now: take it off NOT_BUILT_YET"
