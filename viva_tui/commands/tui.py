"""``viva tui`` (and bare ``viva``): open the owner's app."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

app = typer.Typer()


def open_app(home: Path | None = None) -> None:
    """Open the app (Textual is imported only here); it opens the store after its first frame.

    ``home`` None: the store the environment names (``VIVA_HOME``, ``VIVA_DB_URL``);
    otherwise the store in that folder (``viva demo`` opens the one it built).
    """
    from viva_store.config import load_config
    from viva_store.errors import AccessDenied

    if os.environ.get("VIVA_GRANT"):
        raise AccessDenied("the app is the owner's; unset VIVA_GRANT to open it")
    from viva_tui.app import owner_context, run_app

    if home is None:
        config = load_config()
        for notice in config.notices:
            sys.stderr.write(f"viva: {notice}\n")
        run_app(config, owner_context)
        return
    env = {k: v for k, v in os.environ.items() if k != "VIVA_DB_URL"}
    env["VIVA_HOME"] = str(home)
    config = load_config(env)

    def connect():  # type: ignore[no-untyped-def]
        from viva_store.access import OWNER
        from viva_store.store import Context, Store

        return Context(Store.open(config), OWNER)

    run_app(config, connect)


@app.command("tui")
def tui() -> None:
    """Open the app: members, triage, timeline, skills, principles."""
    open_app()
