"""The ``viva`` command (typer). It never imports Textual unless it opens the app."""

from __future__ import annotations

import os
import sys

import typer

from viva_tui.commands import skills, team

app = typer.Typer(
    name="viva",
    help="Viva — the home of a small team of AI members.",
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=True,
)
app.registered_commands += team.app.registered_commands
app.add_typer(skills.app, name="skill")


def main() -> None:
    """Entry point: run the command; errors become one line on stderr."""
    from viva_store.errors import VivaError

    try:
        # Standalone mode: typer prints usage errors itself and exits 2.
        app()
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
