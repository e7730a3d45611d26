"""Generate the command reference (``docs/reference.md``) and the man page (``docs/viva.1``).

    python scripts/gen_cli_reference.py [--check]

Both are written from the typer app itself — every command's usage line, help and
parameters as ``viva … --help`` shows them — so they cannot drift from the code; a test
(``tests/cli/test_cli_reference.py``) fails when the committed files differ from what this
prints. ``--check`` exits 1 instead of writing when they differ. ``docs/CLI.md`` is the
hand-written contract; this is the generated reference.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

REFERENCE = REPO / "docs" / "reference.md"
MAN_PAGE = REPO / "docs" / "viva.1"


@dataclass(frozen=True)
class Parameter:
    """One argument or option as help shows it."""

    names: str  # "--member MEMBER", "-h, --help", "QUERY"
    help: str
    required: bool


@dataclass(frozen=True)
class Command:
    """One command (or group) of the tree, by its words after ``viva``."""

    path: tuple[str, ...]
    usage: str
    help: str
    parameters: tuple[Parameter, ...]
    subcommands: tuple[tuple[str, str], ...]  # (name, short help) of a group's commands

    @property
    def name(self) -> str:
        return " ".join(("viva", *self.path))


def commands() -> list[Command]:
    """Every visible command of ``viva``, in the order ``--help`` lists them."""
    from typer import _click

    from viva_tui import cli

    root = cli.click_command(cli.whole_app())
    return list(_walk(root, _click.Context(root, info_name="viva"), ()))


def _walk(command: Any, ctx: Any, path: tuple[str, ...]) -> Iterator[Command]:
    from typer import _click

    yield _described(command, ctx, path)
    for name, child in getattr(command, "commands", {}).items():
        if not child.hidden:
            child_ctx = _click.Context(child, info_name=name, parent=ctx)
            yield from _walk(child, child_ctx, (*path, name))


def _described(command: Any, ctx: Any, path: tuple[str, ...]) -> Command:
    parameters = []
    for param in command.get_params(ctx):
        if getattr(param, "hidden", False):
            continue
        if param.param_type_name == "argument":
            names = param.metavar or (param.name or "").upper()
        else:
            # short forms first (click keeps the help option's names in a set)
            opts = sorted(param.opts, key=lambda opt: (opt.startswith("--"), opt))
            names = ", ".join([*opts, *param.secondary_opts])
            names += f" {param.metavar}" if param.metavar else ""
        parameters.append(Parameter(names, _plain(param.help or ""), bool(param.required)))
    children = getattr(command, "commands", {})
    subcommands = tuple(
        (name, child.get_short_help_str(limit=300))
        for name, child in children.items()
        if not child.hidden
    )
    usage = " ".join(["viva", *path, *command.collect_usage_pieces(ctx)])
    return Command(path, usage, _plain(command.help or ""), tuple(parameters), subcommands)


def _plain(text: str) -> str:
    return inspect.cleandoc(text).replace("\b\n", "").strip()


def reference(tree: list[Command]) -> str:
    """The Markdown reference."""
    out = [
        "# `viva` command reference",
        "",
        "Generated from the code by `scripts/gen_cli_reference.py`; do not edit. The",
        "contract these commands keep is `docs/CLI.md`.",
    ]
    for command in tree:
        out += ["", f"## `{command.name}`", "", "```", command.usage, "```"]
        if command.help:
            out += ["", command.help]
        if command.subcommands:
            out += ["", "Commands:", ""]
            out += [f"- `{name}`: {help}".rstrip(": ") for name, help in command.subcommands]
        if command.parameters:
            out += ["", "Arguments and options:", ""]
            for param in command.parameters:
                required = " (required)" if param.required else ""
                out.append(f"- `{param.names}`{required}: {param.help}".rstrip(": "))
    return "\n".join(out) + "\n"


def man_page(tree: list[Command]) -> str:
    """The roff man page, section 1."""
    from viva_tui import __version__

    root, rest = tree[0], tree[1:]
    out = [
        f'.TH VIVA 1 "" "viva {__version__}" "User Commands"',
        ".SH NAME",
        r"viva \- " + _roff(root.help.split(" — ")[-1].rstrip(".")),
        ".SH SYNOPSIS",
        _roff(root.usage),
        ".SH DESCRIPTION",
        _roff(
            "With no command, viva opens the terminal app. Each command below takes -h or "
            "--help. The full reference is docs/reference.md; the contract is docs/CLI.md."
        ),
        ".SH OPTIONS",
        *_roff_parameters(root.parameters),
        ".SH COMMANDS",
    ]
    for command in rest:
        out += [".SS " + _quoted(command.name), _roff(command.usage), ".PP"]
        if command.help:
            out += [_roff(command.help)]
        out += _roff_parameters(command.parameters)
    out += [
        ".SH ENVIRONMENT",
        ".TP",
        ".B VIVA_HOME",
        _roff("The data folder (database, members, themes, config)."),
        ".TP",
        ".B VIVA_DB_URL",
        _roff("Any SQLAlchemy URL of the store (SQLite by default, PostgreSQL too)."),
        ".TP",
        ".B VIVA_GRANT",
        _roff("A member's grant: the call acts as that member; absent: the owner."),
        ".SH SEE ALSO",
        _roff("docs/CLI.md, docs/reference.md"),
    ]
    return "\n".join(out) + "\n"


def _roff_parameters(parameters: tuple[Parameter, ...]) -> list[str]:
    out = []
    for param in parameters:
        out += [".TP", ".B " + _quoted(param.names + (" (required)" if param.required else ""))]
        out.append(_roff(param.help) if param.help else r"\&")
    return out


def _roff(text: str) -> str:
    """``text`` as roff body lines: backslashes and dashes escaped, no line read as a
    request."""
    lines = []
    for line in text.replace("\\", r"\e").replace("-", r"\-").splitlines() or [""]:
        lines.append(r"\&" + line if line.startswith((".", "'")) else line)
    return "\n".join(line if line.strip() else ".PP" for line in lines)


def _quoted(text: str) -> str:
    return '"' + text.replace("\\", r"\e").replace("-", r"\-").replace('"', r"\(dq") + '"'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the files are stale")
    args = parser.parse_args()
    tree = commands()
    stale = []
    for path, text in ((REFERENCE, reference(tree)), (MAN_PAGE, man_page(tree))):
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path)
        if not args.check:
            path.write_text(text, encoding="utf-8")
    verb = "stale" if args.check else "written"
    for path in stale:
        print(f"{path.relative_to(REPO)}: {verb}")
    return 1 if args.check and stale else 0


if __name__ == "__main__":
    sys.exit(main())
