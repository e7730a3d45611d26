"""The ``viva`` command (typer). It never imports Textual unless it opens the app."""

from __future__ import annotations

import io
import os
import sys
from typing import TextIO

import typer

from viva_store.errors import VivaError, redacted, unexpected_error_line
from viva_tui.commands import (
    demo,
    importing,
    launch,
    mcp,
    principles,
    recall,
    redact,
    sessions,
    skills,
    team,
    timeline,
    triage,
    tui,
)

app = typer.Typer(
    name="viva",
    help="Viva — the home of a small team of AI members.",
    add_completion=False,
    pretty_exceptions_enable=False,
    no_args_is_help=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
COMMAND_GROUPS = (
    team.app,
    importing.app,
    sessions.app,
    triage.app,
    timeline.app,
    skills.top,
    recall.app,
    redact.app,
    demo.app,
    tui.app,
    launch.app,
    mcp.app,
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
        code = app(standalone_mode=False)
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
        sys.stderr.write(
            f"viva: internal error: {unexpected_error_line(exc)} "
            "(set VIVA_DEBUG=1 for the traceback)\n"
        )
        sys.exit(1)
    if isinstance(code, int) and code:
        sys.exit(code)


if __name__ == "__main__":
    main()
