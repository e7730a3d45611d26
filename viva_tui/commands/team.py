"""``viva init``, ``viva members``, ``viva grant``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from viva_tui.commands import completion
from viva_tui.commands.common import JsonOpt, context, print_json, table, usage_error, warn
from viva_tui.commands.output import key, when

app = typer.Typer()


@app.command()
def init(
    members: Annotated[
        Path | None,
        typer.Option("--members", help="Folder of member definitions (default: the shipped team)."),
    ] = None,
) -> None:
    """Create or upgrade the store and load the member definitions and skill library."""
    from viva_store.members.service import load_team
    from viva_store.triage.service import finish_launched

    ctx = context()
    loaded = load_team(ctx, members)
    finish_launched(ctx)  # launched sessions a killed import left unattributed
    lib = loaded.library
    typer.echo(
        f"store: {ctx.store.config.home if ctx.store.config.is_sqlite else 'database'} ready"
    )
    typer.echo(
        f"members: {len(loaded.added)} added, {len(loaded.updated)} refreshed"
        + (f"; skills: {len(lib.added)} added, {len(lib.updated)} updated" if lib else "")
    )
    errors = list(loaded.errors) + (list(lib.errors) if lib else [])
    for error in errors:
        warn(error)
    if errors:
        raise typer.Exit(1)


@app.command("members")
def members_cmd(json_: JsonOpt = False) -> None:
    """List the team: role, engine, harnesses, coordinator."""
    from viva_store.members.service import list_members

    members = list_members(context())
    if json_:
        print_json(members)
        return
    table(
        None,
        [key("member"), "display name", "role", "engine", "harnesses", "coordinator"],
        [
            (
                m.name,  # what every command takes (names are exact)
                m.display_name,
                m.role,
                m.engine,
                ", ".join(m.harnesses),
                "yes" if m.coordinator else "",
            )
            for m in members
        ],
    )


@app.command()
def grant(
    member: Annotated[
        str,
        typer.Argument(autocompletion=completion.member, help="Member name, or 'revoke' / 'list'."),
    ],
    target: Annotated[
        str | None, typer.Argument(help="With 'revoke': the token or grant id.")
    ] = None,
    ttl: Annotated[
        str, typer.Option("--ttl", help="Lifetime: 30m, 8h, 7d, 2w or 'never'.")
    ] = "12h",
    note: Annotated[str, typer.Option("--note", help="Why this grant exists.")] = "",
    json_: JsonOpt = False,
) -> None:
    """Owner: mint a grant token for a member (printed once); `grant revoke X`; `grant list`."""
    from viva_store.members import service as grants

    ctx = context()
    if member == "revoke":
        if not target:
            usage_error("usage: viva grant revoke TOKEN_OR_ID")
        grant_id = grants.revoke_grant(ctx, target)
        if json_:
            print_json({"id": grant_id, "revoked": True})
        else:
            typer.echo(f"revoked {grant_id}")
        return
    if member == "list":
        found = grants.list_grants(ctx)
        if json_:
            print_json(found)
        else:
            table(
                None,
                [key("id"), key("member"), key("created"), key("expires"), "revoked", "note"],
                [
                    (
                        g.id,
                        g.member,
                        when(g.created_at),
                        when(g.expires_at),
                        when(g.revoked_at),
                        g.note,
                    )
                    for g in found
                ],
            )
        return
    if target is not None:
        usage_error(f"unexpected argument {target!r}")
    issued = grants.issue_grant(ctx, member, grants.parse_ttl(ttl), note)
    if json_:
        print_json(issued)
    else:
        typer.echo(issued.token)
