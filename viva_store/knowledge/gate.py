"""The admission gate: proposing a candidate, admitting or declining it.

A candidate names the reason it is worth keeping and the evidence for that reason; its
sources are sessions (or messages) the proposer can see. Members propose for themselves,
the owner for anyone. A member may admit its own personal memory; whatever widens
visibility needs the owner. A self-model candidate is only ever recorded. A candidate
that states a live status is flagged and must be reworded, or admitted by the owner
with a reason.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, insert, select

from viva_store.access import OWNER, Actor
from viva_store.clock import as_utc
from viva_store.db.schema import KNOWLEDGE_EVENT, KNOWLEDGE_ITEM, MESSAGE, SESSION
from viva_store.errors import AccessDenied, InvalidInput, NotFound
from viva_store.knowledge.load import load, lock
from viva_store.knowledge.model import (
    ADMITTED,
    CANDIDATE,
    DECLINED,
    KINDS,
    MEMBER_KINDS,
    PERSONAL,
    PROJECT,
    PROPOSED,
    REASONS,
    SELF_MODEL,
    Item,
    Source,
    distinct_sessions,
    dynamic_flags,
    parse_source,
)
from viva_store.knowledge.state import added, happened
from viva_store.members.roster import get_member
from viva_store.redact import RULESET_VERSION, redact_typed
from viva_store.sessions.service import resolve_ids
from viva_store.store import Context

MAX_SUMMARY = 300
MAX_BODY = 20_000
MAX_SOURCES = 50


def actor_name(ctx: Context) -> str:
    return "owner" if ctx.actor.member is None else ctx.actor.member


def clean(value: str, what: str, limit: int, required: bool = True) -> str:
    """What was typed, redacted and trimmed; refused when empty (if required) or too long."""
    value = redact_typed(value).strip()
    if required and not value:
        raise InvalidInput(f"{what} is empty")
    if len(value) > limit:
        raise InvalidInput(f"{what} is {len(value)} characters; keep it under {limit}")
    return value


def _sources(
    conn: Connection, ctx: Context, member: str, kind: str, refs: Sequence[str]
) -> list[Source]:
    """The cited sessions, resolved as the proposer sees them; a member's own kinds cite
    only that member's experience (a personal memory is never drawn from another's)."""
    if not refs:
        raise InvalidInput("cite at least one source session (--from SESSION[:SEQ])")
    if len(refs) > MAX_SOURCES:
        raise InvalidInput(f"{len(refs)} sources; at most {MAX_SOURCES}")
    resolver = ctx.as_actor(Actor(member=member)) if kind in MEMBER_KINDS else ctx
    out: list[Source] = []
    for ref in refs:
        try:
            session_ref, seq = parse_source(ref)
        except ValueError as exc:
            raise InvalidInput(str(exc)) from None
        try:
            sid = resolve_ids(conn, resolver, session_ref)
        except NotFound:
            whose = f"{member}'s experience" if kind in MEMBER_KINDS else "the sessions you can see"
            raise NotFound(f"source {ref!r}: no session in {whose} matches it") from None
        if seq is not None:
            found = conn.execute(
                select(MESSAGE.c.seq).where(MESSAGE.c.session_id == sid, MESSAGE.c.seq == seq)
            ).first()
            if found is None:
                raise NotFound(f"source {ref!r}: session {sid} has no message {seq}")
        source = Source(sid, seq)
        if source not in out:
            out.append(source)
    return out


def _check_reason(kind: str, reason: str, sources: Sequence[Source], evidence: str) -> None:
    """The gate's reasons, each with the evidence it needs."""
    if reason not in REASONS:
        raise InvalidInput(f"unknown reason {reason!r}; choose one of {', '.join(REASONS)}")
    if reason == "recurred" and distinct_sessions(sources) < 2:
        raise InvalidInput(
            "'recurred' needs two sessions where the same lesson was needed (--from twice)"
        )
    if reason == "emphasised" and not any(s.seq is not None for s in sources):
        raise InvalidInput("'emphasised' cites the message where it was said (--from SESSION:SEQ)")
    if reason in ("surprised", "costly") and not evidence:
        what = (
            "which earlier judgement it contradicts"
            if reason == "surprised"
            else ("what re-deriving it would cost")
        )
        raise InvalidInput(f"'{reason}' needs --evidence saying {what}")
    if kind == SELF_MODEL and not evidence:
        raise InvalidInput("a self-model candidate is a hypothesis: give --evidence for it")


def propose(
    ctx: Context,
    member: str,
    kind: str,
    summary: str,
    reason: str,
    sources: Sequence[str],
    body: str = "",
    evidence: str = "",
    project: str | None = None,
    domain: str | None = None,
    task_pattern: str | None = None,
    importance: float | None = None,
    why: str = "",
    confidence: float | None = None,
) -> str:
    """Record a candidate for ``member``; nothing reaches a task until it is admitted."""
    get_member(ctx, member)
    if not ctx.actor.is_owner and ctx.actor.member != member:
        raise AccessDenied(f"{ctx.actor.describe()} may propose knowledge only for itself")
    if kind not in KINDS:
        raise InvalidInput(f"unknown kind {kind!r}; choose one of {', '.join(KINDS)}")
    summary = clean(summary, "the summary", MAX_SUMMARY)
    body = clean(body, "the body", MAX_BODY, required=False)
    evidence = clean(evidence, "the evidence", MAX_BODY, required=False)
    project = clean(project, "the project", 200) if project is not None else None
    domain = clean(domain, "the domain", 100) if domain is not None else None
    task_pattern = clean(task_pattern, "the task pattern", 200) if task_pattern else None
    if kind == PROJECT and not project:
        raise InvalidInput("project knowledge names its project (--project P)")
    if importance is not None and not 0.0 <= importance <= 1.0:
        raise InvalidInput("importance is between 0 and 1")
    if importance is not None and not why.strip():
        raise InvalidInput("say why it matters (--why) when you give an importance")
    if confidence is not None and not 0.0 <= confidence <= 1.0:
        raise InvalidInput("confidence is between 0 and 1")
    why = clean(why, "the importance's reason", 2000, required=False)
    now = ctx.store.now()
    flags = dynamic_flags(summary, body)

    def work(conn: Connection) -> str:
        cited = _sources(conn, ctx, member, kind, sources)
        _check_reason(kind, reason, cited, evidence)
        starts = [
            as_utc(t)
            for t in conn.execute(
                select(SESSION.c.started_at).where(
                    SESSION.c.id.in_(sorted({s.session for s in cited}))
                )
            ).scalars()
            if t is not None
        ]
        item_id = "k" + secrets.token_hex(4)
        values = dict(
            id=item_id,
            member=member,
            kind=kind,
            project=project,
            domain=domain,
            task_pattern=task_pattern,
            summary=summary,
            body=body,
            reason=reason,
            evidence=evidence,
            sources=[{"session": s.session, "seq": s.seq} for s in cited],
            importance=0.5 if importance is None else importance,
            why=why,
            confidence=confidence,
            occurred_at=max(starts) if starts else now,
            flags=list(flags),
            proposed_by=actor_name(ctx),
            created_at=now,
            ruleset=RULESET_VERSION,
        )
        conn.execute(insert(KNOWLEDGE_ITEM).values(**values))
        added(conn, values)
        record_event(conn, item_id, PROPOSED, actor_name(ctx), now)
        return item_id

    return ctx.store.write(work)


def record_event(
    conn: Connection, item_id: str, action: str, actor: str, at: Any, **more: Any
) -> None:
    conn.execute(
        insert(KNOWLEDGE_EVENT).values(
            item_id=item_id,
            action=action,
            actor=actor,
            reason=more.get("reason", ""),
            session_id=more.get("session"),
            other_id=more.get("other"),
            at=at,
            ruleset=RULESET_VERSION,
        )
    )
    if action != PROPOSED:
        happened(conn, item_id, action)


def target(conn: Connection, ctx: Context, item_id: str) -> Item:
    """The item an action is about, locked; a member may act only on its own items."""
    lock(conn, item_id.strip())
    found = load(conn, ctx.as_actor(OWNER), ids=[item_id.strip()])
    if not found or not (ctx.actor.is_owner or found[0].member == ctx.actor.member):
        raise NotFound(f"no knowledge item {item_id!r} (see `viva knowledge list`)")
    return found[0]


def admit(ctx: Context, item_id: str, note: str = "") -> None:
    """Admit a candidate: the member for its own personal memory, the owner for anything."""
    note = clean(note, "the note", 2000, required=False)

    def work(conn: Connection) -> None:
        item = target(conn, ctx, item_id)
        if item.kind == SELF_MODEL:
            raise InvalidInput("a self-model candidate is only ever recorded; nothing admits it")
        if item.status != CANDIDATE:
            raise InvalidInput(f"{item.id} is {item.status}, not a candidate")
        if not ctx.actor.is_owner and item.kind != PERSONAL:
            raise AccessDenied(
                f"only the owner admits {item.kind} (it widens who sees it); "
                f"{ctx.actor.describe()} may admit its own personal memory"
            )
        if item.flags and not (ctx.actor.is_owner and note):
            raise InvalidInput(
                f"{item.id} states a live status ({', '.join(item.flags)}): reword it as the "
                "explanation or decision behind it, or the owner admits it with --note"
            )
        record_event(conn, item.id, ADMITTED, actor_name(ctx), ctx.store.now(), reason=note)

    ctx.store.write(work)


def decline(ctx: Context, item_id: str, reason: str) -> None:
    """Turn a candidate away at the gate (the owner, or its member withdrawing it)."""
    reason = clean(reason, "the reason", 2000)

    def work(conn: Connection) -> None:
        item = target(conn, ctx, item_id)
        if item.status != CANDIDATE:
            raise InvalidInput(f"{item.id} is {item.status}, not a candidate")
        record_event(conn, item.id, DECLINED, actor_name(ctx), ctx.store.now(), reason=reason)

    ctx.store.write(work)
