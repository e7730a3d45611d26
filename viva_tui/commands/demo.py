"""``viva demo``: build the demo store (real harness files, real importer) and open it."""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Annotated

import typer

from viva_tui import started
from viva_tui.commands.common import context, warn

app = typer.Typer()


@app.command()
def demo(
    home: Annotated[
        Path | None,
        typer.Option("--home", help="Where to build it (default: 'demo' in the data dir)."),
    ] = None,
    no_tui: Annotated[bool, typer.Option("--no-tui", help="Only build the store.")] = False,
    rebuild: Annotated[
        bool,
        typer.Option("--rebuild", help="Build a new store even if the last one can be reused."),
    ] = False,
) -> None:
    """Build a demo store with weeks of synthetic team history, then open it.

    A store built today by the same Viva is opened again as it is (--rebuild: build anew).
    """
    from viva_store import clock
    from viva_store.access import OWNER, require_owner
    from viva_store.config import load_config
    from viva_store.demo import service as demo_store
    from viva_store.errors import InvalidInput

    # A member's grant may not create a store; refused before the folder is touched.
    actor = context().actor if os.environ.get("VIVA_GRANT") else OWNER
    require_owner(actor, "build a demo store")
    target = (home or load_config().home / "demo").expanduser().resolve()
    stamp = demo_store.fingerprint(clock.now().astimezone().date())
    if not rebuild and demo_store.reusable(target, stamp):
        warn(f"opening the demo store built earlier in {target} (--rebuild for a new one)")
    else:
        if target.exists() and any(target.iterdir()):
            if not demo_store.is_demo(target):
                raise InvalidInput(f"{target} is not empty and is not a demo store; choose --home")
            shutil.rmtree(target)  # a demo is rebuilt from scratch, deterministically
        target.mkdir(parents=True)
        started()  # a long build: the collector runs from here (see viva_tui.started)
        demo_store.build_demo(target, progress=warn, actor=actor)
        demo_store.mark_built(target, stamp)  # last: an interrupted build is not reused
        warn(f"demo store ready: VIVA_HOME={target} viva ...")
    if no_tui:
        typer.echo(str(target))
        return
    from viva_tui.commands.tui import open_app

    open_app(home=target)
