"""Recall: search experience, ranked by relevance, recency and importance (DESIGN §5, I5).

:func:`recall` searches every recovered message and session title the caller
may see — not a fixed top-K of anything — and returns the best hit per
session with its provenance and a snippet. The scope is part of the query:
a member-scoped call joins ``attribution`` on its indexed ``member`` column,
so another member's sessions are never read, let alone returned. The owner
searches everything, or one member with ``member=``.

The engagement state only narrows: with ``state="prefer"`` hits in the
state's project get a boost, with ``"restrict"`` only they remain — always
inside the caller's scope, never beyond it.

Before searching, anything stored but not yet indexed is indexed
(:func:`viva_store.services.recall_index.refresh_if_pending`), so results
never lag behind the store.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, Select, case, func, insert, literal, or_, select, update
from sqlalchemy.exc import OperationalError
from sqlalchemy.sql.elements import ColumnElement

from viva_store.access import Actor, member_scope, require_owner, require_self_or_owner
from viva_store.clock import as_utc
from viva_store.db import fts
from viva_store.db.tables import Attribution, Message, RecallMark, RecallSession, Session
from viva_store.errors import InvalidInput
from viva_store.recall.query import ParsedQuery, conservative_tokens, parse_query
from viva_store.recall.ranking import STATE_MODES, RecallParams, combine, recency, relevance
from viva_store.recall.records import RecallHit, RecallResult
from viva_store.recall.snippet import make_snippet
from viva_store.services import recall_index
from viva_store.services.engagement import current_state, entry_rules
from viva_store.services.members import member_names
from viva_store.services.registry import reader
from viva_store.services.sessions import resolve_ids
from viva_store.store import Context

A = Attribution.__table__  # type: ignore[attr-defined]
M = Message.__table__  # type: ignore[attr-defined]
S = Session.__table__  # type: ignore[attr-defined]
RS = RecallSession.__table__  # type: ignore[attr-defined]
RM = RecallMark.__table__  # type: ignore[attr-defined]

ORDERS = ("rank", "newest")
MAX_LIMIT = 200


@dataclass(frozen=True, slots=True)
class _Plan:
    """Everything one search needs besides the tokens."""

    dialect: str
    params: RecallParams
    now: datetime
    actor: Actor
    target: str | None  # whose experience; None: everything (the owner)
    order: str
    mode: str  # prefer | restrict | off
    project: str | None  # the engagement state's project, when it narrows
    prefixes: tuple[str, ...]

    @property
    def narrows(self) -> bool:
        return self.project is not None and self.mode != "off"


@dataclass(frozen=True, slots=True)
class _Candidate:
    session_id: str
    kind: str  # message | title
    message_id: int | None
    at: datetime | None
    key: float  # the SQL score (rank order) or the time (newest order)


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _in_project(plan: _Plan) -> ColumnElement[bool]:
    """Sessions of the state's project: by name, by cwd, or under a configured prefix."""
    project = plan.project or ""
    conds: list[ColumnElement[bool]] = [
        S.c.project == project,
        S.c.cwd == project,
        S.c.cwd.like("%/" + _escape_like(project), escape="\\"),
    ]
    for prefix in plan.prefixes:
        base = prefix.rstrip("/")
        conds += [S.c.cwd == base, S.c.cwd.like(_escape_like(base) + "/%", escape="\\")]
    return or_(*conds)


def _scoped(query: Select[Any], plan: _Plan, session_col: Any) -> Select[Any]:
    """Restrict to what the caller may see and asked for: inside the query, on an index."""
    if plan.target is None:
        return query
    return query.join(A, A.c.session_id == session_col).where(
        A.c.status == "attributed",
        A.c.member == plan.target,
        member_scope(plan.actor, A.c.member),
    )


def _score(plan: _Plan, rank: Any, at: Any, importance: Any) -> ColumnElement[float]:
    p = plan.params
    k = p.k_for(plan.dialect)
    rel = literal(1.0) - k / (rank + k)  # = rank / (rank + k), with the rank evaluated once
    rec = fts.recency(plan.dialect, fts.age_days(plan.dialect, at, plan.now), p.half_life_days)
    imp = func.coalesce(importance, 0.0)
    total = p.weight_relevance * rel + p.weight_recency * rec + p.weight_importance * imp
    score = total / p.weight_sum
    if plan.narrows and plan.mode == "prefer":
        score = score * case((_in_project(plan), 1.0 + p.state_boost), else_=1.0)
    return score


def _ordered(query: Select[Any], plan: _Plan, score: Any, at: Any, tie: Any) -> Select[Any]:
    if plan.order == "rank":
        label = score.label("key")
        return query.add_columns(label).order_by(label.desc(), tie.desc())
    return query.add_columns(at.label("key")).order_by(at.desc().nulls_last(), tie.desc())


def _message_query(plan: _Plan, match: fts.MessageMatch) -> Select[Any]:
    query = select(M.c.id, M.c.session_id, M.c.at).select_from(match.source).where(match.condition)
    query = _scoped(query, plan, M.c.session_id)
    if plan.narrows:
        query = query.join(S, S.c.id == M.c.session_id)
        if plan.mode == "restrict":
            query = query.where(_in_project(plan))
    score = None
    if plan.order == "rank":
        query = query.outerjoin(RS, RS.c.session_id == M.c.session_id)
        score = _score(plan, match.rank, M.c.at, RS.c.importance)
    return _ordered(query, plan, score, M.c.at, M.c.id)


def _title_query(plan: _Plan, match: fts.TitleMatch) -> Select[Any]:
    at = func.coalesce(S.c.ended_at, S.c.started_at)
    query = select(S.c.id.label("session_id"), at.label("at"))
    query = query.select_from(match.source).where(match.condition)
    query = _scoped(query, plan, S.c.id)
    if plan.narrows and plan.mode == "restrict":
        query = query.where(_in_project(plan))
    score = _score(plan, match.rank, at, RS.c.importance) if plan.order == "rank" else None
    return _ordered(query, plan, score, at, S.c.id)


def _best_per_session(
    fetch: Callable[[int], list[Any]], limit: int, make: Callable[[Any], _Candidate]
) -> list[_Candidate]:
    """The first ``limit`` sessions of an ordered hit list, fetching more rows as needed."""
    k = max(limit * 4, 40)
    while True:
        rows = fetch(k)
        best: dict[str, _Candidate] = {}
        for row in rows:
            if row.session_id not in best:
                best[row.session_id] = make(row)
                if len(best) == limit:
                    return list(best.values())
        if len(rows) < k:
            return list(best.values())
        k *= 8


def _candidates(
    conn: Connection, plan: _Plan, tokens: tuple[str, ...], any_token: bool, limit: int
) -> list[_Candidate]:
    msg = fts.MessageMatch(plan.dialect, tokens, any_token)
    ttl = fts.TitleMatch(plan.dialect, tokens, any_token)
    mq, tq = _message_query(plan, msg), _title_query(plan, ttl)

    def as_key(value: Any) -> float:
        if value is None:
            return float("-inf")
        return as_utc(value).timestamp() if isinstance(value, datetime) else float(value)

    messages = _best_per_session(
        lambda k: list(conn.execute(mq.limit(k))),
        limit,
        lambda r: _Candidate(r.session_id, "message", r.id, r.at, as_key(r.key)),
    )
    titles = _best_per_session(
        lambda k: list(conn.execute(tq.limit(k))),
        limit,
        lambda r: _Candidate(r.session_id, "title", None, r.at, as_key(r.key)),
    )
    merged: dict[str, _Candidate] = {}
    for cand in sorted(messages + titles, key=lambda c: c.key, reverse=True):
        merged.setdefault(cand.session_id, cand)
    return list(merged.values())[:limit]


def _ranks(
    conn: Connection,
    plan: _Plan,
    tokens: tuple[str, ...],
    any_token: bool,
    chosen: list[_Candidate],
) -> dict[tuple[str, Any], float]:
    """The engine's rank of each chosen hit (for its relevance factor)."""
    out: dict[tuple[str, Any], float] = {}
    ids = [c.message_id for c in chosen if c.kind == "message"]
    if ids:
        msg = fts.MessageMatch(plan.dialect, tokens, any_token)
        query = select(M.c.id, msg.rank.label("rank")).select_from(msg.source)
        for row in conn.execute(query.where(msg.condition, msg.key.in_(ids))):
            out[("message", row.id)] = float(row.rank or 0.0)
    sids = [c.session_id for c in chosen if c.kind == "title"]
    if sids:
        ttl = fts.TitleMatch(plan.dialect, tokens, any_token)
        query = select(S.c.id, ttl.rank.label("rank")).select_from(ttl.source)
        for row in conn.execute(query.where(ttl.condition, S.c.id.in_(sids))):
            out[("title", row.id)] = float(row.rank or 0.0)
    return out


def _hits(
    conn: Connection,
    plan: _Plan,
    parsed: ParsedQuery,
    tokens: tuple[str, ...],
    any_token: bool,
    chosen: list[_Candidate],
) -> list[RecallHit]:
    if not chosen:
        return []
    ranks = _ranks(conn, plan, tokens, any_token, chosen)
    in_project = _in_project(plan) if plan.narrows else literal(False)
    prov = select(
        S.c.id,
        S.c.harness,
        S.c.title,
        S.c.project,
        S.c.started_at,
        A.c.status,
        A.c.member,
        RS.c.importance,
        RS.c.reason,
        case((in_project, True), else_=False).label("in_project"),
    ).select_from(S.outerjoin(A, A.c.session_id == S.c.id).outerjoin(RS, RS.c.session_id == S.c.id))
    prov = prov.where(S.c.id.in_([c.session_id for c in chosen]))
    if plan.target is not None:  # the same scope again: provenance never widens it
        prov = prov.where(
            A.c.status == "attributed",
            A.c.member == plan.target,
            member_scope(plan.actor, A.c.member),
        )
    sessions = {row.id: row for row in conn.execute(prov)}
    ids = [c.message_id for c in chosen if c.message_id is not None]
    texts = {
        row.id: row
        for row in conn.execute(select(M.c.id, M.c.seq, M.c.text).where(M.c.id.in_(ids)))
    }
    p = plan.params
    hits = []
    for cand in chosen:
        row = sessions.get(cand.session_id)
        if row is None:
            continue
        at = as_utc(cand.at) if cand.at is not None else None
        age = (plan.now - at).total_seconds() / 86400 if at is not None else None
        if at is None and row.started_at is not None:  # shown, but no recency (as ranked)
            at = as_utc(row.started_at)
        rel = relevance(
            ranks.get((cand.kind, cand.message_id or cand.session_id), 0.0), p.k_for(plan.dialect)
        )
        rec = recency(age, p.half_life_days)
        imp = float(row.importance or 0.0)
        score = combine(rel, rec, imp, p)
        in_proj = bool(row.in_project) if plan.narrows else None
        if in_proj and plan.mode == "prefer":
            score *= 1.0 + p.state_boost
        message = texts.get(cand.message_id) if cand.message_id is not None else None
        snippet = make_snippet(message.text if message else (row.title or ""), parsed.terms)
        hits.append(
            RecallHit(
                session_id=cand.session_id,
                harness=row.harness,
                at=at,
                score=round(score, 6),
                snippet=snippet.text,
                kind=cand.kind,
                seq=message.seq if message else None,
                title=row.title,
                member=row.member if row.status == "attributed" else None,
                status=row.status or "unattributed",
                project=row.project,
                factors={
                    "relevance": round(rel, 6),
                    "recency": round(rec, 6),
                    "importance": round(imp, 6),
                },
                importance_reason=row.reason or "",
                highlights=snippet.highlights,
                in_state_project=in_proj,
            )
        )
    return hits


def _plan(
    ctx: Context, conn: Connection, member: str | None, order: str, state: str | None
) -> _Plan:
    params = RecallParams.from_config(ctx.store.config.section("recall"))
    target = ctx.actor.member if not ctx.actor.is_owner else member
    mode = state or (params.state_mode if not ctx.actor.is_owner else "off")
    project, prefixes = None, ()
    if mode != "off" and target is not None:
        project = current_state(conn, target).project
        if project is not None:
            prefixes = entry_rules(ctx).prefixes_of(project)
    return _Plan(
        dialect=conn.dialect.name,
        params=params,
        now=ctx.store.now(),
        actor=ctx.actor,
        target=target,
        order=order,
        mode=mode,
        project=project,
        prefixes=prefixes,
    )


def _validate(ctx: Context, member: str | None, limit: int, order: str, state: str | None) -> None:
    if member is not None:
        require_self_or_owner(ctx.actor, member, "recall experience")
        if ctx.actor.is_owner and member not in member_names(ctx):
            raise InvalidInput(f"no member named {member!r} (see `viva members`)")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(f"--limit must be between 1 and {MAX_LIMIT}")
    if order not in ORDERS:
        raise InvalidInput(f"order must be one of {', '.join(ORDERS)}")
    if state is not None and state not in STATE_MODES:
        raise InvalidInput(f"--state must be one of {', '.join(STATE_MODES)}")
    if state not in (None, "off") and ctx.actor.is_owner and member is None:
        raise InvalidInput("--state narrows one member's experience: give --member too")


@reader
def recall(
    ctx: Context,
    query: str,
    member: str | None = None,
    limit: int = 10,
    order: str = "rank",
    state: str | None = None,
) -> RecallResult:
    """Search experience for ``query``; the best hit per session, best first.

    ``order``: ``rank`` (the three-factor score) or ``newest`` (most recent
    hit first; the Timeline's search). ``state``: ``prefer`` / ``restrict`` /
    ``off`` — how the engagement state's project narrows the search
    (default: ``[recall] state_mode`` for a member, off for the owner).
    A query over ``[recall] max_query_chars`` is truncated; one with no word
    or number in it is :class:`InvalidInput`.
    """
    _validate(ctx, member, limit, order, state)
    params = RecallParams.from_config(ctx.store.config.section("recall"))
    parsed = parse_query(query, params.max_query_chars)
    recall_index.refresh_if_pending(ctx)

    def work(conn: Connection) -> RecallResult:
        fts.ensure_functions(conn)
        plan = _plan(ctx, conn, member, order, state)
        notes: list[str] = []
        if parsed.truncated:
            notes.append(f"query truncated to {params.max_query_chars} characters")
        if parsed.dropped_tokens:
            notes.append(f"only the first {len(parsed.tokens)} distinct words were searched")
        tokens, matched = parsed.tokens, "all"
        hits = _search(conn, plan, parsed, tokens, False, limit, notes)
        if not hits and len(tokens) > 1:
            matched = "any"
            hits = _search(conn, plan, parsed, tokens, True, limit, notes)
        return RecallResult(
            hits=tuple(hits),
            query=parsed.text,
            tokens=tokens,
            truncated=parsed.truncated,
            matched=matched,
            order=order,
            member=plan.target,
            state_mode=plan.mode,
            state_project=plan.project if plan.narrows else None,
            notes=tuple(notes),
        )

    return ctx.store.read(work)


def _search(
    conn: Connection,
    plan: _Plan,
    parsed: ParsedQuery,
    tokens: tuple[str, ...],
    any_token: bool,
    limit: int,
    notes: list[str],
) -> list[RecallHit]:
    """Candidates then hits; a token the engine's tokenizer would split is split first."""
    try:
        chosen = _candidates(conn, plan, tokens, any_token, limit)
    except OperationalError as exc:
        if plan.dialect != "sqlite" or not fts.is_query_error(exc):
            raise
        tokens = conservative_tokens(tokens)
        if not tokens:
            notes.append("no searchable word left after splitting unusual characters")
            return []
        chosen = _candidates(conn, plan, tokens, any_token, limit)
    return _hits(conn, plan, parsed, tokens, any_token, chosen)


@dataclass(frozen=True, slots=True)
class Marked:
    """A session's importance after the owner marked it."""

    session_id: str
    importance: float
    reason: str


def mark_importance(ctx: Context, ref: str, value: float | None, note: str = "") -> Marked:
    """Owner: set a session's importance (0..1), or ``None`` to go back to the derived value.

    Recorded as an append-only ``recall_mark`` event.
    """
    require_owner(ctx.actor, "mark a session's importance")
    if value is not None and not 0.0 <= value <= 1.0:
        raise InvalidInput("importance must be between 0 and 1")
    recall_index.refresh_if_pending(ctx)
    now = ctx.store.now()

    def work(conn: Connection) -> Marked:
        sid = resolve_ids(conn, ctx, ref)
        conn.execute(
            insert(RM).values(session_id=sid, importance=value, actor="owner", at=now, note=note)
        )
        conn.execute(update(RS).where(RS.c.session_id == sid).values(marked=value))
        recall_index.reweigh(conn, [sid])
        row = conn.execute(select(RS.c.importance, RS.c.reason).where(RS.c.session_id == sid)).one()
        return Marked(sid, float(row.importance), row.reason)

    return ctx.store.write(work)
