"""``viva skill ...``: the team library and each member's skill set."""

from __future__ import annotations

import os
from dataclasses import asdict
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from viva_tui.commands import completion
from viva_tui.commands.common import JsonOpt, context, print_json, table, warn
from viva_tui.commands.output import key, line, when

if TYPE_CHECKING:
    from viva_store.skills.service import SkillChange, SkillCurve

app = typer.Typer(help="The team skill library and each member's skill set.", no_args_is_help=True)
top = typer.Typer()  # top-level commands that belong here: `viva project`


@app.command("library")
def library(json_: JsonOpt = False) -> None:
    """The team skill library."""
    from viva_store.skills.service import list_library

    skills = list_library(context())
    if json_:
        print_json(skills)
        return
    table(None, [key("skill"), line("description")], [(s.name, s.description) for s in skills])


@app.command("import")
def import_(
    folder: Annotated[
        Path, typer.Argument(help="A folder of SKILL.md folders (e.g. ~/.claude/skills).")
    ],
    json_: JsonOpt = False,
) -> None:
    """Add SKILL.md folders to the team library; bad folders are reported, not loaded."""
    from viva_store.skills.service import import_skills

    result = import_skills(context(), folder.expanduser())
    if json_:
        print_json(
            {
                "added": result.added,
                "updated": result.updated,
                "unchanged": result.unchanged,
                "errors": result.errors,
            }
        )
    else:
        typer.echo(
            f"{len(result.added)} added, {len(result.updated)} updated, "
            f"{len(result.unchanged)} unchanged, {len(result.errors)} rejected"
        )
        for error in result.errors:
            warn(error)
    if result.errors:
        raise typer.Exit(1)


@app.command("show")
def show(
    name: Annotated[str, typer.Argument(autocompletion=completion.skill, help="Skill name.")],
) -> None:
    """Print a skill's body (under a member's grant the read is recorded)."""
    from viva_store.skills.service import read_skill

    skill = read_skill(context(), name, execution_id=os.environ.get("VIVA_EXECUTION"))
    typer.echo(skill.body, nl=False)


class OutcomeName(StrEnum):
    """How the execution that used the skill ended (``corrected``: the owner's re-valuation)."""

    success = "success"
    failure = "failure"
    corrected = "corrected"


class TrackName(StrEnum):
    """The axis a skill decays on."""

    session = "session"
    time = "time"


Member = Annotated[str, typer.Argument(autocompletion=completion.member, help="Member name.")]
SkillName = Annotated[
    str,
    typer.Argument(autocompletion=completion.skill, help="Skill name (see `viva skill library`)."),
]


@app.command("list")
def list_(
    member: Member,
    all_: Annotated[bool, typer.Option("--all", help="Include forgotten skills.")] = False,
    json_: JsonOpt = False,
) -> None:
    """A member's skill set with weights (forgetting that is due is applied first)."""
    from viva_store.skills.service import list_skills, trial_until

    ctx = context()
    skills = list_skills(ctx, member, include_forgotten=all_)
    if json_:
        print_json(skills)
        return
    table(
        None,
        [key("skill"), "weight", "track", "status", "uses", key("last used")],
        [(s.name, f"{s.weight:.3f}", s.track, s.status, s.uses, when(s.last_used)) for s in skills],
    )
    until = trial_until(ctx)
    if until is not None:
        warn(f"forgetting is on trial until {when(until)}: nothing is forgotten yet")


@app.command("use")
def use(
    member: Member,
    name: SkillName,
    outcome: Annotated[
        OutcomeName, typer.Option("--outcome", help="success | failure | corrected (owner).")
    ],
    session: Annotated[
        str | None,
        typer.Option(
            "--session", autocompletion=completion.session, help="The session the use belongs to."
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Record a use of a skill (one credited use per member, skill and session)."""
    from viva_store.skills.service import record_use

    done = record_use(context(), member, name, outcome.value, session)
    if json_:
        print_json(asdict(done))
        return
    if done.credited:
        typer.echo(
            f"{member} used {name} ({outcome.value}, {done.value:g}); weight {done.weight:.3f}"
        )
    else:
        typer.echo(f"already credited for this session (event {done.event_id}); nothing added")


@app.command("history")
def history(
    member: Member,
    skill: Annotated[
        str | None,
        typer.Option("--skill", autocompletion=completion.skill, help="Only this skill."),
    ] = None,
    limit: Annotated[int, typer.Option("--limit", min=1, help="At most N events.")] = 200,
    json_: JsonOpt = False,
) -> None:
    """A member's skill events, newest first."""
    from viva_store.skills.service import skill_history

    events = skill_history(context(), member, skill, limit)
    if json_:
        print_json(events)
        return
    table(
        None,
        [key("#"), key("when"), key("skill"), "event", "value", "by", line("reason")],
        [
            (
                e.id,
                when(e.at),
                e.skill,
                e.kind + (f" → {e.track}" if e.track else ""),
                "" if e.value is None else f"{e.value:g}",
                e.actor,
                e.reason,
            )
            for e in events
        ],
    )


@app.command("add")
def add(
    member: Member,
    name: SkillName,
    from_: Annotated[
        str | None,
        typer.Option(
            "--from",
            autocompletion=completion.member,
            help="Owner: sync the skill from this member's set.",
        ),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Put a team skill into a member's set (weight 1.0, protected for 10 sessions)."""
    from viva_store.skills.service import add_skill

    _print_change(add_skill(context(), member, name, from_), json_)


@app.command("reclaim")
def reclaim(member: Member, name: SkillName, json_: JsonOpt = False) -> None:
    """Take a forgotten skill back (weight 1.0, fresh protection; no approval needed)."""
    from viva_store.skills.service import reclaim_skill

    _print_change(reclaim_skill(context(), member, name), json_)


@app.command("track")
def track(
    member: Member,
    name: SkillName,
    to: Annotated[TrackName, typer.Argument(help="session | time")],
    json_: JsonOpt = False,
) -> None:
    """Move a skill to the session track (h = 30 sessions) or the time track (h = 60 days)."""
    from viva_store.skills.service import set_track

    _print_change(set_track(context(), member, name, to.value), json_)


@app.command("curve")
def curve(member: Member, name: SkillName, json_: JsonOpt = False) -> None:
    """A skill's weight history on its track and its projected decay."""
    from viva_store.skills.service import skill_curve

    c = skill_curve(context(), member, name)
    if json_:
        print_json(c)
        return
    typer.echo(f"{member} / {name}: {c.status}, {c.track} track, weight now {c.weight_now:.3f}")
    if c.track == "time":
        _time_curve(c)
        return
    if c.crosses_at is not None:
        typer.echo(
            f"falls below {c.forget_below:g} at session {c.crosses_at:.1f} "
            f"({c.crosses_at - c.a_now:+.1f} from now)"
        )
    if c.forget_due_at is not None:
        typer.echo(f"could be forgotten from session {c.forget_due_at:.1f}")
    table(None, ["session", "event", "value"], [(f"{a:g}", k, f"{v:g}") for a, k, v in c.marks])


def _time_curve(c: SkillCurve) -> None:
    """A time-track curve in dates (its axis counts days; users read calendars)."""
    from viva_store.skills.service import instant_of_day

    if c.crosses_on is not None and c.crosses_at is not None:
        typer.echo(
            f"falls below {c.forget_below:g} on {when(c.crosses_on, '%Y-%m-%d')} "
            f"({c.crosses_at - c.a_now:+.1f} days from now)"
        )
    if c.forget_due_on is not None:
        typer.echo(f"could be forgotten from {when(c.forget_due_on, '%Y-%m-%d')}")
    table(
        None,
        [key("when"), "event", "value"],
        [(when(instant_of_day(a)), k, f"{v:g}") for a, k, v in c.marks],
    )


@app.command("rebuild")
def rebuild(
    member: Annotated[
        str | None,
        typer.Argument(autocompletion=completion.member, help="One member (default: all)."),
    ] = None,
) -> None:
    """Owner: rebuild the cached weights from the event log, then check them."""
    from viva_store.skills.service import check_cache, rebuild_skills

    ctx = context()
    rows = rebuild_skills(ctx, member)
    problems = check_cache(ctx, member)
    typer.echo(f"{rows} skill states rebuilt; cache equals the log: {'no' if problems else 'yes'}")
    for problem in problems:
        warn(problem)
    if problems:
        raise typer.Exit(1)


@top.command("project")
def project(
    member: Member,
    task: Annotated[str, typer.Option("--task", help="What the session is for.")] = "",
    limit: Annotated[
        int | None, typer.Option("--limit", min=0, help="At most N skills (max 10).")
    ] = None,
    project_: Annotated[
        str | None, typer.Option("--project", help="The task's project (its knowledge).")
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """What a new session of a member would get for a task, with reasons."""
    from viva_store.skills.service import project as run

    p = run(context(), member, task, limit, project=project_)
    if json_:
        print_json(p)
        return
    table(
        f"{member}: {len(p.skills)} of {p.candidates} skills (at most {p.limit})",
        ["#", key("skill"), "relevance", "weight", "why"],
        [(s.rank, s.name, f"{s.relevance:.3f}", f"{s.weight:.3f}", s.reason) for s in p.skills],
    )
    for s in p.not_picked:
        typer.echo(f"not picked: {s.name} — {s.reason}")
    for principle in p.principles:
        typer.echo(f"principle v{principle['version']}: {principle['text']}")
    for k in p.knowledge:
        where = f" ({k['project']})" if k["project"] else ""
        typer.echo(f"knowledge {k['id']} [{k['kind']}{where}, {k['words']}]: {k['summary']}")


def _print_change(change: SkillChange, json_: bool) -> None:
    if json_:
        print_json(change)
    else:
        typer.echo(change.message)
