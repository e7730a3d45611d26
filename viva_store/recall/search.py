"""Recall: search experience, ranked by relevance, recency and importance (DESIGN §5, I5).

:func:`recall` searches every recovered message and session title the caller
may see — not a fixed top-K of anything — and returns the best hit per
session with its provenance and a snippet. The scope is part of the query:
a member-scoped call joins ``attribution`` on its indexed ``member`` column,
so another member's sessions are dropped inside the query, before anything is
scored or returned. The owner searches everything, or one member with ``member=``.

The engagement state only narrows: with ``state="prefer"`` hits in the
state's project get a boost, with ``"restrict"`` only they remain — always
inside the caller's scope, never beyond it.

Before searching, anything stored but not yet indexed is indexed
(:func:`viva_store.recall.index.refresh`), so results never lag
behind the store; whether anything is pending is remembered on the
connection until something is committed (:mod:`viva_store.recall.changes`).
The statements themselves are in :mod:`viva_store.recall.sql`.
"""

from __future__ import annotations

from collections.abc import Hashable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection
from sqlalchemy.exc import OperationalError

from viva_store.access import require_self_or_owner
from viva_store.clock import as_utc
from viva_store.engagement.service import current_state, entry_rules
from viva_store.errors import InvalidInput
from viva_store.members.roster import member_names
from viva_store.recall import changes, fts, fts_match
from viva_store.recall import index as recall_index
from viva_store.recall import knowledge as recall_knowledge
from viva_store.recall.query import ParsedQuery, conservative_tokens, parse_query
from viva_store.recall.ranking import STATE_MODES, RecallParams, combine, recency, relevance
from viva_store.recall.records import NO_FILTER, RecallFilter, RecallHit, RecallItem, RecallResult
from viva_store.recall.snippet import make_snippet, message_snippet
from viva_store.recall.sql import Plan, Statements, statements
from viva_store.recall.walk import (
    Candidate,
    Ceiling,
    best_per_session,
    bounded_ranked,
    newest_keyed,
    windows,
)
from viva_store.registry import reader
from viva_store.store import Context

ORDERS = ("rank", "newest")
KINDS = ("sessions", "skills", "principles", "knowledge")
MAX_LIMIT = 200
PENDING = "recall.pending"
BOUNDED = WINDOWS = True  # tests turn them off to compare with sorting every match
BOUNDED_PER_HIT = 4
BOUNDED_MIN = 40
"""The bounded walk reads ``max(limit * BOUNDED_PER_HIT, BOUNDED_MIN)`` matches in each
order first (it scores them exactly in Python, so it starts with fewer)."""
FETCH_PER_HIT = 16
FETCH_MIN = 160
"""A search first fetches ``max(limit * FETCH_PER_HIT, FETCH_MIN)`` rows (8× more when
they hold too few sessions): scoring every match is the cost, a few more of the best
are nearly free and save running it again when one session holds many of them."""


def _candidates(
    conn: Connection,
    plan: Plan,
    sql: Statements,
    params: dict[str, Any],
    limit: int,
    stamp: Hashable | None,
    top_rank: float = 1.0,
) -> list[Candidate]:
    first = max(limit * FETCH_PER_HIT, FETCH_MIN)
    if sql.keyed is not None:
        found = newest_keyed(conn, sql.keyed, params, limit, first)
    elif sql.windowed is not None and WINDOWS and (plan.order == "newest" or top_rank < 1.0):
        # Best first, windows pay only when the engine's rank is bounded well below 1
        # (one word, or any word): see fts_match.PG_RANK_MAX.
        ceiling = None
        if plan.order == "rank":
            boost = 1.0 + plan.params.state_boost if plan.narrows and plan.mode == "prefer" else 1.0
            k = plan.params.k_for(plan.dialect)
            ceiling = Ceiling(plan.params, k, top_rank, boost, params["now_t"])
        statements = (sql.windowed, sql.messages)
        scoped = plan.target is not None
        estimate = fts_match.estimated_matches(conn, sql.match, params)
        found = windows(conn, statements, params, limit, first, ceiling, stamp, scoped, estimate)
    elif sql.bounded is not None and BOUNDED:
        k = plan.params.k_for(plan.dialect)
        n = max(limit * BOUNDED_PER_HIT, BOUNDED_MIN)
        found = bounded_ranked(conn, sql.bounded, params, plan.params, k, limit, n, stamp)
    else:
        found = best_per_session(
            lambda k: list(conn.execute(sql.messages, {**params, "k": k})), limit, first, "message"
        )
    titles = best_per_session(
        lambda k: list(conn.execute(sql.titles, {**params, "k": k})), limit, first, "title"
    )
    merged: dict[str, Candidate] = {}
    for cand in sorted(found + titles, key=lambda c: c.key, reverse=True):
        merged.setdefault(cand.session_id, cand)
    return list(merged.values())[:limit]


def _hits(
    conn: Connection,
    plan: Plan,
    sql: Statements,
    params: dict[str, Any],
    terms: frozenset[str],
    now: datetime,
    chosen: list[Candidate],
) -> list[RecallHit]:
    if not chosen:
        return []
    sessions = {
        row.id: row for row in conn.execute(sql.provenance, {"ids": [c.session_id for c in chosen]})
    }
    ids = [c.message_id for c in chosen if c.message_id is not None]
    texts = {row.id: row for row in conn.execute(sql.texts, {"ids": ids})} if ids else {}
    p = plan.params
    hits = []
    for cand in chosen:
        row = sessions.get(cand.session_id)
        if row is None:
            continue
        at = as_utc(cand.at) if cand.at is not None else None
        age = (now - at).total_seconds() / 86400 if at is not None else None
        if at is None and row.started_at is not None:  # shown, but no recency (as ranked)
            at = as_utc(row.started_at)
        rec = recency(age, p.half_life_days)
        imp = float(row.importance or 0.0)
        in_proj = bool(row.in_project) if plan.narrows else None
        # Newest first orders by time and never asks the engine for a rank (it would
        # cost a pass over every matching word's postings): no relevance, no score.
        rel = relevance(cand.rank, p.k_for(plan.dialect)) if cand.rank is not None else None
        score = combine(rel, rec, imp, p) if rel is not None else None
        if score is not None and in_proj and plan.mode == "prefer":
            score *= 1.0 + p.state_boost
        message = texts.get(cand.message_id) if cand.message_id is not None else None
        snippet = (
            message_snippet(
                message.text,
                message.tool,
                message.tool_input,
                message.tool_args,
                message.tool_result,
                terms,
            )
            if message
            else make_snippet(row.title or "", terms)
        )
        hits.append(
            RecallHit(
                session_id=cand.session_id,
                harness=row.harness,
                at=at,
                score=round(score, 6) if score is not None else None,
                snippet=snippet.text,
                kind=cand.kind,
                seq=message.seq if message else None,
                title=row.title,
                member=row.member if row.status == "attributed" else None,
                status=row.status or "unattributed",
                project=row.project,
                factors={
                    "relevance": round(rel, 6) if rel is not None else None,
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
    ctx: Context,
    conn: Connection,
    member: str | None,
    order: str,
    state: str | None,
    flt: RecallFilter = NO_FILTER,
) -> Plan:
    params = RecallParams.from_config(ctx.store.config.section("recall"))
    target = ctx.actor.member if not ctx.actor.is_owner else member
    mode = state or (params.state_mode if not ctx.actor.is_owner else "off")
    project: str | None = None
    prefixes: tuple[str, ...] = ()
    if mode != "off" and target is not None:
        project = current_state(conn, target).project
        if project is not None:
            prefixes = entry_rules(ctx).prefixes_of(project)
    return Plan(
        dialect=conn.dialect.name,
        params=params,
        actor=ctx.actor,
        target=target,
        order=order,
        mode=mode,
        project=project,
        prefixes=prefixes,
        by_harness=flt.harness is not None,
        by_project=flt.project is not None,
        by_since=flt.since is not None,
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
    kinds: tuple[str, ...] = KINDS,
    flt: RecallFilter = NO_FILTER,
) -> RecallResult:
    """Search experience for ``query``; the best hit per session, best first.

    ``order``: ``rank`` (the three-factor score) or ``newest`` (most recent
    hit first; the Timeline's search). ``state``: ``prefer`` / ``restrict`` /
    ``off`` — how the engagement state's project narrows the search
    (default: ``[recall] state_mode`` for a member, off for the owner).
    ``kinds``: what to search besides sessions — ``skills`` (forgotten ones
    too), ``principles`` (superseded ones too) and ``knowledge`` (retracted ones too), in
    ``RecallResult.items``. ``flt`` narrows sessions by harness, project and time (skills,
    principles and knowledge, which have neither, are then left out). A query over
    ``[recall] max_query_chars`` is truncated; one with no word or number in it is
    :class:`InvalidInput`.
    """
    _validate(ctx, member, limit, order, state)
    unknown = set(kinds) - set(KINDS)
    if unknown or not kinds:
        raise InvalidInput(f"kinds must be among {', '.join(KINDS)}")
    if flt != NO_FILTER:
        kinds = ("sessions",)
    params = RecallParams.from_config(ctx.store.config.section("recall"))
    parsed = parse_query(query, params.max_query_chars)

    def work(conn: Connection, check: bool = True, stale: bool = False) -> RecallResult | None:
        stamp = changes.stamp(conn)
        if check and changes.remembered(conn, PENDING, lambda: recall_index.pending(conn), stamp):
            return None  # index what is new first (a write), then search
        fts.prepare(conn)
        plan = _plan(ctx, conn, member, order, state, flt)
        notes: list[str] = []
        if stale:
            notes.append(
                "the store is read-only: what was recovered since its last search is not indexed"
            )
        if parsed.truncated:
            notes.append(f"query truncated to {params.max_query_chars} characters")
        if parsed.dropped_tokens:
            notes.append(f"only the first {len(parsed.tokens)} distinct words were searched")
        now, matched = ctx.store.now(), "all"
        hits = _search(conn, plan, parsed, now, False, limit, notes, kinds, stamp, flt)
        items = _knowledge(ctx, conn, plan, parsed, now, False, limit, kinds, stamp)
        if not hits and not items and len(parsed.tokens) > 1:
            matched = "any"
            hits = _search(conn, plan, parsed, now, True, limit, notes, kinds, stamp, flt)
            items = _knowledge(ctx, conn, plan, parsed, now, True, limit, kinds, stamp)
        return RecallResult(
            hits=tuple(hits),
            query=parsed.text,
            tokens=parsed.tokens,
            truncated=parsed.truncated,
            matched=matched,
            order=order,
            member=plan.target,
            state_mode=plan.mode,
            state_project=plan.project if plan.narrows else None,
            notes=tuple(notes),
            items=tuple(items),
        )

    result = ctx.store.read(work)
    if result is None and ctx.store.read_only:
        result = ctx.store.read(lambda c: work(c, check=False, stale=True))
    elif result is None:
        recall_index.refresh(ctx)
        result = ctx.store.read(lambda c: work(c, check=False))
    assert result is not None
    return result


def _knowledge(
    ctx: Context,
    conn: Connection,
    plan: Plan,
    parsed: ParsedQuery,
    now: datetime,
    any_token: bool,
    limit: int,
    kinds: tuple[str, ...],
    stamp: Hashable | None = None,
) -> list[RecallItem]:
    """Matching skills, principles and knowledge items (forgotten, superseded and retracted
    ones too), best first."""
    found: list[RecallItem] = []
    args = (ctx, conn, parsed, plan.target, any_token, plan.params, now, stamp)
    if "skills" in kinds:
        found += recall_knowledge.skills(*args)
    if "principles" in kinds:
        found += recall_knowledge.principles(*args)
    if "knowledge" in kinds:
        found += recall_knowledge.knowledge_items(*args)
    return sorted(found, key=lambda i: (-i.score, i.kind, i.id))[:limit]


def _search(
    conn: Connection,
    plan: Plan,
    parsed: ParsedQuery,
    now: datetime,
    any_token: bool,
    limit: int,
    notes: list[str],
    kinds: tuple[str, ...] = KINDS,
    stamp: Hashable | None = None,
    flt: RecallFilter = NO_FILTER,
) -> list[RecallHit]:
    """Candidates then hits; a token the engine's tokenizer would split is split first."""
    if "sessions" not in kinds:
        return []
    tokens = parsed.tokens
    for attempt in (0, 1):
        sql = statements(plan, any_token, len(tokens))
        params = {
            **fts_match.match_params(plan.dialect, tokens, any_token),
            **fts_match.now_params(plan.dialect, now),
            **(flt.params(plan.dialect) if plan.filtered else {}),
        }
        try:
            top = fts_match.rank_ceiling(conn, tokens, any_token) if plan.order == "rank" else 1.0
            chosen = _candidates(conn, plan, sql, params, limit, stamp, top)
            return _hits(conn, plan, sql, params, parsed.terms, now, chosen)
        except OperationalError as exc:
            if attempt or plan.dialect != "sqlite" or not fts_match.is_query_error(exc):
                raise
            tokens = conservative_tokens(tokens)
            if not tokens:
                notes.append("no searchable word left after splitting unusual characters")
                return []
    raise AssertionError("unreachable")
