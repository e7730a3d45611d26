"""What every command shares: opening the store as the right actor, printing.

Output rules (docs/CLI.md): ``--json`` prints exactly one JSON document on stdout and
nothing else; tables go through :mod:`viva_tui.commands.output`; errors are raised as
:class:`~viva_store.errors.VivaError` (exit 1) or through :func:`usage_error` (exit 2),
and ``cli.main`` prints each as one line.
"""

from __future__ import annotations

import json
import os
import sys
from functools import cache
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from viva_store.errors import VivaError
from viva_store.records import JsonRecord
from viva_tui import started
from viva_tui.commands.output import table

__all__ = [
    "JsonOpt",
    "SinceOpt",
    "UsageError",
    "console",
    "context",
    "print_json",
    "since_option",
    "stdin_or",
    "table",
    "to_jsonable",
    "usage_error",
    "warn",
]

if TYPE_CHECKING:
    from datetime import datetime

    from viva_store.store import Context

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
SinceOpt = Annotated[
    str | None,
    typer.Option(
        "--since",
        metavar="DATE",
        help="On or after DATE: YYYY-MM-DD (local midnight), an ISO-8601 instant, "
        "or 30m, 8h, 7d, 2w, today, yesterday.",
    ),
]


@cache
def context() -> Context:
    """Open the store named by the environment, acting as ``VIVA_GRANT``'s member or the owner."""
    # The store (SQLAlchemy, Alembic) loads only when a command needs it: `viva` and
    # every `--help` start without it.
    from viva_store.members.service import load_team, member_names, resolve_actor
    from viva_store.store import Context, Store

    store = Store.open()
    for notice in store.config.notices:
        warn(notice)
    actor = resolve_actor(store, os.environ.get("VIVA_GRANT"))
    ctx = Context(store, actor)
    if actor.is_owner and not member_names(ctx):
        # First use: a store starts with the shipped team, as `viva init` would load it.
        loaded = load_team(ctx)
        for error in loaded.errors:
            warn(error)
    started()
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


class UsageError(VivaError):
    """The command line cannot be used as given (``cli.main`` prints it and exits 2)."""


def usage_error(message: str) -> NoReturn:
    """Refuse the arguments as given: one line on stderr, exit 2."""
    raise UsageError(message)


def since_option(text: str | None) -> datetime | None:
    """The instant a ``--since`` value names; a value that is not a date is a usage error."""
    if text is None:
        return None
    from viva_store.clock import parse_since
    from viva_store.errors import InvalidInput

    try:
        return parse_since(text)
    except InvalidInput as exc:
        raise UsageError(f"--since: {exc}") from None


def stdin_or(values: dict[str, str | None]) -> dict[str, str | None]:
    """``values`` (each flag's text by flag name) with a ``-`` replaced by standard input,
    so long text can be piped or written in a here-document; one flag at most may read it."""
    reading = [flag for flag, value in values.items() if value == "-"]
    if len(reading) > 1:
        usage_error(f"only one of {', '.join(reading)} can read standard input (-)")
    if not reading:
        return values
    if sys.stdin is None:
        usage_error(f"{reading[0]} -: there is no standard input")
    text = sys.stdin.read().strip()
    if not text:
        usage_error(f"{reading[0]} -: standard input was empty")
    return {**values, reading[0]: text}
