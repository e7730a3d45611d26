"""``viva import`` (with a Rich progress bar, or ``--watch``) and ``viva status``."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated, Any

import typer

from viva_tui.commands import completion
from viva_tui.commands.common import JsonOpt, console, context, print_json, table, warn
from viva_tui.commands.output import key

app = typer.Typer()

HarnessOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--harness",
        autocompletion=completion.harness,
        help="Only this harness (repeatable): claude-code, codex, pi, gemini, opencode, hermes.",
    ),
]
RootOpt = Annotated[
    list[str] | None,
    typer.Option("--root", help="Where a harness's files are, as HARNESS=PATH (repeatable)."),
]


def _run(harnesses: list[str] | None, overrides: dict[str, str], show_progress: bool) -> Any:
    from viva_store.importing.service import (
        FileImported,
        FilesUnchanged,
        ImportStarted,
        run_import,
    )

    ctx = context()
    events = run_import(ctx, harnesses, overrides)
    if not show_progress:
        while True:
            try:
                next(events)
            except StopIteration as stop:
                return stop.value
    from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeRemainingColumn

    progress = Progress(
        TextColumn("[bold]importing"),
        BarColumn(),
        DownloadColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[file]}", style="dim"),
        console=console(stderr=True),
        transient=True,
    )
    task = None
    with progress:
        while True:
            try:
                event = next(events)
            except StopIteration as stop:
                return stop.value
            if isinstance(event, ImportStarted):
                task = progress.add_task("import", total=event.bytes, file="")
            elif isinstance(event, FilesUnchanged) and task is not None:
                progress.update(task, advance=event.bytes)
            elif isinstance(event, FileImported) and task is not None:
                progress.update(task, advance=event.bytes, file=Path(event.path).name[-40:])


def _report(summary: Any) -> None:
    typer.echo(
        f"{summary.files_scanned} files scanned ({summary.files_unchanged} unchanged) · "
        f"{summary.sessions_new} new sessions, {summary.sessions_updated} updated, "
        f"{summary.sessions_unchanged} unchanged · {summary.messages_added} messages added · "
        f"{summary.lines_quarantined} lines quarantined, {summary.lines_blank} blank · "
        f"{summary.redactions} redactions"
    )
    shown = summary.problems[:20]
    for problem in shown:
        where = f"{problem.path}:{problem.line}" if problem.line else problem.path
        warn(f"{where}: {problem.reason}")
    if len(summary.problems) > len(shown):
        warn(
            f"... and {len(summary.problems) - len(shown)} more problems (see `viva import --json`)"
        )


@app.command("import")
def import_(
    harness: HarnessOpt = None,
    root: RootOpt = None,
    watch: Annotated[
        bool, typer.Option("--watch", help="Keep running; import files as they change.")
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Recover sessions from every harness; incremental, redacted before disk."""
    import sys

    from viva_store.importing.service import parse_overrides

    overrides = parse_overrides(root or [])
    if watch:
        # What ``systemctl stop`` and ``kill`` send stops the watcher as Ctrl-C does.
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        summary = _run(harness, overrides, show_progress=not json_ and sys.stderr.isatty())
        if json_:
            print_json(summary.to_json())
        else:
            _report(summary)
        if watch:
            _watch(harness, overrides, json_)
    except KeyboardInterrupt:
        if not watch:
            raise
        # The transaction under way (if any) was rolled back; every batch stored
        # before it is whole, its sessions attributed.
        warn("stopped watching")


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _watch(harnesses: list[str] | None, overrides: dict[str, str], json_: bool) -> None:
    from watchfiles import watch

    from viva_store.importing.service import harness_names, roots

    ctx = context()
    chosen = harnesses or harness_names()
    folders = [
        r.path
        for h in chosen
        for r in roots(h, overrides, ctx.store.config.section("roots"))
        if r.path.exists()
    ]
    if not folders:
        warn("no harness folder exists yet; nothing to watch")
        raise typer.Exit(1)
    from viva_store.logs.service import get_logger

    log = get_logger(ctx.store.config, "watch")
    log.info("watching %s", ", ".join(str(f) for f in folders))
    warn(f"watching {len(folders)} folder(s); Ctrl-C to stop")
    for changes in watch(*folders, debounce=2000, step=200):
        log.debug("%d change(s): %s", len(changes), ", ".join(sorted(p for _, p in changes)[:20]))
        summary = _run(harnesses, overrides, show_progress=False)
        log.info("round %s: %d new sessions", summary.run_id, summary.sessions_new)
        if summary.messages_added or summary.sessions_new or summary.problems:
            if json_:
                print_json(summary.to_json())
            else:
                _report(summary)


@app.command()
def status(json_: JsonOpt = False) -> None:
    """The store, harness roots, the last import, and retention warnings."""
    from viva_store.importing.service import store_status

    report = store_status(context())
    if json_:
        print_json(report)
        return
    typer.echo(f"store: {report['store']['url']} (schema {report['store']['schema']})")
    counts = report["sessions"]
    typer.echo(
        f"sessions: {counts['total']} — {counts['unattributed']} waiting for triage, "
        f"{counts['attributed']} attributed, {counts['nobody']} nobody's"
    )
    last = report["last_import"]
    typer.echo(
        f"last import: {last['finished_at']} ({last['counts']['sessions_new']} new sessions)"
        if last
        else "last import: never"
    )
    table(
        "harness roots",
        [key("harness"), key("path"), "from", "exists", "files", "not recovered"],
        [
            (
                r["harness"],
                r["path"],
                r["origin"],
                "yes" if r["exists"] else "no",
                r["files"],
                r["pending"],
            )
            for r in report["roots"]
        ],
    )
    for warning in report["warnings"]:
        warn(warning)
