"""``viva sessions``, ``viva session show``, ``viva classify``, ``viva unclassify``."""

from __future__ import annotations

from typing import Annotated

import typer

from viva_tui.commands.common import JsonOpt, console, context, print_json, table

app = typer.Typer()
session_app = typer.Typer(help="One recovered session.", no_args_is_help=True)


def _since(text: str | None):  # type: ignore[no-untyped-def]
    from viva_store.clock import parse_instant

    if text is None:
        return None
    return parse_instant(text if "T" in text else text + "T00:00:00Z")


@app.command()
def sessions(
    unattributed: Annotated[
        bool, typer.Option("--unattributed", help="The triage queue (owner's default).")
    ] = False,
    member: Annotated[
        str | None, typer.Option("--member", help="Sessions filed into this member.")
    ] = None,
    all_: Annotated[bool, typer.Option("--all", help="Every session you may see.")] = False,
    harness: Annotated[str | None, typer.Option("--harness", help="Only this harness.")] = None,
    project: Annotated[
        str | None, typer.Option("--project", help="Only this project (name or cwd).")
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", help="Started on or after DATE (YYYY-MM-DD or ISO-8601)."),
    ] = None,
    limit: Annotated[int | None, typer.Option("--limit", min=1, help="At most N sessions.")] = None,
    json_: JsonOpt = False,
) -> None:
    """Recovered sessions, newest first."""
    from viva_store.errors import InvalidInput
    from viva_store.importing.service import check_harness as check
    from viva_store.sessions.service import SessionFilter, list_sessions

    if sum((unattributed, member is not None, all_)) > 1:
        raise InvalidInput("choose one of --unattributed, --member M, --all")
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
        since=_since(since),
        limit=shown_limit,
    )
    found = list_sessions(ctx, flt)
    if json_:
        print_json(found)
        return
    title = {"unattributed": "waiting for triage"}.get(status or "", "sessions")
    table(
        f"{title} ({len(found)}{'+' if shown_limit and len(found) == shown_limit else ''})",
        ["id", "harness", "project", "started", "msgs", "member", "title"],
        [
            (
                s.id,
                s.harness,
                s.project,
                f"{s.started_at:%Y-%m-%d %H:%M}" if s.started_at else "",
                s.message_count,
                s.member or ("nobody" if s.status == "nobody" else ""),
                (s.title or "")[:60],
            )
            for s in found
        ],
    )


@session_app.command("show")
def show(
    ref: Annotated[
        str, typer.Argument(help="Viva id, the harness's session id, or a unique prefix.")
    ],
    json_: JsonOpt = False,
) -> None:
    """One session with its (redacted) messages."""
    from rich.markup import escape

    from viva_store.sessions.service import get_session, session_messages

    ctx = context()
    session = get_session(ctx, ref)
    messages = session_messages(ctx, session.id)
    if json_:
        data = session.to_json()
        data["messages"] = [m.to_json() for m in messages]
        print_json(data)
        return
    out = console()
    out.print(f"[bold]{escape(session.title or '(untitled)')}[/]")
    out.print(
        f"[dim]{session.id} · {session.harness} {session.native_id} · {session.cwd or '?'} · "
        f"{session.started_at:%Y-%m-%d %H:%M} · {session.message_count} messages · "
        f"{session.member or session.status}[/]"
        if session.started_at
        else f"[dim]{session.id} · {session.harness} {session.native_id}[/]"
    )
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


@app.command()
def classify(
    ids: Annotated[
        list[str] | None,
        typer.Argument(help="Session ids (Viva's, the harness's, or unique prefixes)."),
    ] = None,
    member: Annotated[
        str | None, typer.Option("--member", help="File into this member's experience.")
    ] = None,
    nobody: Annotated[
        bool, typer.Option("--nobody", help="Recovered, but belongs to no member.")
    ] = False,
    accept_suggestions: Annotated[
        bool, typer.Option("--accept-suggestions", help="Apply Viva's suggestions (owner).")
    ] = False,
    min_confidence: Annotated[
        float, typer.Option("--min-confidence", min=0.0, max=1.0, help="With --accept-suggestions.")
    ] = 0.8,
    json_: JsonOpt = False,
) -> None:
    """Owner: file sessions into one member's experience (or nobody's)."""
    from viva_store.errors import InvalidInput
    from viva_store.triage import service as triage

    ctx = context()
    if accept_suggestions:
        from viva_store.triage.service import accept_suggestions as accept

        applied = accept(ctx, min_confidence)
        if json_:
            print_json([{"session_id": sid, "member": m, "confidence": c} for sid, m, c in applied])
        else:
            typer.echo(f"applied {len(applied)} suggestion(s) at confidence ≥ {min_confidence:.2f}")
        return
    if (member is None) == (not nobody):
        raise InvalidInput("give exactly one of --member M or --nobody")
    if not ids:
        raise InvalidInput("give at least one session id")
    done = triage.classify(ctx, ids, member) if member else triage.classify_nobody(ctx, ids)
    if json_:
        print_json({"session_ids": done.session_ids, "action": done.action, "member": done.member})
    else:
        typer.echo(f"{len(done.session_ids)} session(s) filed as {member or 'nobody'}'s")


@app.command()
def unclassify(
    ids: Annotated[list[str], typer.Argument(help="Session ids to put back in the triage queue.")],
    json_: JsonOpt = False,
) -> None:
    """Owner: put sessions back in the triage queue."""
    from viva_store.triage import service as triage

    done = triage.unclassify(context(), ids)
    if json_:
        print_json({"session_ids": done.session_ids, "action": done.action})
    else:
        typer.echo(f"{len(done.session_ids)} session(s) back in the triage queue")
