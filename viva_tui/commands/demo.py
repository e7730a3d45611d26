"""``viva demo``: build the demo store (real harness files, real importer) and open it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Annotated

import typer

from viva_tui.commands.common import context, warn

app = typer.Typer()
MARKER = ".viva-demo"


@app.command()
def demo(
    home: Annotated[
        Path | None,
        typer.Option("--home", help="Where to build it (default: a 'demo' folder in VIVA_HOME)."),
    ] = None,
    no_tui: Annotated[bool, typer.Option("--no-tui", help="Only build the store.")] = False,
) -> None:
    """Build a demo store with weeks of synthetic team history, then open it."""
    from viva_store.access import OWNER, require_owner
    from viva_store.config import load_config
    from viva_store.demo.service import build_demo
    from viva_store.errors import InvalidInput

    # A member's grant may not create a store; refused before the folder is touched.
    actor = context().actor if os.environ.get("VIVA_GRANT") else OWNER
    require_owner(actor, "build a demo store")
    target = (home or load_config().home / "demo").expanduser().resolve()
    if target.exists() and any(target.iterdir()):
        if not (target / MARKER).exists():
            raise InvalidInput(f"{target} is not empty and is not a demo store; choose --home")
        shutil.rmtree(target)  # a demo is rebuilt from scratch, deterministically
    target.mkdir(parents=True)
    (target / MARKER).write_text("built by `viva demo`; safe to delete\n")
    build_demo(target, progress=warn, actor=actor)
    warn(f"demo store ready: VIVA_HOME={target} viva ...")
    if no_tui:
        typer.echo(str(target))
        return
    from viva_tui.commands.tui import open_app

    open_app(home=target)
