"""ENGINE-SPECIFIC ADAPTER: how a search matches and ranks, on SQLite (FTS5) and PostgreSQL.

The pieces :mod:`viva_store.recall.sql` composes into one statement per search: the
match of the query's tokens (messages and titles), the engine's rank as a non-negative
relevance, the bounds a ranked walk stops by, and recency. The index itself and its
upkeep are :mod:`viva_store.recall.fts`.
"""

from __future__ import annotations

import math
from typing import Any

from sqlalchemy import (
    Connection,
    DateTime,
    Float,
    Integer,
    Select,
    String,
    bindparam,
    cast,
    func,
    literal_column,
    select,
    type_coerce,
)
from sqlalchemy.exc import OperationalError
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.expression import FromClause

from viva_store.db.schema import MESSAGE, RECALL_SESSION, SESSION
from viva_store.recall.fts import (
    KEY_MAP,
    MESSAGE_FTS,
    MESSAGE_INDEX,
    PG_CONFIG,
    TITLE_FTS,
    TITLE_INDEX,
    document,
)
from viva_store.recall.query import fts5_expression

LN2 = math.log(2)
PG_DOCUMENT: ColumnElement[Any] = literal_column(f"({document('message.')})")
"""PostgreSQL: what a message's GIN index is over (migration 0018), as the query must say it."""


def is_query_error(exc: OperationalError) -> bool:
    """An FTS5 complaint about a query (e.g. a token its tokenizer splits in two)."""
    message = str(exc.orig).lower()
    return "fts5" in message or "phrase" in message or "syntax" in message


def _pg_query(n_tokens: int, any_token: bool) -> ColumnElement[Any]:
    if not any_token:
        return func.plainto_tsquery(literal_column(PG_CONFIG), bindparam("q_all", type_=String))
    parts = [
        func.plainto_tsquery(literal_column(PG_CONFIG), bindparam(f"q_{n}", type_=String))
        for n in range(n_tokens)
    ]
    query: ColumnElement[Any] = parts[0]
    for part in parts[1:]:
        query = query.op("||")(part)
    return query


def match_params(dialect: str, tokens: tuple[str, ...], any_token: bool) -> dict[str, Any]:
    """The values of a match's parameters (the statements themselves are cached per shape)."""
    if dialect == "sqlite":
        expression = fts5_expression(tokens, any_token)
        return {"fts_q": expression, "fts_t": expression}
    if not any_token:
        return {"q_all": " ".join(tokens)}
    return {f"q_{n}": token for n, token in enumerate(tokens)}


def now_params(dialect: str, now: Any) -> dict[str, Any]:
    """The values of the ``now`` parameters of :func:`age_days` and :class:`MessageMatch`."""
    if dialect == "sqlite":
        now_us = round(now.timestamp() * 1_000_000)
        return {"now_s": now.strftime("%Y-%m-%d %H:%M:%S.%f"), "now_us": now_us}
    return {"now_t": now}


class MessageMatch:
    """Messages matching the query's tokens: what to select from, the condition, the rank,
    and the columns of a match — its message id, session id, time and age in days.

    SQLite: the index joined to its time-key map and ``recall_session`` (no
    message row is read; ``at`` is the time in microseconds and ``time_key``
    the index's rowid, in time order). PostgreSQL: ``message`` itself.
    The tokens are parameters (see :func:`match_params`); on PostgreSQL an
    any-token match has one parameter per token, so ``n_tokens`` shapes it.
    """

    def __init__(self, dialect: str, n_tokens: int, any_token: bool) -> None:
        self.dialect = dialect
        self.time_key: ColumnElement[Any] | None = None
        if dialect == "sqlite":
            self.source: FromClause = MESSAGE_INDEX.join(
                KEY_MAP, KEY_MAP.c.key == MESSAGE_INDEX.c.rowid
            ).join(RECALL_SESSION, RECALL_SESSION.c.key == KEY_MAP.c.session_key)
            self.condition: ColumnElement[bool] = MESSAGE_INDEX.c[MESSAGE_FTS].op("MATCH")(
                bindparam("fts_q", type_=String)
            )
            self.rank: ColumnElement[float] = -func.bm25(literal_column(MESSAGE_FTS))
            self.message_id: ColumnElement[Any] = KEY_MAP.c.message_id
            self.session_id: ColumnElement[Any] = RECALL_SESSION.c.session_id
            self.at: ColumnElement[Any] = KEY_MAP.c.at_us
            self.time_key = MESSAGE_INDEX.c.rowid
            self.importance_joined = True
        else:
            vector = func.to_tsvector(literal_column(PG_CONFIG), PG_DOCUMENT)
            query = _pg_query(n_tokens, any_token)
            self.source = MESSAGE
            self.condition = vector.op("@@")(query)
            self.rank = cast(func.ts_rank(vector, query), Float)
            self.message_id = MESSAGE.c.id
            self.session_id = MESSAGE.c.session_id
            self.at = MESSAGE.c.at
            self.importance_joined = False

    def age_days(self, at: ColumnElement[Any]) -> ColumnElement[float]:
        """Days from a match's ``at`` (as selected) to now."""
        if self.dialect == "sqlite":
            days = (bindparam("now_us", type_=Integer) - at) / 86_400_000_000.0
            return type_coerce(days, Float)
        return age_days(self.dialect, at)


class TitleMatch:
    """Sessions whose title matches some tokens (joined to ``recall_session`` and ``session``)."""

    def __init__(self, dialect: str, n_tokens: int, any_token: bool) -> None:
        if dialect == "sqlite":
            self.source: FromClause = TITLE_INDEX.join(
                RECALL_SESSION, RECALL_SESSION.c.key == TITLE_INDEX.c.rowid
            ).join(SESSION, SESSION.c.id == RECALL_SESSION.c.session_id)
            self.condition: ColumnElement[bool] = TITLE_INDEX.c[TITLE_FTS].op("MATCH")(
                bindparam("fts_t", type_=String)
            )
            self.rank: ColumnElement[float] = -func.bm25(literal_column(TITLE_FTS))
        else:
            vector = func.to_tsvector(literal_column(PG_CONFIG), func.coalesce(SESSION.c.title, ""))
            query = _pg_query(n_tokens, any_token)
            self.source = SESSION.outerjoin(
                RECALL_SESSION, RECALL_SESSION.c.session_id == SESSION.c.id
            )
            self.condition = vector.op("@@")(query)
            self.rank = cast(func.ts_rank(vector, query), Float)


def index_rank(dialect: str) -> ColumnElement[float]:
    """SQLite: the message index's own ``rank`` column — ``bm25()``, lower is better —
    which FTS5 sorts by itself when a query orders by it."""
    assert dialect == "sqlite"
    return MESSAGE_INDEX.c.rank


def materializes_ctes(dialect: str) -> bool:
    """Whether ``AS MATERIALIZED`` may be asked of a CTE (SQLite 3.35+, PostgreSQL 12+)."""
    if dialect != "sqlite":
        return True
    import sqlite3

    return sqlite3.sqlite_version_info >= (3, 35)


PG_RANK_MAX = 0.1000001
"""``ts_rank`` (default weights, every lexeme of weight D = 0.1) of a query whose top
operator is not AND: at most 0.1 (PostgreSQL's ``calc_rank_or`` sums ``0.1 / j²`` over
a lexeme's occurrences and divides by π²/6, then averages over the query's lexemes);
a little more for float4. An AND of several lexemes (``calc_rank_and``) stays below 1."""


def rank_ceiling(conn: Connection, tokens: tuple[str, ...], any_token: bool) -> float:
    """The highest rank the engine can give a match of this query (PostgreSQL; else 1)."""
    if conn.dialect.name != "postgresql":
        return 1.0
    if any_token and len(tokens) > 1:  # an OR at the top: calc_rank_or
        return PG_RANK_MAX
    nodes = conn.execute(
        select(func.numnode(func.plainto_tsquery(literal_column(PG_CONFIG), " ".join(tokens))))
    ).scalar()
    return PG_RANK_MAX if nodes == 1 else 1.0


def estimated_matches(
    conn: Connection, match: MessageMatch, params: dict[str, Any]
) -> float | None:
    """PostgreSQL: the planner's estimate of how many messages match, from the statistics
    ANALYZE keeps on the indexed expression (None elsewhere). It costs a plan, not a scan:
    a rare query is then answered by one read of its matches instead of a time window
    first, which would read every word's index entries once more."""
    if conn.dialect.name != "postgresql":
        return None
    query: Select[Any] = select(literal_column("1")).select_from(match.source)
    compiled = query.where(match.condition).compile(dialect=conn.dialect)
    plan: Any = conn.exec_driver_sql(
        f"EXPLAIN (FORMAT JSON) {compiled}", compiled.construct_params(params)
    ).scalar()
    return float(plan[0]["Plan"]["Plan Rows"])


def age_days(dialect: str, at: ColumnElement[Any]) -> ColumnElement[float]:
    """Days from ``at`` to now (a parameter: :func:`now_params`)."""
    if dialect == "sqlite":
        days = func.julianday(bindparam("now_s", type_=String)) - func.julianday(at)
        return type_coerce(days, Float)
    now = bindparam("now_t", type_=DateTime(timezone=True))
    return type_coerce(func.extract("epoch", now - at) / 86400.0, Float)


def fence(dialect: str, query: Any) -> Any:
    """Keep ``query`` a separate step when used as a subquery, so its columns (the rank)
    are computed once per row rather than re-evaluated wherever the outer query uses them."""
    return query.limit(-1) if dialect == "sqlite" else query.offset(0)


def recency(dialect: str, age: ColumnElement[float], half_life_days: float) -> ColumnElement[float]:
    """``min(1, 2^(-age/half_life))``; 0 when the time is unknown."""
    decay = func.coalesce(func.exp(-LN2 * age / half_life_days), 0.0)
    return func.min(decay, 1.0) if dialect == "sqlite" else func.least(decay, 1.0)
