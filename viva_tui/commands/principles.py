"""``viva principle ...`` (the owner's approval queue) and ``viva report weekly``."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Annotated, Any

import typer

from viva_tui.commands import common, completion
from viva_tui.commands.common import JsonOpt, console, context, print_json, table, usage_error
from viva_tui.commands.output import is_terminal, key, line, when

if TYPE_CHECKING:
    from viva_store.principles.service import CandidateRecord
    from viva_store.reports.service import MemberWeek, WeeklyReport

app = typer.Typer(
    help="Principles: propose, the owner's queue, decisions, history.", no_args_is_help=True
)
report_app = typer.Typer(help="Reports.", no_args_is_help=True)

Member = Annotated[
    str, typer.Argument(autocompletion=completion.member, help="The member the principle is for.")
]
CandidateId = Annotated[
    str, typer.Argument(help="A candidate id (p….N), or a principle id with one open candidate.")
]
PrincipleId = Annotated[str, typer.Argument(help="A principle id (p…).")]
WeekOpt = Annotated[
    str | None, typer.Option("--week", help="An ISO week, e.g. 2026-W48 (default: this week).")
]


def _table(title: str | None, columns: list[str], rows: list[tuple[Any, ...]]) -> None:
    """:func:`table` with a leading ``!`` marking a column of ids, never wrapped or cut.

    Members' and the owner's words are shown as written, never read as Rich markup. In a
    pipe a titled table (the report's, one per member) is preceded by its title on a line.
    """
    if title and not is_terminal():
        typer.echo(title)
    table(title, [key(c[1:]) if c.startswith("!") else c for c in columns], rows)


def _short(text: str | None, width: int = 70) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


@app.command("propose")
def propose_(
    member: Member,
    text: Annotated[str, typer.Option("--text", help="The principle (-: read stdin).")],
    rationale: Annotated[str, typer.Option("--rationale", help="Why it is needed (-: stdin).")],
    evidence: Annotated[
        list[str] | None,
        typer.Option(
            "--evidence",
            autocompletion=completion.session,
            help="A session id (or SESSION#SEQ for one message); repeatable.",
        ),
    ] = None,
    replaces: Annotated[
        str | None,
        typer.Option("--replaces", help="A principle id: propose a new version of it."),
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Propose a principle candidate; it waits for the owner's decision."""
    from viva_store.principles.service import propose

    given = common.stdin_or({"--text": text, "--rationale": rationale})
    text, rationale = given["--text"] or "", given["--rationale"] or ""
    cand = propose(context(), member, text, rationale, evidence or [], replaces)
    if json_:
        print_json(cand)
        return
    what = f"version {cand.version} of {cand.principle_id}" if cand.version > 1 else "candidate"
    typer.echo(
        f"proposed {cand.id} ({what}) for {cand.member}, week {cand.week}; "
        "it waits for the owner (viva principle queue)"
    )


@app.command("batch")
def batch_(week: WeekOpt = None, json_: JsonOpt = False) -> None:
    """Coordinator or owner: gather the week's candidates into one batch, duplicates merged."""
    from viva_store.principles.service import batch

    made = batch(context(), week)
    if json_:
        print_json(made)
        return
    typer.echo(("new batch " if made.new else "nothing new since ") + f"{made.id}: {made.summary}")
    if made.entries:
        _candidates_table(None, list(made.entries))


def _candidates_table(title: str | None, rows: list[CandidateRecord], grouped: bool = True) -> None:
    """Candidates under ``title``; not ``grouped`` by week and batch, each row names them."""
    from rich.text import Text

    def text(c: CandidateRecord) -> Text:
        if c.active_text is None or c.active_text == c.text:
            return Text(c.text)
        return Text.assemble(c.text, (f"\nin force: {c.active_text}", "dim"))

    where = [] if grouped else ["!week", "!batch"]
    _table(
        title,
        [*where, "!id", "!member", "text", "by", "evidence", "status"],
        [
            (
                *(() if grouped else (c.week, c.batch_id or "")),
                c.id,
                c.member,
                text(c),
                c.proposed_by,
                len(c.evidence),
                c.status + (" (stale)" if c.stale else ""),
            )
            for c in rows
        ],
    )


@app.command("queue")
def queue(
    all_: Annotated[bool, typer.Option("--all", help="Decided candidates too.")] = False,
    week: WeekOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Candidates waiting for the owner, by week and batch."""
    from viva_store.principles.service import parse_week, principle_queue

    rows = principle_queue(context(), include_decided=all_, week=parse_week(week) if week else None)
    if json_:
        print_json(rows)
        return
    if not rows:
        typer.echo("nothing waits for the owner")
        return
    if not is_terminal():  # rows for a pipe: each carries its week and batch
        _candidates_table(None, rows, grouped=False)
        return
    groups: dict[tuple[str, str | None], list[CandidateRecord]] = {}
    for cand in rows:
        groups.setdefault((cand.week, cand.batch_id), []).append(cand)
    for (wk, batch_id), cands in groups.items():
        _candidates_table(f"{wk} · {batch_id or 'not batched yet'}", cands)


@app.command("active")
def active(member: Member, json_: JsonOpt = False) -> None:
    """The member's principles in force."""
    from viva_store.principles.service import active_principles

    rows = active_principles(context(), member)
    if json_:
        print_json(rows)
        return
    _table(
        None,
        ["!principle", "version", "text", "since"],
        [(p.id, p.version, p.text, f"{p.approved_at:%Y-%m-%d}") for p in rows],
    )


@app.command("approve")
def approve_(
    candidate: CandidateId,
    text: Annotated[
        str | None,
        typer.Option("--text", help="Approve in your own wording instead (-: read stdin)."),
    ] = None,
    note: Annotated[str, typer.Option("--note", help="A note kept with the decision.")] = "",
    json_: JsonOpt = False,
) -> None:
    """Owner: approve a candidate; it becomes the member's active version."""
    from viva_store.principles.service import approve

    text = common.stdin_or({"--text": text})["--text"]
    done = approve(context(), candidate, text=text, note=note)
    if json_:
        print_json(done)
        return
    typer.echo(f"approved: {done.member}'s principle {done.id} is now version {done.version}")
    typer.echo(f"  {done.text}")


@app.command("reject")
def reject_(
    candidate: CandidateId,
    reason: Annotated[str, typer.Option("--reason", help="Why (required).")] = "",
    json_: JsonOpt = False,
) -> None:
    """Owner: reject a candidate (a reason is required)."""
    from viva_store.principles.service import reject

    done = reject(context(), candidate, reason)
    if json_:
        print_json(done)
        return
    typer.echo(f"rejected {done.id} ({done.member})")


@app.command("defer")
def defer_(
    candidate: CandidateId,
    note: Annotated[str, typer.Option("--note", help="A note kept with the decision.")] = "",
    json_: JsonOpt = False,
) -> None:
    """Owner: leave a candidate pending for now."""
    from viva_store.principles.service import defer

    done = defer(context(), candidate, note)
    if json_:
        print_json(done)
        return
    typer.echo(f"deferred {done.id} ({done.member}); it stays in the queue")


@app.command("rollback")
def rollback_(
    principle: PrincipleId,
    to: Annotated[int, typer.Option("--to", min=1, help="The earlier approved version.")],
    reason: Annotated[str, typer.Option("--reason", help="Why, kept with the event.")] = "",
    json_: JsonOpt = False,
) -> None:
    """Owner: make an earlier approved version active again (a new event; nothing deleted)."""
    from viva_store.principles.service import rollback

    done = rollback(context(), principle, to, reason)
    if json_:
        print_json(done)
        return
    typer.echo(f"rolled back: {done.member}'s principle {done.id} is version {done.version} again")
    typer.echo(f"  {done.text}")


@app.command("retire")
def retire_(
    principle: PrincipleId,
    reason: Annotated[str, typer.Option("--reason", help="Why (required).")] = "",
    json_: JsonOpt = False,
) -> None:
    """Owner: retire a principle in force (a new event; it can be rolled back)."""
    from viva_store.principles.service import retire

    event = retire(context(), principle, reason)
    if json_:
        print_json(event)
        return
    typer.echo(
        f"retired {event.member}'s principle {event.principle_id} (was version {event.version})"
    )


@app.command("history")
def history(
    member: Annotated[
        str | None, typer.Argument(autocompletion=completion.member, help="Only this member.")
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Every principle event, oldest first: proposals, batching, decisions, rollbacks, each
    with the wording it is about and the reason given."""
    from viva_store.principles.service import principle_history

    rows = principle_history(context(), member)
    if json_:
        print_json(rows)
        return
    table(
        None,
        [
            key("when"),
            key("member"),
            key("principle"),
            "v",
            "event",
            "by",
            line("wording"),
            line("reason"),
        ],
        [
            (
                when(e.at),
                e.member,
                e.principle_id,
                e.version if e.version is not None else "",
                e.action.replace("_", " "),
                e.actor,
                e.wording or "",
                e.reason or "",
            )
            for e in rows
        ],
    )


@report_app.command("weekly")
def weekly(
    week: WeekOpt = None,
    json_: JsonOpt = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print Markdown.")] = False,
) -> None:
    """The week: principle candidates and decisions, skill events, sessions recovered and
    triaged, per member."""
    from viva_store.reports.service import weekly_report

    if json_ and markdown:
        usage_error("choose one of --json and --markdown")
    report = weekly_report(context(), week)
    if json_:
        print_json(report)
    elif markdown:
        from viva_store.reports.service import report_markdown

        typer.echo(report_markdown(report), nl=False)
    else:
        _report_tables(report)


def _report_tables(report: WeeklyReport) -> None:
    out = console()
    last = report.end - timedelta(days=1)
    out.print(f"[bold]Week {report.week}[/bold] ({report.start:%Y-%m-%d} to {last:%Y-%m-%d})")
    if report.team is not None:
        t = report.team
        out.print(
            f"sessions recovered {t['sessions_recovered']} "
            f"({t['sessions_unattributed']} waiting for triage), "
            f"triaged {t['sessions_triaged']} ({t['sessions_filed_nobody']} nobody's)",
            markup=False,
        )
        for b in t["principle_batches"]:
            out.print(f"batch {b['id']} ({b['created_by']}): {b['summary']}", markup=False)
    _table(
        None,
        ["!member", "principles", "skills", "sessions"],
        [_overview(m) for m in report.members],
    )
    for m in report.members:
        _member_details(m)


def _overview(m: MemberWeek) -> tuple[Any, ...]:
    principles = (
        f"{len(m.principles_proposed)} proposed, {len(m.principle_decisions)} decided"
        if m.principles_proposed or m.principle_decisions
        else "—"
    )
    skills = [
        *(f"+{a['skill']}" for a in m.skills_added),
        *(f"{sum(u['uses'] for u in m.skill_uses)} uses" for _ in [1] if m.skill_uses),
        *(f"forgot {s}" for s in m.skills_forgotten),
        *(f"would forget {s}" for s in m.skills_would_forget),
        *(f"reclaimed {s}" for s in m.skills_reclaimed),
        *(f"{t['skill']} → {t['track']} track" for t in m.track_changes),
    ]
    sessions = f"{m.sessions_recovered} recovered, {m.sessions_triaged} triaged"
    return m.member, principles, "; ".join(skills) or "—", sessions


def _member_details(m: MemberWeek) -> None:
    if m.principles_proposed:
        _table(
            f"{m.member}: principle candidates",
            ["!candidate", "text", "proposed by", "status"],
            [
                (p["id"], _short(p["text"]), p["proposed_by"], p["status"])
                for p in m.principles_proposed
            ],
        )
    if m.principle_decisions:
        _table(
            f"{m.member}: principle decisions",
            ["!when", "!principle", "version", "decision", "text", "reason"],
            [
                (
                    f"{d['at']:%Y-%m-%d}",
                    d["principle_id"],
                    d["version"],
                    d["action"].replace("_", " "),
                    _short(d["text"], 50),
                    _short(d["reason"], 40),
                )
                for d in m.principle_decisions
            ],
        )
    if m.knowledge:
        _table(
            f"{m.member}: knowledge",
            ["!when", "!item", "kind", "event", "summary", "by"],
            [
                (f"{e['at']:%Y-%m-%d}", e["item"], e["kind"], e["action"],
                 _short(e["summary"], 50), e["actor"])
                for e in m.knowledge
            ],
        )  # fmt: skip
    if m.skill_uses:
        _table(
            f"{m.member}: skill uses",
            ["skill", "uses", "value", "corrected"],
            [(u["skill"], u["uses"], f"{u['value']:g}", u["corrected"]) for u in m.skill_uses],
        )
