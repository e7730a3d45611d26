"""``viva recall`` (search experience) and ``viva state`` (engagement state)."""

from __future__ import annotations

import typer

app = typer.Typer()
state_app = typer.Typer(help="A member's engagement state.", no_args_is_help=True)
