"""The ``viva`` command (typer). It never imports Textual unless it opens the app.

Typer builds the click command of every registered command (reading each function's
signature) before it runs one, and importing every command module costs a call too;
:func:`main` imports and hands Typer only the command the arguments name
(:data:`TOP_COMMANDS`, :data:`GROUPS`), and the whole app (:func:`whole_app`) for help or
a name it does not know (Typer's suggestions need them all).
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import typer
import typer.main

from viva_tui.commands.coercion import install as install_plain_coercion

install_plain_coercion()  # typer's pydantic coercion only for values that need it

TOP_COMMANDS = {
    "init": "team",
    "members": "team",
    "grant": "team",
    "import": "importing",
    "status": "importing",
    "sessions": "sessions",
    "classify": "sessions",
    "unclassify": "sessions",
    "project": "skills",
    "recall": "recall",
    "mark": "recall",
    "demo": "demo",
    "tui": "tui",
    "launch": "launch",
}
"""Each top-level command and the module of ``viva_tui.commands`` defining it."""
MODULE_APPS = {"skills": "top"}
"""The Typer holding a module's top-level commands, where it is not ``app``."""
GROUPS = {
    "session": ("sessions", "session_app"),
    "skill": ("skills", "app"),
    "principle": ("principles", "app"),
    "report": ("principles", "report_app"),
    "state": ("recall", "state_app"),
}
"""Each command group: its module and the module's Typer."""


def _new_app() -> typer.Typer:
    viva = typer.Typer(
        name="viva",
        help="Viva — the home of a small team of AI members.",
        add_completion=False,
        pretty_exceptions_enable=False,
        no_args_is_help=False,
    )
    viva.callback(invoke_without_command=True)(_default)
    return viva


def _default(ctx: typer.Context) -> None:
    """With no command, open the app (same as `viva tui`)."""
    if ctx.invoked_subcommand is None:
        from viva_tui.commands.tui import open_app

        open_app()


def _typer_of(module: str, attribute: str) -> typer.Typer:
    found: typer.Typer = getattr(importlib.import_module(f"viva_tui.commands.{module}"), attribute)
    return found


def _name(command: Any) -> str:
    return str(command.name or typer.main.get_command_name(command.callback.__name__))


@cache
def whole_app() -> typer.Typer:
    """Every command and group."""
    viva = _new_app()
    for module in dict.fromkeys(TOP_COMMANDS.values()):
        viva.registered_commands += _typer_of(
            module, MODULE_APPS.get(module, "app")
        ).registered_commands
    for name, (module, attribute) in GROUPS.items():
        viva.add_typer(_typer_of(module, attribute), name=name)
    return viva


def app_for(args: Sequence[str]) -> typer.Typer:
    """The app with only the command (or group) ``args`` start with; the whole app when
    they name none of them (help, a mistyped name: its suggestions)."""
    word = args[0] if args else ""
    if word.startswith("-"):
        return whole_app()
    one = _new_app()
    if not word:
        return one
    if word in GROUPS:
        module, attribute = GROUPS[word]
        one.add_typer(_typer_of(module, attribute), name=word)
        return one
    if word in TOP_COMMANDS:
        module = TOP_COMMANDS[word]
        commands = _typer_of(module, MODULE_APPS.get(module, "app")).registered_commands
        one.registered_commands += [c for c in commands if _name(c) == word]
        return one
    return whole_app()


if TYPE_CHECKING:
    app: typer.Typer


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole app, built when first asked for
        return whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> None:
    """Entry point: run the command; errors become one line on stderr."""
    from viva_store.errors import VivaError

    try:
        # Standalone mode: typer prints usage errors itself and exits 2.
        app_for(sys.argv[1:])()
    except VivaError as exc:
        sys.stderr.write(f"viva: {exc}\n")
        sys.exit(1)
    except KeyboardInterrupt:
        sys.stderr.write("viva: interrupted\n")
        sys.exit(130)
    except Exception as exc:  # the last line of defence: no traceback reaches a user
        if os.environ.get("VIVA_DEBUG"):
            raise
        sys.stderr.write(
            f"viva: internal error: {type(exc).__name__}: {' '.join(str(exc).split())[:300]} "
            "(set VIVA_DEBUG=1 for the traceback)\n"
        )
        sys.exit(1)


if __name__ == "__main__":
    main()
