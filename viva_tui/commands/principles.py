"""``viva principle ...`` (the owner's approval queue) and ``viva report weekly``."""

from __future__ import annotations

import typer

app = typer.Typer(
    help="Principles: propose, the owner's queue, decisions, history.", no_args_is_help=True
)
report_app = typer.Typer(help="Reports.", no_args_is_help=True)
