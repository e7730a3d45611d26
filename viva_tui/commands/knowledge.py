"""``viva knowledge ...`` (the admission gate, uses, the review queue) and ``viva brief``.

Words follow the evidence: an item nobody has used is "recorded", one with uses is
"reused N times"; nothing here says "learned".
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from viva_tui.commands.common import JsonOpt, context, print_json, table, usage_error
from viva_tui.commands.output import Col, key, line, when

if TYPE_CHECKING:
    from viva_store.knowledge.service import BriefRecord, KnowledgeRecord
    from viva_store.store import Context

app = typer.Typer(help="Knowledge: propose, the owner's gate, uses, review.", no_args_is_help=True)
top = typer.Typer()

KINDS = ("personal_memory", "self_model_candidate", "project_knowledge", "team_knowledge", "skill")
REASONS = ("recurred", "surprised", "emphasised", "costly")
ItemId = Annotated[str, typer.Argument(help="A knowledge item id (k…).")]
Member = Annotated[str, typer.Argument(help="The member.")]
ProjectOpt = Annotated[
    str | None, typer.Option("--project", help="The project (project knowledge; a task's project).")
]


def _choice(value: str | None, allowed: tuple[str, ...], flag: str) -> None:
    if value is not None and value not in allowed:
        usage_error(f"{flag}: choose one of {', '.join(allowed)} (not {value!r})")


def _answer(
    ctx: Context,
    item_id: str,
    json_: bool,
    said: Callable[[KnowledgeRecord], str],
    project: str | None = None,
) -> None:
    """After a decision or a use: the item as it now stands (JSON), or one line."""
    from viva_store.knowledge.service import get_item

    record = get_item(ctx, item_id, project)
    if json_:
        print_json(record)
    else:
        typer.echo(said(record))


def _body(body: str | None) -> str:
    if body == "-":
        import sys

        return sys.stdin.read()
    return body or ""


@app.command("propose")
def propose_(
    member: Member,
    kind: Annotated[str, typer.Option("--kind", help=f"One of {', '.join(KINDS)}.")],
    summary: Annotated[str, typer.Option("--summary", help="One line: what is worth keeping.")],
    reason: Annotated[str, typer.Option("--reason", help=f"Why keep it: {', '.join(REASONS)}.")],
    sources: Annotated[
        list[str],
        typer.Option("--from", help="A source session (SESSION or SESSION:SEQ); repeatable."),
    ],
    body: Annotated[
        str | None, typer.Option("--body", help="The body (- reads standard input).")
    ] = None,
    evidence: Annotated[
        str, typer.Option("--evidence", help="The evidence for the reason, in words.")
    ] = "",
    project: ProjectOpt = None,
    domain: Annotated[str | None, typer.Option("--domain", help="Activate in this domain.")] = None,
    pattern: Annotated[
        str | None, typer.Option("--pattern", help="Activate for tasks matching this glob.")
    ] = None,
    importance: Annotated[
        float | None, typer.Option("--importance", help="0..1 (default 0.5); needs --why.")
    ] = None,
    why: Annotated[str, typer.Option("--why", help="Why it matters that much.")] = "",
    confidence: Annotated[
        float | None, typer.Option("--confidence", help="0..1: how sure it is.")
    ] = None,
    json_: JsonOpt = False,
) -> None:
    """Propose a candidate; it reaches tasks only once admitted."""
    from viva_store.knowledge.service import get_item, propose

    _choice(kind, KINDS, "--kind")
    _choice(reason, REASONS, "--reason")
    ctx = context()
    item_id = propose(
        ctx, member, kind, summary, reason, sources, _body(body), evidence, project,
        domain, pattern, importance, why, confidence,
    )  # fmt: skip
    record = get_item(ctx, item_id, project)
    if json_:
        print_json(record)
        return
    typer.echo(f"proposed {record.id} ({record.kind}) for {record.member}: a candidate")
    if record.flags:
        typer.echo(
            f"flagged: it states a live status ({', '.join(record.flags)}); reword it as the "
            "explanation or decision behind it, or the owner admits it with --note"
        )


@app.command("admit")
def admit_(
    item: ItemId,
    note: Annotated[str, typer.Option("--note", help="Why (required for a flagged one).")] = "",
    json_: JsonOpt = False,
) -> None:
    """Admit a candidate (the owner; a member its own personal memory)."""
    from viva_store.knowledge.service import admit

    ctx = context()
    admit(ctx, item, note)
    _answer(ctx, item, json_, lambda r: f"admitted {r.id} ({r.kind}): {r.words}")


@app.command("decline")
def decline_(
    item: ItemId,
    reason: Annotated[str, typer.Option("--reason", help="Why not.")],
    json_: JsonOpt = False,
) -> None:
    """Turn a candidate away at the gate."""
    from viva_store.knowledge.service import decline

    ctx = context()
    decline(ctx, item, reason)
    _answer(ctx, item, json_, lambda r: f"declined {r.id}")


@app.command("use")
def use_(
    item: ItemId,
    session: Annotated[str, typer.Option("--session", help="The session that used it.")],
    project: ProjectOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Record a real use of an item in a session."""
    from viva_store.knowledge.service import use

    ctx = context()
    added = use(ctx, item, session)
    already = "" if added else " (already recorded for that session)"
    _answer(ctx, item, json_, lambda r: f"{r.id}: {r.words}{already}", project)


@app.command("retract")
def retract_(
    item: ItemId,
    reason: Annotated[str, typer.Option("--reason", help="Why it is withdrawn.")],
    json_: JsonOpt = False,
) -> None:
    """Retract an item; its history stays."""
    from viva_store.knowledge.service import retract

    ctx = context()
    retract(ctx, item, reason)
    _answer(
        ctx,
        item,
        json_,
        lambda r: f"retracted {r.id} (its history is kept: viva knowledge show {r.id})",
    )


@app.command("supersede")
def supersede_(
    item: ItemId,
    by: Annotated[str, typer.Option("--by", help="The item that replaces it.")],
    reason: Annotated[str, typer.Option("--reason", help="Why.")] = "",
    json_: JsonOpt = False,
) -> None:
    """Mark an item replaced by another."""
    from viva_store.knowledge.service import supersede

    ctx = context()
    supersede(ctx, item, by, reason)
    _answer(ctx, item, json_, lambda r: f"{r.id} is superseded by {by}")


def _rows(records: list[KnowledgeRecord]) -> list[tuple[str, ...]]:
    return [
        (r.id, r.member, r.kind, r.project or "", r.words, r.reason, str(len(r.sources)), r.summary)
        for r in records
    ]


COLUMNS: list[str | Col] = [
    key("id"),
    "member",
    "kind",
    "project",
    "status",
    "reason",
    "sources",
    line("summary"),
]


@app.command("list")
def list_(
    member: Annotated[str | None, typer.Argument(help="Only this member's items.")] = None,
    kind: Annotated[str | None, typer.Option("--kind", help="Only this kind.")] = None,
    status: Annotated[str | None, typer.Option("--status", help="Only this status.")] = None,
    project: ProjectOpt = None,
    json_: JsonOpt = False,
) -> None:
    """Items you may see (a member: its own, shared ones, and --project's)."""
    from viva_store.knowledge.service import STATUSES, list_knowledge

    _choice(kind, KINDS, "--kind")
    _choice(status, STATUSES, "--status")
    records = list_knowledge(context(), member, kind, status, project)
    if json_:
        print_json(records)
        return
    table(None, COLUMNS, _rows(records))


@app.command("show")
def show_(item: ItemId, project: ProjectOpt = None, json_: JsonOpt = False) -> None:
    """One item: content, scope, provenance, status and history."""
    from viva_store.knowledge.service import get_item

    r = get_item(context(), item, project)
    if json_:
        print_json(r)
        return
    scope = ", ".join(
        f"{k} {v}" for k, v in (("project", r.project), ("domain", r.domain),
                                ("pattern", r.task_pattern)) if v
    )  # fmt: skip
    typer.echo(f"{r.id}  {r.kind} of {r.member}  [{r.words}]")
    typer.echo(f"  {r.summary}")
    if r.body:
        typer.echo("\n" + r.body.rstrip() + "\n")
    typer.echo(f"  scope: {scope or 'every task of its kind'}")
    typer.echo(f"  reason: {r.reason}" + (f" — {r.evidence}" if r.evidence else ""))
    hidden = f" (+{r.sources_hidden} you cannot see)" if r.sources_hidden else ""
    typer.echo(f"  from: {', '.join(r.sources) or '-'}{hidden}; occurred {when(r.occurred_at)}")
    typer.echo(f"  importance {r.importance:.2f}" + (f" ({r.why})" if r.why else ""))
    if r.flags:
        typer.echo(f"  flagged: states a live status ({', '.join(r.flags)})")
    for e in r.history:
        extra = " ".join(x for x in (e.session or "", f"by {e.other}" if e.other else "") if x)
        reason = f": {e.reason}" if e.reason else ""
        typer.echo(f"  {when(e.at)}  {e.action} by {e.actor} {extra}{reason}".rstrip())


@app.command("review")
def review_(json_: JsonOpt = False) -> None:
    """The owner's review queue: items long unused or unverified."""
    from viva_store.knowledge.service import review_queue

    due = review_queue(context())
    if json_:
        print_json(due)
        return
    if not due:
        typer.echo("nothing to review")
        return
    table(None, [key("id"), "member", "kind", "status", line("why"), line("summary")],
          [(d.item.id, d.item.member, d.item.kind, d.item.words, d.why, d.item.summary)
           for d in due])  # fmt: skip


@top.command("brief")
def brief_(
    member: Member,
    task: Annotated[str, typer.Option("--task", help="What the task is.")],
    project: ProjectOpt = None,
    json_: JsonOpt = False,
) -> None:
    """The task brief: goal, constraints, attempts, outputs, unfinished, related knowledge."""
    from viva_store.knowledge.service import brief

    b = brief(context(), member, task, project)
    if json_:
        print_json(b)
        return
    for text in brief_lines(b):
        typer.echo(text)


def brief_lines(b: BriefRecord) -> list[str]:
    """The brief as plain lines."""
    where = f" in {b.project}" if b.project else ""
    out = [f"Task brief for {b.member}{where}", f"goal: {b.goal}"]
    out.append("constraints:" if b.constraints else "constraints: none in force")
    out += [f"  - {c}" for c in b.constraints]
    sections = (("tried", b.tried), ("outputs", b.outputs), ("unfinished", b.unfinished))
    for title, attempts in sections:
        if attempts:
            out.append(f"{title}:")
            out += [
                f"  - {when(a.started_at)} {a.harness} {a.execution}"
                + (f": {a.why}" if a.why else "")
                for a in attempts
            ]
    out += knowledge_lines(b.knowledge, b.knowledge_more)
    return out


def knowledge_lines(items: tuple[KnowledgeRecord, ...], more: int) -> list[str]:
    if not items:
        return ["knowledge: nothing related recorded"]
    out = ["knowledge:"]
    for r in items:
        where = f" ({r.project})" if r.project else ""
        out.append(f"  - [{r.kind}{where}, {r.words}] {r.summary}  ({r.id})")
        out.append(f"    from {', '.join(r.sources) or 'sources you cannot see'}; {r.reason}")
    if more:
        out.append(f"  … {more} more the task may see (viva knowledge list)")
    return out
