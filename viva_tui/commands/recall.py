"""``viva recall`` (search experience), ``viva mark`` and ``viva state`` (engagement state)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from viva_tui.commands import completion
from viva_tui.commands.common import (
    JsonOpt,
    SinceOpt,
    context,
    print_json,
    since_option,
    table,
    usage_error,
    warn,
)
from viva_tui.commands.output import key, when

if TYPE_CHECKING:
    from viva_store.engagement.service import EngagementState
    from viva_store.recall.service import RecallHit

app = typer.Typer()
state_app = typer.Typer(help="A member's engagement state.", no_args_is_help=True)

FieldOpt = Annotated[str | None, typer.Option(help="Set this field (explicit: it wins).")]


@app.command("recall")
def recall_command(
    query: Annotated[str, typer.Argument(help="Words to search for (over 512 chars: truncated).")],
    member: Annotated[
        str | None,
        typer.Option(
            "--member",
            autocompletion=completion.member,
            help="Owner: search only this member's experience.",
        ),
    ] = None,
    # 200: the recall service's own bound (MAX_LIMIT); the CLI refuses more as a usage error.
    limit: Annotated[
        int, typer.Option("--limit", min=1, max=200, help="At most N sessions (1 to 200).")
    ] = 10,
    newest: Annotated[
        bool, typer.Option("--newest", help="Most recent hit first instead of best score.")
    ] = False,
    state: Annotated[
        str | None,
        typer.Option(
            "--state",
            help="How the engagement state's project narrows: prefer, restrict or off "
            "(default: prefer for a member, off for the owner).",
        ),
    ] = None,
    harness: Annotated[str | None, typer.Option("--harness", help="Only this harness.")] = None,
    project: Annotated[
        str | None, typer.Option("--project", help="Only this project (name or cwd).")
    ] = None,
    since: SinceOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Search experience: the best hit per session by relevance, recency and importance."""
    from viva_store.recall.service import RecallFilter, recall

    after = since_option(since)
    if harness is not None:
        from viva_store.importing.service import check_harness

        check_harness(harness)
    result = recall(
        context(),
        query,
        member=member,
        limit=limit,
        order="newest" if newest else "rank",
        state=state,
        flt=RecallFilter(harness=harness, project=project, since=after),
    )
    for note in result.notes:
        warn(note)
    if json_:
        # Sessions first, then skills and principles (``kind`` tells them apart).
        print_json([*result.hits, *result.items])
        return
    if not result.hits and not result.items:
        typer.echo("nothing found")
        return
    if result.matched == "any":
        warn("no session has every word; showing sessions with any of them")
    if result.state_project:
        warn(
            f"narrowed by the engagement state: {result.state_mode} project {result.state_project}"
        )
    if result.hits:
        _print_hits(result.hits)
    if result.items:
        table(
            "skills and principles",
            ["score", "kind", key("id"), key("member"), "status", "what"],
            [(f"{i.score:.3f}", i.kind, i.id, i.member, i.marked, i.snippet) for i in result.items],
        )


def _print_hits(hits: tuple[RecallHit, ...]) -> None:
    from rich.text import Text

    rows = []
    for hit in hits:
        snippet, at = Text(), 0
        for start, end in hit.highlights:
            snippet.append(hit.snippet[at:start])
            snippet.append(hit.snippet[start:end], style="bold")
            at = end
        snippet.append(hit.snippet[at:])
        rows.append(
            (
                f"{hit.score:.3f}" if hit.score is not None else "",
                when(hit.at),
                hit.session_id,
                hit.harness,
                hit.member or hit.status,
                f"msg {hit.seq}" if hit.kind == "message" else "title",
                snippet,
            )
        )
    table(
        None,
        ["score", key("when"), key("session"), "harness", key("member"), "where", "snippet"],
        rows,
    )


@app.command("mark")
def mark_command(
    session: Annotated[
        str,
        typer.Argument(autocompletion=completion.session, help="Session id (or a unique prefix)."),
    ],
    importance: Annotated[
        float | None, typer.Option("--importance", help="0..1; recall ranks by it.")
    ] = None,
    clear: Annotated[bool, typer.Option("--clear", help="Back to the derived importance.")] = False,
    note: Annotated[str, typer.Option("--note", help="Why.")] = "",
    json_: JsonOpt = False,
) -> None:
    """Owner: mark how important a session is for recall (an append-only event)."""
    from viva_store.recall.service import mark_importance

    if clear == (importance is not None):
        usage_error("give either --importance P or --clear")
    marked = mark_importance(context(), session, None if clear else importance, note)
    if json_:
        print_json(
            {
                "session_id": marked.session_id,
                "importance": marked.importance,
                "reason": marked.reason,
            }
        )
        return
    typer.echo(f"{marked.session_id}: importance {marked.importance:.2f} ({marked.reason})")


def _print_state(state: EngagementState) -> None:
    rows = []
    for name, f in state.fields.items():
        how = f.source or ""
        if f.confidence is not None and f.source == "judge":
            how += f" {f.confidence:.2f}"
        if f.pinned:
            how += ", pinned"
        rows.append((name, f.value or "unknown", how, f.note))
    table(f"{state.member}'s engagement state", [key("field"), "value", "source", "note"], rows)


@state_app.command("get")
def state_get(
    member: Annotated[str, typer.Argument(autocompletion=completion.member, help="A member name.")],
    json_: JsonOpt = False,
) -> None:
    """A member's engagement state: domain, project, counterpart, activity."""
    from viva_store.engagement.service import get_state

    state = get_state(context(), member)
    if json_:
        print_json(state)
        return
    _print_state(state)


@state_app.command("set")
def state_set(
    member: Annotated[
        str,
        typer.Argument(
            autocompletion=completion.member, help="A member name (a member may set its own)."
        ),
    ],
    domain: FieldOpt = None,
    project: FieldOpt = None,
    counterpart: FieldOpt = None,
    activity: FieldOpt = None,
    clear: Annotated[
        list[str] | None,
        typer.Option("--clear", help="Return FIELD to automatic (entry rules, judge)."),
    ] = None,
    note: Annotated[str, typer.Option("--note", help="Why (kept with the event).")] = "",
    json_: JsonOpt = False,
) -> None:
    """Set fields explicitly; replacing an automatic value is recorded as a correction."""
    from viva_store.engagement.service import set_state

    values = {
        name: value
        for name, value in (
            ("domain", domain),
            ("project", project),
            ("counterpart", counterpart),
            ("activity", activity),
        )
        if value is not None
    }
    state = set_state(context(), member, values, clear or [], note)
    if json_:
        print_json(state)
        return
    _print_state(state)


@state_app.command("history")
def state_history_command(
    member: Annotated[str, typer.Argument(autocompletion=completion.member, help="A member name.")],
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most N events.")] = None,
    json_: JsonOpt = False,
) -> None:
    """Every change of a member's engagement state, newest first."""
    from viva_store.engagement.service import state_history

    events = state_history(context(), member, limit)
    if json_:
        print_json(events)
        return
    table(
        f"{member}'s engagement events",
        [key("id"), key("at"), "field", "value", "source", "by", "note"],
        [
            (
                e.id,
                when(e.at),
                e.field,
                e.value or "unknown",
                e.source + (f" of #{e.corrects}" if e.corrects else ""),
                e.actor,
                e.note,
            )
            for e in events
        ],
    )


@state_app.command("observe")
def state_observe(
    member: Annotated[
        str,
        typer.Argument(autocompletion=completion.member, help="The member whose session starts."),
    ],
    cwd: Annotated[str | None, typer.Option("--cwd", help="The session's folder.")] = None,
    harness: Annotated[
        str | None,
        typer.Option("--harness", autocompletion=completion.harness, help="The harness."),
    ] = None,
    task: Annotated[str, typer.Option("--task", help="What the session is for.")] = "",
    json_: JsonOpt = False,
) -> None:
    """Record a session's entry: entry rules, then the judge, decide the open fields."""
    from viva_store.engagement.service import Observation, observe

    state = observe(context(), Observation(member, cwd, harness, task))
    if json_:
        print_json(state)
        return
    _print_state(state)
