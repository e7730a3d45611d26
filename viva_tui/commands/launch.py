"""``viva launch``: start a member in a harness, projected, attributed, and recovered."""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from viva_tui.commands import completion
from viva_tui.commands.common import JsonOpt, context, print_json, table, warn
from viva_tui.commands.output import key

if TYPE_CHECKING:
    from viva_store.launch.service import LaunchPlan, LaunchResult, Repaired

app = typer.Typer()


@app.command("launch")
def launch(
    member: Annotated[
        str | None,
        typer.Argument(
            autocompletion=completion.member, metavar="MEMBER", help="The member to launch."
        ),
    ] = None,
    harness_args: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="-- HARNESS_ARGS",
            help="After `--`: arguments passed to the harness as they are.",
        ),
    ] = None,
    harness: Annotated[
        str | None,
        typer.Option("--harness", autocompletion=completion.harness, help="claude-code or codex."),
    ] = None,
    task: Annotated[
        str, typer.Option("--task", help="What the session is for (chooses the skills).")
    ] = "",
    cwd: Annotated[
        Path | None, typer.Option("--cwd", help="The folder to work in (default: here).")
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Show what would be projected and run; change nothing."),
    ] = False,
    repair: Annotated[
        bool,
        typer.Option("--repair", help="Restore the files of a launch that died, and close it."),
    ] = False,
    json_: JsonOpt = False,
) -> None:
    """Owner: launch a member in a harness; its session is attributed and recovered at exit."""
    from viva_store.launch import service

    if repair:
        done = service.repair(context(), cwd)
        _print_repaired(done, json_)
        return
    if member is None or harness is None:
        raise typer.BadParameter("give a member and --harness (or --repair)")
    args = list(harness_args or [])
    if dry_run:
        plan = service.preview(context(), member, harness, task, cwd, args)
        if json_:
            print_json(plan)
        else:
            _print_plan(plan)
        return
    result = service.launch(context(), member, harness, task, cwd, args, started=_started)
    if json_:
        print_json(result)
    else:
        _print_result(result)
    raise typer.Exit(result.execution.exit_status or 0)


def _print_plan(plan: LaunchPlan) -> None:
    p = plan.projection
    typer.echo(f"Dry run: {plan.member} in {plan.harness}, in {plan.cwd}. Nothing is changed.")
    typer.echo(f"Task: {plan.task or '(none: skills by weight alone)'}")
    table(
        f"Skills: {len(p.skills)} of {p.candidates} in {plan.member}'s set (at most {p.limit})",
        ["#", key("skill"), "relevance", "weight", "why"],
        [(s.rank, s.name, f"{s.relevance:.3f}", f"{s.weight:.3f}", s.reason) for s in p.skills],
    )
    for name in plan.kept:
        typer.echo(f"not projected: {name} (this folder has its own skill of that name)")
    if p.principles:
        typer.echo("Principles:")
        for principle in p.principles:
            typer.echo(f"  v{principle['version']}: {principle['text']}")
    else:
        typer.echo("Principles: none approved yet")
    typer.echo("Command:")
    typer.echo(f"  {plan.shell}")
    typer.echo(f"  (in {plan.cwd})")
    mcp = plan.mcp
    passed = "its whole environment" if mcp.env == ("*",) else ", ".join(mcp.env)
    typer.echo(
        f"MCP server {mcp.server!r} for this session only, on the command line above "
        "(your own configuration is not changed):"
    )
    typer.echo(
        f"  {shlex.join(mcp.command)}  (acts as {plan.member}; the harness passes it {passed})"
    )
    typer.echo("Files (for the session only: removed, or restored byte for byte, at its end):")
    for f in plan.files:
        typer.echo(
            f"  {f['action']:<12} {f['path']}" + (f"  {f['bytes']} bytes" if f["bytes"] else "")
        )
    for message in plan.warnings:
        warn(message)
    for message in plan.problems:
        warn(f"would refuse: {message}")


def _started(plan: LaunchPlan) -> None:
    skills = [s.name for s in plan.projection.skills if s.name not in plan.kept]
    warn(
        f"launching {plan.member} in {plan.harness} (execution {plan.env['VIVA_EXECUTION']}); "
        f"{len(skills)} skills projected{': ' + ', '.join(skills) if skills else ''}; "
        "your files are restored when it exits"
    )
    for message in plan.warnings:
        warn(message)


def _print_result(result: LaunchResult) -> None:
    x = result.execution
    typer.echo(f"{x.member} in {x.harness}: exit {x.exit_status} ({x.outcome}), execution {x.id}")
    if result.session_id is None:
        typer.echo("session: none recovered yet (did the harness write a transcript?)")
    else:
        who = result.attributed_to or "nobody (left in the triage queue)"
        typer.echo(f"session {result.session_id} ({result.native_session_id}): attributed to {who}")
    if result.uses:
        credited = ", ".join(f"{u['skill']} (value {u['value']:.2f})" for u in result.uses)
        typer.echo(f"uses credited: {credited}")
    else:
        typer.echo("uses credited: none (no projected skill was read)")
    revoked = "revoked" if result.grant_revoked else "NOT revoked"
    exact = "exactly as they were" if not result.notes else "see the notes"
    typer.echo(f"grant {revoked}; files: {len(result.restored)} restored or removed, {exact}")
    for note in result.notes:
        warn(note)


def _print_repaired(done: list[Repaired], json_: bool) -> None:
    if json_:
        print_json(done)
        return
    if not done:
        typer.echo("nothing to repair")
    for r in done:
        what = f"execution {r.execution_id} ({r.member})" if r.execution_id else "no journal"
        typer.echo(f"{r.cwd}: {what}: {len(r.restored)} files restored or removed")
        if r.result is not None:
            _print_result(r.result)
        else:
            for note in r.notes:
                warn(note)
