"""The statements one recall search runs, built once per shape and cached.

A :class:`Plan` names everything a statement bakes in: the engine, the
ranking parameters, the actor and the member searched (the scope), the order
and the engagement-state narrowing. Everything else — the query's tokens,
"now", how many rows, which ids — is a bound parameter supplied at execution.
The cache is keyed by the whole plan, so a statement built for one actor's
scope is never reused for another.

The scope is always part of the statement: ``attribution`` joined on its
indexed ``member`` column (:func:`viva_store.access.member_scope`), never a
filter applied to results afterwards.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, cast

from sqlalchemy import (
    DateTime,
    Integer,
    Select,
    String,
    bindparam,
    case,
    func,
    literal,
    or_,
    select,
    union,
)
from sqlalchemy.sql.elements import ColumnElement

from viva_store.access import Actor, member_scope
from viva_store.db.schema import ATTRIBUTION, MESSAGE, RECALL_SESSION, SESSION
from viva_store.recall import fts, fts_match
from viva_store.recall.ranking import RecallParams


@dataclass(frozen=True, slots=True)
class Plan:
    """What shapes a search's statements (hashable: the statement cache's key)."""

    dialect: str
    params: RecallParams
    actor: Actor
    target: str | None  # whose experience; None: everything (the owner)
    order: str  # rank | newest
    mode: str  # prefer | restrict | off
    project: str | None  # the engagement state's project, when it narrows
    prefixes: tuple[str, ...] = ()
    by_harness: bool = False  # only the harness ``f_harness``
    by_project: bool = False  # only sessions whose project or cwd is ``f_project``
    by_since: bool = False  # only hits at or after ``f_since`` (``f_since_us`` on SQLite)

    @property
    def narrows(self) -> bool:
        return self.project is not None and self.mode != "off"

    @property
    def filtered(self) -> bool:
        """Whether the caller's filters (harness, project, since) narrow the search."""
        return self.by_harness or self.by_project or self.by_since


@dataclass(frozen=True, slots=True)
class Statements:
    """Every statement of one search shape. Parameters: see the module docstring."""

    messages: Select[Any]  # best (or newest) matching messages: id, session_id, at, key
    keyed: Select[Any] | None  # SQLite, newest first: the first ``k`` by time key, + tkey
    windowed: Select[Any] | None  # PostgreSQL: ``messages`` at or after ``lo``
    bounded: tuple[Select[Any], ...] | None  # SQLite, everything best first: see _bounded
    titles: Select[Any]  # best (or newest) matching titles: session_id, at, key
    provenance: Select[Any]  # the sessions ``ids`` (in scope) with what a hit shows
    texts: Select[Any]  # id, seq, text and tool columns of the messages ``ids``
    match: fts_match.MessageMatch


def _escape_like(value: str) -> str:
    return value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _in_project(plan: Plan) -> ColumnElement[bool]:
    """Sessions of the state's project: by name, by cwd, or under a configured prefix."""
    project = plan.project or ""
    conds: list[ColumnElement[bool]] = [
        SESSION.c.project == project,
        SESSION.c.cwd == project,
        SESSION.c.cwd.like("%/" + _escape_like(project), escape="\\"),
    ]
    for prefix in plan.prefixes:
        base = prefix.rstrip("/")
        conds += [SESSION.c.cwd == base, SESSION.c.cwd.like(_escape_like(base) + "/%", escape="\\")]
    return or_(*conds)


def _scoped(query: Select[Any], plan: Plan, session_col: Any, drive: bool = True) -> Select[Any]:
    """Restrict to what the caller may see and asked for: inside the query, on an index.

    ``drive=False`` keeps the planner from starting at ``attribution.member`` (the
    session's attribution is then reached through its primary key, row by row).
    """
    if plan.target is None:
        return query
    member = ATTRIBUTION.c.member if drive else func.coalesce(ATTRIBUTION.c.member, "")
    return query.join(ATTRIBUTION, ATTRIBUTION.c.session_id == session_col).where(
        ATTRIBUTION.c.status == "attributed",
        member == plan.target,
        member_scope(plan.actor, member),
    )


def _score(plan: Plan, rank: Any, age: Any, importance: Any, boost: Any) -> ColumnElement[float]:
    """The three-factor score of :mod:`viva_store.recall.ranking`, in SQL."""
    p = plan.params
    k = p.k_for(plan.dialect)
    rel = literal(1.0) - k / (rank + k)  # = rank / (rank + k), with the rank read once
    rec = fts_match.recency(plan.dialect, age, p.half_life_days)
    imp = func.coalesce(importance, 0.0)
    total = p.weight_relevance * rel + p.weight_recency * rec + p.weight_importance * imp
    score: ColumnElement[float] = total / p.weight_sum * boost
    return score


def _boost(plan: Plan) -> ColumnElement[float]:
    if plan.narrows and plan.mode == "prefer":
        return case((_in_project(plan), 1.0 + plan.params.state_boost), else_=1.0)
    return literal(1.0)


def _ordered(
    query: Select[Any], plan: Plan, rank: Any, id_col: str, age_of: Callable[[Any], Any]
) -> Select[Any]:
    """Best first: the engine's rank computed once per match (behind a fence), then scored.

    Newest first: by time, and no rank at all (it is fetched for the shown hits only).
    ``age_of``: the age in days of a selected ``at``.
    """
    if plan.order == "rank":
        inner = fts_match.fence(
            plan.dialect,
            query.add_columns(
                rank.label("rank"),
                RECALL_SESSION.c.importance.label("imp"),
                _boost(plan).label("boost"),
            ),
        ).subquery()
        key = _score(plan, inner.c.rank, age_of(inner.c.at), inner.c.imp, inner.c.boost)
        key = key.label("key")
        tie = inner.c[id_col]
        outer = select(inner.c[id_col], inner.c.session_id, inner.c.at, inner.c.rank, key)
        return outer.order_by(key.desc(), tie.desc()).limit(bindparam("k"))
    at = query.selected_columns.at
    newest = at.desc() if plan.dialect == "sqlite" else at.desc().nulls_last()
    tie = query.selected_columns[id_col]
    query = query.add_columns(at.label("key"), literal(None).label("rank"))
    return query.order_by(newest, tie.desc()).limit(bindparam("k"))


def _narrowed(query: Select[Any], plan: Plan, session_col: Any, join: bool) -> Select[Any]:
    """The engagement state's narrowing and the caller's harness and project filters."""
    if not (plan.narrows or plan.by_harness or plan.by_project):
        return query
    if join:
        query = query.join(SESSION, SESSION.c.id == session_col)
    if plan.narrows and plan.mode == "restrict":
        query = query.where(_in_project(plan))
    if plan.by_harness:
        query = query.where(SESSION.c.harness == bindparam("f_harness", type_=String))
    if plan.by_project:
        project = bindparam("f_project", type_=String)
        query = query.where(or_(SESSION.c.project == project, SESSION.c.cwd == project))
    return query


def _since(at: Any, micro: bool) -> ColumnElement[bool]:
    """A hit's time at or after ``f_since``; ``micro``: ``at`` is SQLite's index time, in
    microseconds (``f_since_us``)."""
    if micro:
        return cast(ColumnElement[bool], at >= bindparam("f_since_us", type_=Integer))
    return cast(ColumnElement[bool], at >= bindparam("f_since", type_=SESSION.c.started_at.type))


def _matching(plan: Plan, match: fts_match.MessageMatch, drive: bool = True) -> Select[Any]:
    """The matching messages in the caller's scope (and the state's narrowing)."""
    query: Select[Any] = select(
        match.message_id.label("id"), match.session_id.label("session_id"), match.at.label("at")
    )
    query = query.select_from(match.source).where(match.condition)
    if plan.by_since:
        query = query.where(_since(match.at, micro=plan.dialect == "sqlite"))
    query = _scoped(query, plan, match.session_id, drive)
    return _narrowed(query, plan, match.session_id, join=True)


def _messages(plan: Plan, match: fts_match.MessageMatch) -> Select[Any]:
    query = _matching(plan, match)
    if plan.order == "rank" and not match.importance_joined:
        query = query.outerjoin(RECALL_SESSION, RECALL_SESSION.c.session_id == match.session_id)
    return _ordered(query, plan, match.rank, "id", match.age_days)


def _keyed(plan: Plan, match: fts_match.MessageMatch) -> Select[Any] | None:
    """Newest first on SQLite: the index's first ``k`` hits from its highest (newest) key.

    The index walks its rowids downwards and stops at ``k``: nothing is sorted.
    """
    if match.time_key is None or plan.order != "newest":
        return None
    query = _matching(plan, match, drive=False).add_columns(match.time_key.label("tkey"))
    return query.order_by(match.time_key.desc()).limit(bindparam("k"))


def _windowed(plan: Plan, match: fts_match.MessageMatch) -> Select[Any] | None:
    """PostgreSQL: ``messages`` restricted to the matches at or after ``lo``.

    The GIN index gives matches in no order; with a lower bound on time the
    planner combines it with ``ix_message_at`` (a bitmap AND) and reads only
    the window's matches, not every match (:mod:`viva_store.recall.walk`).
    """
    if match.time_key is not None:
        return None
    since = bindparam("lo", type_=DateTime(timezone=True))
    query = _matching(plan, match).where(match.at >= since)
    if plan.order == "rank" and not match.importance_joined:
        query = query.outerjoin(RECALL_SESSION, RECALL_SESSION.c.session_id == match.session_id)
    return _ordered(query, plan, match.rank, "id", match.age_days)


def _bounded(
    plan: Plan, match: fts_match.MessageMatch, single: bool
) -> tuple[Select[Any], ...] | None:
    """Best first over everything on SQLite (:func:`recall_walk.bounded_ranked`).

    The first ``k`` matches by rank and the first ``kt`` by time key, with what
    scoring needs: ``tkey``, ``rank``, ``id``, ``session_id``, ``at``, ``imp``.
    One word: two statements — FTS5 sorts by its own ``rank`` and walks its
    rowids down. Several words: one statement reading every match once (one
    FTS5 cursor: ``bm25``'s set-up, which counts each word's rows, is paid
    once, not twice), with ``n_all``, how many matched.
    """
    if match.time_key is None or plan.order != "rank" or plan.target is not None:
        return None
    if plan.narrows or plan.filtered:
        return None
    key = match.time_key.label("tkey")
    if single:
        hidden = fts_match.index_rank(plan.dialect)
        by_rank = select(key, (-hidden).label("rank")).where(match.condition)
        by_rank = by_rank.order_by(hidden).limit(bindparam("k"))
        by_time = select(key, match.rank.label("rank")).where(match.condition)
        by_time = by_time.order_by(match.time_key.desc()).limit(bindparam("kt"))
        return _mapped(by_rank.subquery()), _mapped(by_time.subquery())
    every = select(key, match.rank.label("rank")).where(match.condition).cte("recall_matches")
    if fts_match.materializes_ctes(plan.dialect):
        every = every.prefix_with("MATERIALIZED")
    top = select(every).order_by(every.c.rank.desc(), every.c.tkey.desc())
    newest = select(every).order_by(every.c.tkey.desc())
    both = union(
        select(top.limit(bindparam("k")).subquery()),
        select(newest.limit(bindparam("kt")).subquery()),
    ).subquery()
    count = select(func.count()).select_from(every).scalar_subquery().label("n_all")
    return (_mapped(both).add_columns(count),)


def _mapped(found: Any) -> Select[Any]:
    K = fts.KEY_MAP
    return select(
        found.c.tkey,
        found.c.rank,
        K.c.message_id.label("id"),
        RECALL_SESSION.c.session_id,
        K.c.at_us.label("at"),
        RECALL_SESSION.c.importance.label("imp"),
    ).select_from(
        found.join(K, K.c.key == found.c.tkey).join(
            RECALL_SESSION, RECALL_SESSION.c.key == K.c.session_key
        )
    )


def _titles(plan: Plan, match: fts_match.TitleMatch) -> Select[Any]:
    at = func.coalesce(SESSION.c.ended_at, SESSION.c.started_at)
    query: Select[Any] = select(
        SESSION.c.id.label("id"), SESSION.c.id.label("session_id"), at.label("at")
    )
    query = query.select_from(match.source).where(match.condition)
    if plan.by_since:
        query = query.where(_since(at, micro=False))
    query = _narrowed(_scoped(query, plan, SESSION.c.id), plan, SESSION.c.id, join=False)
    return _ordered(query, plan, match.rank, "id", lambda at: fts_match.age_days(plan.dialect, at))


def _provenance(plan: Plan) -> Select[Any]:
    in_project = _in_project(plan) if plan.narrows else literal(False)
    query = select(
        SESSION.c.id,
        SESSION.c.harness,
        SESSION.c.title,
        SESSION.c.project,
        SESSION.c.started_at,
        ATTRIBUTION.c.status,
        ATTRIBUTION.c.member,
        RECALL_SESSION.c.importance,
        RECALL_SESSION.c.reason,
        case((in_project, True), else_=False).label("in_project"),
    ).select_from(
        SESSION.outerjoin(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id).outerjoin(
            RECALL_SESSION, RECALL_SESSION.c.session_id == SESSION.c.id
        )
    )
    query = query.where(SESSION.c.id.in_(bindparam("ids", expanding=True)))
    if plan.target is not None:  # the same scope again: provenance never widens it
        query = query.where(
            ATTRIBUTION.c.status == "attributed",
            ATTRIBUTION.c.member == plan.target,
            member_scope(plan.actor, ATTRIBUTION.c.member),
        )
    return query


@lru_cache(maxsize=128)
def statements(plan: Plan, any_token: bool, n_tokens: int) -> Statements:
    """The statements of one search shape (``n_tokens`` matters only to PostgreSQL's any)."""
    shape = n_tokens if plan.dialect != "sqlite" and any_token else 0
    msg = fts_match.MessageMatch(plan.dialect, shape, any_token)
    ttl = fts_match.TitleMatch(plan.dialect, shape, any_token)
    ids: Any = bindparam("ids", expanding=True)
    return Statements(
        messages=_messages(plan, msg),
        keyed=_keyed(plan, msg),
        windowed=_windowed(plan, msg),
        bounded=_bounded(plan, msg, n_tokens == 1),
        titles=_titles(plan, ttl),
        provenance=_provenance(plan),
        texts=select(
            *(MESSAGE.c[name] for name in ("id", "seq", "at", "text", "tool", "tool_input")),
            MESSAGE.c.tool_args,
            MESSAGE.c.tool_result,
        ).where(MESSAGE.c.id.in_(ids)),
        match=msg,
    )
