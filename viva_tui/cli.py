"""The ``viva`` command (typer). It never imports Textual unless it opens the app.

Typer builds the click command of every registered command (reading each function's
signature) before it runs one, and importing every command module costs a call too;
:func:`main` imports and hands Typer only the command the arguments name
(:data:`TOP_COMMANDS`, :data:`GROUPS`), and the whole app (:func:`whole_app`) for help or
a name it does not know (Typer's suggestions need them all), and for shell completion
(the words come from the shell's variables, not the arguments).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import os
import sys
from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, TextIO

import typer
import typer.main

from viva_store.errors import VivaError, redacted, unexpected_error_line
from viva_tui import __version__
from viva_tui.commands.coercion import install as install_plain_coercion
from viva_tui.commands.metavars import HELP_NAMES, name_values

install_plain_coercion()  # typer's pydantic coercion only for values that need it

TOP_COMMANDS = {
    "init": "team",
    "members": "team",
    "grant": "team",
    "import": "importing",
    "status": "importing",
    "sessions": "sessions",
    "classify": "triage",
    "unclassify": "triage",
    "suggest": "triage",
    "timeline": "timeline",
    "project": "skills",
    "recall": "recall",
    "mark": "recall",
    "usage": "usage",
    "redact": "redact",
    "demo": "demo",
    "tui": "tui",
    "launch": "launch",
    "mcp": "mcp",
    "doctor": "maintenance",
    "backup": "maintenance",
    "restore": "maintenance",
    "export": "session_archive",
    "brief": "knowledge",
}
"""Each top-level command and the module of ``viva_tui.commands`` defining it."""
MODULE_APPS = {"skills": "top", "knowledge": "top"}
"""The Typer holding a module's top-level commands, where it is not ``app``."""
GROUPS = {
    "session": ("sessions", "session_app"),
    "skill": ("skills", "app"),
    "principle": ("principles", "app"),
    "report": ("principles", "report_app"),
    "state": ("recall", "state_app"),
    "knowledge": ("knowledge", "app"),
}
"""Each command group: its module and the module's Typer."""
GLOBAL_FLAGS = frozenset({"--verbose"})
"""Options of ``viva`` itself that may come before the command's name."""


def _new_app() -> typer.Typer:
    viva = typer.Typer(
        name="viva",
        help="Viva — the home of a small team of AI members.",
        add_completion=True,
        pretty_exceptions_enable=False,
        no_args_is_help=False,
        context_settings={"help_option_names": HELP_NAMES},
    )
    viva.callback(invoke_without_command=True)(_default)
    return viva


def _print_version(asked: bool) -> None:
    if asked:
        print(f"viva {__version__}")
        raise typer.Exit()


def _default(
    ctx: typer.Context,
    version: Annotated[
        bool,
        typer.Option(
            "--version", is_eager=True, callback=_print_version, help="Print the version and exit."
        ),
    ] = False,
    verbose: Annotated[
        bool,
        typer.Option("--verbose", help="Log DEBUG too, and show each log record on stderr."),
    ] = False,
) -> None:
    """With no command, open the app (same as `viva tui`)."""
    if verbose:
        from viva_store.logs.service import set_verbose

        set_verbose()
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
    they name none of them (help, a mistyped name: its suggestions) and when the shell
    asks for completions; no command at all for ``--version``."""
    if args and args[0] in GLOBAL_FLAGS:
        return app_for(args[1:])
    word = args[0] if args else ""
    if COMPLETION_VARIABLE in os.environ:
        return whole_app()
    if word == "--version":
        return _new_app()
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


COMPLETION_VARIABLE = "_VIVA_COMPLETE"
"""Set by the shell's completion script (``viva --install-completion``) on each Tab."""


def click_command(app: typer.Typer) -> Any:
    """The click command Typer builds for ``app``, its values named for help."""
    return name_values(typer.main.get_command(app))


if TYPE_CHECKING:
    app: typer.Typer


def __getattr__(name: str) -> Any:
    if name == "app":  # the whole app, built when first asked for
        return whole_app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _RedactingStream(io.TextIOBase):
    """A text stream that redacts each line before passing it on: what click and typer
    print themselves (a usage error quotes the value the user typed) goes through the
    same redactor as Viva's own messages. Lines are held until complete."""

    def __init__(self, target: TextIO) -> None:
        self._target = target
        self._pending = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._pending += text
        if "\n" in self._pending:
            done, self._pending = self._pending.rsplit("\n", 1)
            self._target.write(redacted(done + "\n"))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._target.write(redacted(self._pending))
            self._pending = ""
        self._target.flush()

    def isatty(self) -> bool:
        return self._target.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self._target, "encoding", "utf-8") or "utf-8"


def main() -> None:
    """Entry point: run the command; errors become one line on stderr, never quoting a
    secret the user typed."""
    stderr = sys.stderr
    sys.stderr = _RedactingStream(stderr)
    try:
        _run()
    finally:
        sys.stderr.flush()
        sys.stderr = stderr


def _run() -> None:
    from viva_tui.commands.common import UsageError

    try:
        code = click_command(app_for(sys.argv[1:]))(standalone_mode=False)
    except typer.TyperException as exc:  # typer's own refusals: a usage error exits 2
        if type(exc).__name__ == "NoArgsIsHelpError":
            sys.exit(2)  # a bare group: its help is printed already
        where = getattr(exc, "ctx", None)
        hint = f" (see `{where.command_path} --help`)" if where is not None else ""
        sys.stderr.write(f"viva: {' '.join(exc.format_message().split())}{hint}\n")
        sys.exit(exc.exit_code)
    except typer.Abort:
        sys.stderr.write("viva: aborted\n")
        sys.exit(1)
    except UsageError as exc:
        sys.stderr.write(f"viva: {exc}\n")
        sys.exit(2)
    except VivaError as exc:
        sys.stderr.write(f"viva: {exc}\n")
        sys.exit(1)
    except KeyboardInterrupt:
        sys.stderr.write("viva: interrupted\n")
        sys.exit(130)
    except Exception as exc:  # the last line of defence: no traceback reaches a user
        if os.environ.get("VIVA_DEBUG"):
            raise
        _log_unexpected(exc)
        sys.stderr.write(
            f"viva: internal error: {unexpected_error_line(exc)} "
            "(set VIVA_DEBUG=1 for the traceback)\n"
        )
        sys.exit(1)
    if isinstance(code, int) and code:
        sys.exit(code)


def _log_unexpected(exc: Exception) -> None:
    """An internal error's traceback goes to Viva's log (never to the screen)."""
    with contextlib.suppress(Exception):  # the one-line message is what must get out
        from viva_store.config import load_config
        from viva_store.logs.service import get_logger

        get_logger(load_config(), "cli").error("internal error", exc_info=exc)


if __name__ == "__main__":
    main()
