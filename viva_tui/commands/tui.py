"""``viva tui`` (and bare ``viva``): open the owner's app."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from viva_tui.commands.common import context

app = typer.Typer()


def open_app(home: Path | None = None) -> None:
    """Open the app (Textual is imported only here).

    ``home`` None: the store the environment names (``VIVA_HOME``, ``VIVA_DB_URL``);
    otherwise the store in that folder (``viva demo`` opens the one it built).
    """
    from viva_store.access import OWNER
    from viva_store.config import load_config
    from viva_store.errors import AccessDenied
    from viva_store.store import Context, Store

    if home is None:
        ctx = context()
    else:
        env = {k: v for k, v in os.environ.items() if k != "VIVA_DB_URL"}
        env["VIVA_HOME"] = str(home)
        ctx = Context(Store.open(load_config(env)), OWNER)
    if not ctx.actor.is_owner:
        raise AccessDenied(
            f"the app is the owner's; {ctx.actor.describe()} is acting (unset VIVA_GRANT)"
        )
    from viva_tui.app import run_app

    run_app(ctx)


@app.command("tui")
def tui() -> None:
    """Open the app: members, triage, timeline, skills, principles."""
    open_app()
