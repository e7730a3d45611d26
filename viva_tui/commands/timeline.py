"""``viva timeline M``: one member's experience over time, newest first."""

from __future__ import annotations

from typing import Annotated

import typer

from viva_tui.commands import completion
from viva_tui.commands.common import JsonOpt, SinceOpt, context, print_json, since_option, table
from viva_tui.commands.output import key, when

app = typer.Typer()


@app.command()
def timeline(
    member: Annotated[
        str,
        typer.Argument(autocompletion=completion.member, help="Member name (see `viva members`)."),
    ],
    since: SinceOpt = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="At most N entries (a table: 50).")
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Sessions from every harness, skill events and principle decisions, newest first."""
    from viva_store.sessions.service import member_timeline

    after = since_option(since)
    shown = limit if (limit or json_) else 50
    items = member_timeline(context(), member, after, shown)
    if json_:
        print_json(items)
        return
    if not items:
        typer.echo(f"nothing in {member}'s timeline" + (f" since {since}" if since else ""))
        return
    table(
        f"{member}'s timeline ({len(items)}{'+' if shown and len(items) == shown else ''})",
        [key("when"), "kind", key("id"), "what"],
        [
            (
                when(item.at),
                item.kind,
                item.session_id or item.principle_id or item.skill or "",
                _what(item.kind, item.harness, item.project, item.text),
            )
            for item in items
        ],
    )


def _what(kind: str, harness: str | None, project: str | None, text: str) -> str:
    if kind != "session":
        return text
    where = " · ".join(part for part in (harness, project) if part)
    return f"{text} ({where})" if where else text
