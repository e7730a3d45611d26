"""``viva doctor``, ``viva backup`` and ``viva restore``: looking after the store.

They are the owner's and read the configuration without opening the store through
:func:`~viva_tui.commands.common.context`: a store that does not open (or has an older
schema) is what the doctor reports, and what a restore replaces.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from viva_tui.commands.common import JsonOpt, print_json, table, warn
from viva_tui.commands.output import key

if TYPE_CHECKING:
    from viva_store.config import Config

app = typer.Typer()


def _owner_config() -> Config:
    from viva_store.config import load_config
    from viva_store.errors import AccessDenied

    if os.environ.get("VIVA_GRANT"):
        raise AccessDenied("looking after the store is the owner's; unset VIVA_GRANT")
    config = load_config()
    for notice in config.notices:
        warn(notice)
    return config


@app.command("doctor")
def doctor(json_: JsonOpt = False) -> None:
    """Versions, paths and permissions, config errors, harness roots, the last import:
    what to attach to a bug report."""
    from viva_store.access import OWNER
    from viva_store.maintenance.service import doctor as report_of

    report = report_of(_owner_config(), OWNER)
    if json_:
        print_json(report)
        return
    versions = report["versions"]
    typer.echo(
        "  ".join(
            f"{name} {value}"
            for name, value in versions.items()
            if name != "sqlite_fts5" and value is not None
        )
        + f"  (FTS5 {'yes' if versions['sqlite_fts5'] else 'no'}, Hyperscan "
        + ("active" if report["hyperscan"]["active"] else "not active")
        + ")"
    )
    store = report["store"]
    state = store["error"] or (f"schema {store['schema']}" if store["exists"] else "not made yet")
    typer.echo(f"store: {store['url']} ({state})")
    last = store["last_import"]
    typer.echo(
        f"last import: {last['finished_at']} ({last['id']})" if last else "last import: never"
    )
    table(
        "paths",
        [key("what"), key("path"), "mode", "writable"],
        [
            (p["name"], p["path"], p["mode"] or "missing", "yes" if p["writable"] else "no")
            for p in report["paths"]
        ],
    )
    table(
        "harness roots",
        [key("harness"), key("path"), "files", "oldest (days)", "kept (days)"],
        [
            (
                r["harness"],
                r["path"],
                r["files"],
                _or_dash(r["oldest_days"]),
                _or_dash(r["retention_days"]),
            )
            for r in report["roots"]
            if "error" not in r and r["exists"]
        ],
    )
    journals = report["launch_journals"]
    typer.echo(f"launch journals: {len(journals)}")
    for problem in report["problems"]:
        warn(problem)


def _or_dash(value: Any) -> str:
    return "-" if value is None else f"{value:g}"


@app.command("backup")
def backup(
    path: Annotated[Path, typer.Argument(help="A new file, or a folder to put one in.")],
    json_: JsonOpt = False,
) -> None:
    """Copy the store (SQLite: a consistent copy while others write; PostgreSQL: the
    pg_dump command to run)."""
    from viva_store.access import OWNER
    from viva_store.maintenance.service import backup_now

    done = backup_now(_owner_config(), OWNER, path.expanduser())
    if json_:
        print_json(done)
    elif done.command is not None:
        typer.echo(done.command)
    else:
        typer.echo(f"backed up to {done.path} ({done.bytes:,} bytes, schema {done.schema})")


@app.command("restore")
def restore(
    path: Annotated[Path, typer.Argument(help="A backup made by `viva backup`.")],
    force: Annotated[
        bool, typer.Option("--force", help="Replace the store that is there.")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Replace the store with a backup of this Viva's schema (stop the app and imports
    first)."""
    from viva_store.access import OWNER
    from viva_store.maintenance.service import restore as restore_store

    done = restore_store(_owner_config(), OWNER, path.expanduser(), force)
    if json_:
        print_json(done)
    else:
        typer.echo(f"restored {done.store} from {done.source} (schema {done.schema})")
