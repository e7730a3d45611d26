"""What every command shares: opening the store as the right actor, printing.

Output rules (docs: CLI.md): ``--json`` prints exactly one JSON document on
stdout and nothing else; human output goes through Rich; errors are raised as
:class:`~viva_store.errors.VivaError` and printed by ``cli.main`` as one line.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any

import typer

from viva_store.records import JsonRecord

if TYPE_CHECKING:
    from viva_store.store import Context

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]


@cache
def context() -> Context:
    """Open the store named by the environment, acting as ``VIVA_GRANT``'s member or the owner."""
    # The store (SQLAlchemy, Alembic) loads only when a command needs it: `viva` and
    # every `--help` start without it.
    from viva_store.members.service import load_team, member_names, resolve_actor
    from viva_store.store import Context, Store

    store = Store.open()
    actor = resolve_actor(store, os.environ.get("VIVA_GRANT"))
    ctx = Context(store, actor)
    if actor.is_owner and not member_names(ctx):
        # First use: a store starts with the shipped team, as `viva init` would load it.
        loaded = load_team(ctx)
        for error in loaded.errors:
            warn(error)
    return ctx


def to_jsonable(value: Any) -> Any:
    if isinstance(value, JsonRecord):
        return value.to_json()
    if isinstance(value, list | tuple):
        return [to_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: to_jsonable(v) for k, v in value.items()}
    return value


def print_json(value: Any) -> None:
    """The one JSON document a ``--json`` command prints."""
    sys.stdout.write(json.dumps(to_jsonable(value), ensure_ascii=False, indent=2) + "\n")


def warn(message: str) -> None:
    """A one-line notice on stderr (never on stdout: scripts read stdout)."""
    sys.stderr.write(f"viva: {message}\n")


def console(stderr: bool = False) -> Any:
    from rich.console import Console

    return Console(highlight=False, stderr=stderr)


def table(title: str | None, columns: Iterable[str], rows: Iterable[Iterable[Any]]) -> None:
    """Print a Rich table."""
    from rich.table import Table

    tab = Table(title=title, title_justify="left", header_style="bold")
    for col in columns:
        tab.add_column(col)
    for row in rows:
        tab.add_row(*("" if cell is None else str(cell) for cell in row))
    console().print(tab)
