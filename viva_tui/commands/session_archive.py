"""``viva session export``, ``viva export`` and ``viva session resume``: a session
taken out of Viva as a file, or reopened in its own harness."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Annotated

import typer

from viva_tui.commands import pager
from viva_tui.commands.common import (
    JsonOpt,
    SinceOpt,
    context,
    print_json,
    since_option,
    usage_error,
)
from viva_tui.commands.pager import NoPagerOpt
from viva_tui.commands.sessions import session_app

app = typer.Typer()

FormatOpt = Annotated[
    str, typer.Option("--format", metavar="md|html|json|jsonl", help="What to write.")
]
FORMATS = ("md", "html", "json", "jsonl")


def _format(fmt: str) -> str:
    if fmt not in FORMATS:
        usage_error(f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}")
    return fmt


@session_app.command("export")
def export_one(
    ref: Annotated[str, typer.Argument(help="Viva id, the harness's id, or a unique prefix.")],
    fmt: FormatOpt = "md",
    output: Annotated[
        str | None,
        typer.Option(
            "-o", "--output", metavar="PATH", help="Write here (a folder: its own name in it)."
        ),
    ] = None,
    json_: JsonOpt = False,
    no_pager: NoPagerOpt = False,
) -> None:
    """One session, whole and redacted, as Markdown, HTML, JSON or JSON lines (stdout
    without -o, long Markdown on a terminal through $PAGER; --json reports the file)."""
    from viva_store.export.service import export_transcript, render, write_export

    _format(fmt)
    ctx = context()
    if output is None and not json_:
        text = render(export_transcript(ctx, ref), fmt)
        if fmt == "md" and not no_pager and pager.stdout_is_terminal():
            pager.show(text)
        else:
            sys.stdout.write(text)
        return
    folder = output is not None and output.endswith(("/", os.sep))
    written = write_export(ctx, ref, fmt, Path(output) if output else None, folder)
    if json_:
        print_json(written)
    else:
        print(written.path)


@app.command("export")
def export_many(
    output: Annotated[Path, typer.Option("-o", "--output", help="The folder to write into.")],
    member: Annotated[
        str | None, typer.Option("--member", help="Only sessions filed into this member.")
    ] = None,
    since: SinceOpt = None,
    fmt: FormatOpt = "md",
    json_: JsonOpt = False,
) -> None:
    """Every session you may see (narrowed by --member and --since), one file each."""
    from viva_store.export.service import export_sessions

    _format(fmt)
    after = since_option(since)
    written = export_sessions(context(), output, fmt, member=member, since=after)
    if json_:
        print_json(written)
        return
    print(f"{len(written)} session{'s' * (len(written) != 1)} exported to {output}")


@session_app.command("resume")
def resume(
    ref: Annotated[str, typer.Argument(help="Viva id, the harness's id, or a unique prefix.")],
    print_: Annotated[
        bool, typer.Option("--print", help="Print the command instead of running it.")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Owner: reopen the session in its harness, in its working folder."""
    from viva_store.errors import InvalidInput
    from viva_store.sessions.service import resume_command

    command = resume_command(context(), ref)
    if json_:
        print_json(command)
        return
    if print_:
        print(command.shell)
        return
    if not command.cwd_exists:
        raise InvalidInput(f"{command.cwd} is gone: cannot resume the session there")
    program = shutil.which(command.argv[0])
    if program is None:
        raise InvalidInput(f"{command.argv[0]} is not on PATH (the command: {command.shell})")
    sys.stdout.flush()
    done = subprocess.run([program, *command.argv[1:]], cwd=command.cwd, env=os.environ.copy())
    raise typer.Exit(128 - done.returncode if done.returncode < 0 else done.returncode)


@session_app.command("label")
def label(
    ref: Annotated[str, typer.Argument(help="Viva id, the harness's id, or a unique prefix.")],
    text: Annotated[str, typer.Argument(help="The label (with --title: the title).")],
    title: Annotated[
        bool, typer.Option("--title", help="Show TEXT as the session's title ('': its own).")
    ] = False,
    remove: Annotated[bool, typer.Option("--remove", help="Take the label off.")] = False,
    json_: JsonOpt = False,
) -> None:
    """Add a label to a session, take one off, or give it a title (append-only events)."""
    from viva_store.sessions.service import label_session

    if title and remove:
        usage_error("choose one of --title, --remove")
    kind = "title" if title else ("unlabel" if remove else "label")
    done = label_session(context(), ref, text, kind)
    if json_:
        print_json(done)
        return
    shown = ", ".join(done.labels) or "no labels"
    print(f"{done.session_id}: {shown} · {done.title or '(untitled)'}")
