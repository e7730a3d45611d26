"""``viva launch``: start a member in a harness, projected, attributed, and recovered."""

from __future__ import annotations

import typer

app = typer.Typer()
