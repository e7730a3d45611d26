"""``viva redact``: re-check the stored text with the current redaction rules."""

from __future__ import annotations

from typing import Annotated

import typer

from viva_tui.commands.common import JsonOpt, context, print_json, table

app = typer.Typer()


@app.command("redact")
def redact_command(
    upgrade: Annotated[
        bool,
        typer.Option("--upgrade", help="Re-redact what older rule sets stored (owner)."),
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Re-check stored text with the current rules; without --upgrade, say what it would do."""
    from viva_store.recheck.service import redact_upgrade, redaction_status

    if not upgrade:
        status = redaction_status(context())
        if json_:
            print_json(status)
            return
        typer.echo(
            f"rule set {status.ruleset}: {status.records_older} records of older rule sets"
            + ("" if status.store_current else ", and the store was not re-checked since")
            + ("; run `viva redact --upgrade`" if status.upgrade_due else "")
        )
        return
    report = redact_upgrade(context())
    if json_:
        print_json(report)
        return
    typer.echo(
        f"re-checked {report.records_checked} records with rule set {report.ruleset}: "
        f"{report.records_changed} changed, {report.redactions_added} redactions added"
    )
    if report.tables:
        table(
            None,
            ("table", "checked", "changed", "redactions"),
            ((t.table, t.checked, t.changed, t.redactions) for t in report.tables),
        )
