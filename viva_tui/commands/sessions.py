"""``viva sessions`` and ``viva session show``."""

from __future__ import annotations

from typing import Annotated, Any

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
)
from viva_tui.commands.output import key, line, when
from viva_tui.commands.pager import NoPagerOpt, paged

app = typer.Typer()
session_app = typer.Typer(help="One recovered session.", no_args_is_help=True)


@app.command()
def sessions(
    unattributed: Annotated[
        bool, typer.Option("--unattributed", help="The triage queue (owner's default).")
    ] = False,
    member: Annotated[
        str | None,
        typer.Option(
            "--member", autocompletion=completion.member, help="Sessions filed into this member."
        ),
    ] = None,
    all_: Annotated[bool, typer.Option("--all", help="Every session you may see.")] = False,
    harness: Annotated[
        str | None,
        typer.Option("--harness", autocompletion=completion.harness, help="Only this harness."),
    ] = None,
    project: Annotated[
        str | None, typer.Option("--project", help="Only this project (name or cwd).")
    ] = None,
    since: SinceOpt = None,
    limit: Annotated[
        int | None, typer.Option("--limit", min=1, help="At most N sessions (a table: 50).")
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Recovered sessions, newest first (the owner's default: the triage queue)."""
    from viva_store.importing.service import check_harness as check
    from viva_store.sessions.service import SessionFilter, list_sessions

    if sum((unattributed, member is not None, all_)) > 1:
        usage_error("choose one of --unattributed, --member M, --all")
    after = since_option(since)
    ctx = context()
    status = None
    if unattributed or (ctx.actor.is_owner and member is None and not all_):
        status = "unattributed"
    if harness is not None:
        check(harness)
    shown_limit = limit if (limit or json_) else 50
    flt = SessionFilter(
        status=status,
        member=member,
        harness=harness,
        project=project,
        since=after,
        limit=shown_limit,
    )
    found = list_sessions(ctx, flt)
    if json_:
        print_json(found)
        return
    title = {"unattributed": "waiting for triage"}.get(status or "", "sessions")
    table(
        f"{title} ({len(found)}{'+' if shown_limit and len(found) == shown_limit else ''})",
        [
            key("id"),
            "harness",
            line("project"),
            key("started"),
            "msgs",
            key("member"),
            line("title"),
        ],
        [
            (
                s.id,
                s.harness,
                s.project,
                when(s.started_at),
                s.message_count,
                s.member or ("nobody" if s.status == "nobody" else ""),
                s.title or "",
            )
            for s in found
        ],
    )


@session_app.command("show")
def show(
    ref: Annotated[
        str,
        typer.Argument(
            autocompletion=completion.session,
            help="Viva id, the harness's session id, or a unique prefix.",
        ),
    ],
    json_: JsonOpt = False,
    no_pager: NoPagerOpt = False,
) -> None:
    """One session with its (redacted) messages (long ones through $PAGER)."""

    from viva_store.sessions.service import get_session, related_sessions, session_messages

    ctx = context()
    session = get_session(ctx, ref)
    messages = session_messages(ctx, session.id)
    related = related_sessions(ctx, session.id)
    if json_:
        data = session.to_json()
        data["messages"] = [m.to_json() for m in messages]
        data["related"] = related.to_json()
        print_json(data)
        return
    with paged(no_pager) as out:
        _print_session(out, session, messages, related)


def _print_session(out: Any, session: Any, messages: Any, related: Any) -> None:
    from rich.markup import escape

    out.print(f"[bold]{escape(session.title or '(untitled)')}[/]")
    out.print(
        f"[dim]{session.id} · {session.harness} {session.native_id} · {session.cwd or '?'} · "
        f"{session.started_at:%Y-%m-%d %H:%M} · {session.message_count} messages · "
        f"{session.member or session.status}[/]"
        if session.started_at
        else f"[dim]{session.id} · {session.harness} {session.native_id}[/]"
    )
    if session.labels:
        out.print(f"[dim]labels:[/] {escape(', '.join(session.labels))}")
    for label, linked in _lineage(session, related):
        out.print(f"[dim]{label}:[/] {linked.id} · {escape(linked.title or '(untitled)')}")
    styles = {"user": "bold cyan", "assistant": "bold green", "tool": "yellow", "system": "magenta"}
    for m in messages:
        style = styles.get(m.role, "dim")
        flags = (" (sidechain)" if m.sidechain else "") + (" · synthetic" if m.synthetic else "")
        label = f"{m.role}{flags}"
        out.print(
            f"\n[{style}]{label}[/] [dim]{m.at:%H:%M:%S}[/]" if m.at else f"\n[{style}]{label}[/]"
        )
        if m.tool and m.role != "tool":
            out.print(f"  [yellow]⚙ {escape(m.tool)}[/] {escape((m.tool_input or '')[:160])}")
        body = m.text or (m.tool_result or "")
        if m.role == "tool":
            lines = body.splitlines()
            body = "\n".join(lines[:6]) + (
                f"\n… {len(lines) - 6} more lines" if len(lines) > 6 else ""
            )
        if body:
            out.print(escape(body), soft_wrap=True)


def _lineage(session: Any, related: Any) -> list[tuple[str, Any]]:
    """``(label, session)`` for each session linked to the one shown."""
    from viva_store.sessions.service import LINK_LABELS

    up = related.parent or related.original
    rows = [(LINK_LABELS.get(session.relation, "child of"), up)] if up else []
    rows += [("sub-agent", s) for s in related.subagents]
    rows += [(s.relation or "child", s) for s in related.children]
    return rows


# `session export` and `session resume` live beside `viva export`; importing them here
# registers them on this group.
from viva_tui.commands import session_archive as _archive  # noqa: E402, F401
