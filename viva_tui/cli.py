"""The ``viva`` command (typer). It never imports Textual unless it opens the app.

Typer builds the click command of every registered command (reading each function's
signature) before it runs one; :func:`main` hands it only the command the arguments
name, and the whole app for help, no command or a name it does not know.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

import typer
import typer.main

from viva_tui.commands import (
    demo,
    importing,
    launch,
    principles,
    recall,
    sessions,
    skills,
    team,
    tui,
)
from viva_tui.commands.coercion import install as install_plain_coercion

install_plain_coercion()  # typer's pydantic coercion only for values that need it


def _new_app() -> typer.Typer:
    return typer.Typer(
        name="viva",
        help="Viva — the home of a small team of AI members.",
        add_completion=False,
        pretty_exceptions_enable=False,
        no_args_is_help=False,
    )


app = _new_app()
COMMAND_GROUPS = (
    team.app,
    importing.app,
    sessions.app,
    skills.top,
    recall.app,
    demo.app,
    tui.app,
    launch.app,
)
for group in COMMAND_GROUPS:
    app.registered_commands += group.registered_commands
app.add_typer(sessions.session_app, name="session")
app.add_typer(skills.app, name="skill")
app.add_typer(principles.app, name="principle")
app.add_typer(principles.report_app, name="report")
app.add_typer(recall.state_app, name="state")


@app.callback(invoke_without_command=True)
def _default(ctx: typer.Context) -> None:
    """With no command, open the app (same as `viva tui`)."""
    if ctx.invoked_subcommand is None:
        tui.open_app()


def app_for(args: Sequence[str]) -> typer.Typer:
    """The app with only the command (or group) ``args`` start with; the whole app when
    they name none of them (help, no command, a mistyped name: its suggestions)."""
    word = args[0] if args else ""
    if word.startswith("-"):
        return app
    one = _new_app()
    one.registered_callback = app.registered_callback
    if not word:
        return one
    for command in app.registered_commands:
        name = command.name or typer.main.get_command_name(
            getattr(command.callback, "__name__", "")
        )
        if name == word:
            one.registered_commands.append(command)
            return one
    for group in app.registered_groups:
        if group.name == word:
            one.registered_groups.append(group)
            return one
    return app


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
