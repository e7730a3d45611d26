"""``viva usage``: stored token totals grouped by day, week, project, model and more."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from viva_tui.commands.common import (
    JsonOpt,
    SinceOpt,
    context,
    print_json,
    since_option,
    table,
    usage_error,
)
from viva_tui.commands.output import key

if TYPE_CHECKING:
    from viva_store.usage.service import UsageRow

app = typer.Typer()


def _cells(row: UsageRow) -> tuple[object, ...]:
    t = row.tokens
    cost = "" if row.cost is None else f"{row.cost:.2f}"
    counts = (t.input, t.output, t.cache_read, t.cache_write, t.reasoning, t.total)
    return (row.key, row.sessions, *(f"{n:,}" for n in counts), cost)


@app.command("usage")
def usage_command(
    by: Annotated[
        str,
        typer.Option(
            "--by", metavar="GROUP", help="day, week, project, branch, model, harness or member."
        ),
    ] = "day",
    since: SinceOpt = None,
    member: Annotated[
        str | None, typer.Option("--member", help="Only this member's sessions.")
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Token totals of the sessions you may see, grouped; a cost where [prices] has one."""
    from viva_store.usage.service import GROUPINGS, usage

    if by not in GROUPINGS:
        usage_error(f"--by must be one of {', '.join(GROUPINGS)} (not {by!r})")
    report = usage(context(), by=by, since=since_option(since), member=member)
    if json_:
        print_json(report.json_rows())
        return
    if not report.rows:
        typer.echo("no sessions" + (f" since {since}" if since else ""))
        return
    headers = ["sessions", "input", "output", "cache read", "cache write", "reasoning", "total"]
    table(
        f"usage by {report.by}",
        [key(report.by), *headers, "cost"],
        [*(_cells(row) for row in report.rows), _cells(report.total)],
    )
