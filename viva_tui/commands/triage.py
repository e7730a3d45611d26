"""``viva classify``, ``viva unclassify``, ``viva suggest``: the owner's triage queue."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from viva_tui.commands import completion
from viva_tui.commands.common import JsonOpt, context, print_json, table, usage_error, warn
from viva_tui.commands.output import key, line

if TYPE_CHECKING:
    from viva_store.triage.service import Suggestion

app = typer.Typer()

MinConfidence = Annotated[
    float | None,
    typer.Option(
        "--min-confidence",
        min=0.0,
        max=1.0,
        help="Only suggestions at least this confident (default: the store's threshold; "
        "with --accept-suggestions 0.8).",
    ),
]


@app.command()
def classify(
    ids: Annotated[
        list[str] | None,
        typer.Argument(
            autocompletion=completion.session,
            help="Session ids (Viva's, the harness's, or unique prefixes).",
        ),
    ] = None,
    member: Annotated[
        str | None,
        typer.Option(
            "--member", autocompletion=completion.member, help="File into this member's experience."
        ),
    ] = None,
    nobody: Annotated[
        bool, typer.Option("--nobody", help="Recovered, but belongs to no member.")
    ] = False,
    accept_suggestions: Annotated[
        bool,
        typer.Option(
            "--accept-suggestions",
            help="Apply Viva's suggestions: to the sessions given, or to the whole queue; "
            "with --member only those naming that member.",
        ),
    ] = False,
    min_confidence: MinConfidence = None,
    json_: JsonOpt = False,
) -> None:
    """Owner: file sessions into one member's experience (or nobody's)."""
    from viva_store.triage import service as triage

    if accept_suggestions:
        if nobody:
            usage_error("--accept-suggestions files sessions as suggested; leave out --nobody")
        threshold = 0.8 if min_confidence is None else min_confidence
        done = triage.accept_suggestions(context(), threshold, ids or (), member)
        if json_:
            print_json(
                [
                    {"session_id": s.session_id, "member": s.member, "confidence": s.confidence}
                    for s in done.applied
                ]
            )
        else:
            typer.echo(f"applied {len(done.applied)} suggestion(s) at confidence ≥ {threshold:.2f}")
        if ids:  # the sessions named but left as they were, and why
            for s in done.skipped:
                warn(f"{s.session_id} left in the queue: {s.reason}")
        return
    if min_confidence is not None:
        usage_error("--min-confidence goes with --accept-suggestions")
    if (member is None) == (not nobody):
        usage_error("give exactly one of --member M or --nobody")
    if not ids:
        usage_error("give at least one session id")
    ctx = context()
    if member is not None:
        filed = triage.classify(ctx, ids, member)
    else:
        filed = triage.classify_nobody(ctx, ids)
    if json_:
        print_json(
            {"session_ids": filed.session_ids, "action": filed.action, "member": filed.member}
        )
    else:
        typer.echo(f"{len(filed.session_ids)} session(s) filed as {member or 'nobody'}'s")


@app.command()
def unclassify(
    ids: Annotated[
        list[str],
        typer.Argument(
            autocompletion=completion.session, help="Session ids to put back in the triage queue."
        ),
    ],
    json_: JsonOpt = False,
) -> None:
    """Owner: put sessions back in the triage queue."""
    from viva_store.triage import service as triage

    done = triage.unclassify(context(), ids)
    if json_:
        print_json({"session_ids": done.session_ids, "action": done.action})
    else:
        typer.echo(f"{len(done.session_ids)} session(s) back in the triage queue")


@app.command()
def suggest(min_confidence: MinConfidence = None, json_: JsonOpt = False) -> None:
    """Owner: a suggested member for each session waiting for triage, with its confidence.

    Nothing is filed: `viva classify --accept-suggestions` applies them.
    """
    from viva_store.sessions.service import SessionFilter, list_sessions
    from viva_store.triage.service import suggest as run

    ctx = context()
    found = run(ctx, min_confidence)
    if json_:
        print_json(found)
        return
    if not found:
        typer.echo("nothing waits for triage")
        return
    titles = {s.id: s.title or "" for s in list_sessions(ctx, SessionFilter(status="unattributed"))}
    table(
        f"suggestions for {len(found)} session(s) waiting for triage",
        [key("session"), key("member"), "confidence", line("why"), line("title")],
        [_row(s, titles.get(s.session_id, "")) for s in found],
    )


def _row(s: Suggestion, title: str) -> tuple[str, str, str, str, str]:
    member = s.member or (f"({s.best_guess}?)" if s.best_guess else "—")
    return s.session_id, member, f"{s.confidence:.2f}", s.reason, title
