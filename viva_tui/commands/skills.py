"""``viva skill ...``: the team library and each member's skill set."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from viva_tui.commands.common import JsonOpt, context, print_json, table, warn

app = typer.Typer(help="The team skill library and each member's skill set.", no_args_is_help=True)
top = typer.Typer()  # top-level commands that belong here: `viva project`


@app.command("library")
def library(json_: JsonOpt = False) -> None:
    """The team skill library."""
    from viva_store.services.library import list_library

    skills = list_library(context())
    if json_:
        print_json(skills)
        return
    table(None, ["skill", "description"], [(s.name, _short(s.description)) for s in skills])


@app.command("import")
def import_(
    folder: Annotated[
        Path, typer.Argument(help="A folder of SKILL.md folders (e.g. ~/.claude/skills).")
    ],
    json_: JsonOpt = False,
) -> None:
    """Add SKILL.md folders to the team library; bad folders are reported, not loaded."""
    from viva_store.services.library import import_skills

    result = import_skills(context(), folder.expanduser())
    if json_:
        print_json(
            {
                "added": result.added,
                "updated": result.updated,
                "unchanged": result.unchanged,
                "errors": result.errors,
            }
        )
    else:
        typer.echo(
            f"{len(result.added)} added, {len(result.updated)} updated, "
            f"{len(result.unchanged)} unchanged, {len(result.errors)} rejected"
        )
        for error in result.errors:
            warn(error)
    if result.errors:
        raise typer.Exit(1)


@app.command("show")
def show(name: Annotated[str, typer.Argument(help="Skill name.")]) -> None:
    """Print a skill's body."""
    from viva_store.services.library import get_skill

    skill = get_skill(context(), name)
    typer.echo(skill.body, nl=False)


def _short(text: str, width: int = 90) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"
