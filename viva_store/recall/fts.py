"""ENGINE-SPECIFIC ADAPTER: full-text search SQL for SQLite (FTS5) and PostgreSQL (tsvector).

Everything recall needs from an engine's full-text machinery is here and
nowhere else; :mod:`viva_store.recall.sql` composes these pieces with
portable SQLAlchemy (scope joins, recency, importance).

SQLite
    ``recall_message_fts``: FTS5, *contentless* (``content=''``), ``detail=none``
    — no stored copy of the text and no token positions, so the index stays a
    fraction of the text. Its rowid is a time key, mapped to the message by
    ``recall_message`` (:mod:`viva_store.recall.fts_keys`, migration 0008), so
    newest-first searches read the first hits and stop. It is filled in bulk
    after an import (``INSERT … SELECT`` of every message past a watermark,
    chunked), never by a trigger row by row; ``message`` is append-only, so
    nothing indexed ever has to be removed. Empty texts (tool calls, tool
    results) are not indexed.
    ``recall_title_fts``: FTS5 over ``recall_session.title`` (rowid =
    ``recall_session.key``), changed row by row when a title changes.
    Indexing is done by :mod:`viva_store.recall.index`, lazily: the
    first search after an import indexes everything new in bulk, later ones
    whatever arrived since (a watermark; ``message`` ids commit in order).
PostgreSQL
    GIN indexes on ``to_tsvector('simple', message.text)`` and
    ``to_tsvector('simple', coalesce(session.title, ''))``: expression
    indexes the server keeps current itself, so nothing is ever pending.
PostgreSQL
    ``ix_message_at`` (migration 0007): newest-first searches combine it with
    the match, one time window at a time, newest first (SQLite's time key
    replaced it there; migration 0008 drops it).

Neither engine's index carries the member: the scope is a join on
``attribution`` (indexed) inside the query, so re-classifying a session
changes what a member finds without touching an index.

Relevance is the engine's rank as a non-negative number: ``-bm25()`` on
SQLite, ``ts_rank()`` on PostgreSQL. Tokens arrive already split
(:mod:`viva_store.recall.query`): FTS5 gets each one as a quoted string,
PostgreSQL each one as a bound parameter to ``plainto_tsquery`` — user text
never reaches either engine's query syntax.
"""

from __future__ import annotations

import math
from functools import lru_cache
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
    column,
    func,
    literal_column,
    select,
    table,
    text,
    type_coerce,
)
from sqlalchemy.exc import OperationalError
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.expression import FromClause

from viva_store.db.schema import MESSAGE, RECALL_SESSION, SESSION
from viva_store.recall.query import fts5_expression

MESSAGE_FTS = "recall_message_fts"
TITLE_FTS = "recall_title_fts"
TOKENIZE = "unicode61 remove_diacritics 2"
PG_CONFIG = "'simple'::regconfig"
_LN2 = math.log(2)

_MSG = table(MESSAGE_FTS, column("rowid", Integer), column(MESSAGE_FTS), column("rank", Float))
_TTL = table(TITLE_FTS, column("rowid", Integer), column(TITLE_FTS))
KEY_MAP = _KEYS = table(
    "recall_message",
    column("key", Integer),
    column("message_id", Integer),
    column("session_key", Integer),
    column("at_us", Integer),
)


def install(conn: Connection) -> None:
    """The full-text objects of migration 0006. Frozen: a later change is a new function."""
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(
            f"CREATE VIRTUAL TABLE {MESSAGE_FTS} USING fts5(text, content='message', "
            f"content_rowid='id', detail=none, tokenize='{TOKENIZE}')"
        )
        conn.exec_driver_sql(
            f"CREATE VIRTUAL TABLE {TITLE_FTS} USING fts5(title, content='recall_session', "
            f"content_rowid='key', detail=none, tokenize='{TOKENIZE}')"
        )
    elif conn.dialect.name == "postgresql":
        conn.exec_driver_sql(
            f"CREATE INDEX ix_message_text_fts ON message "
            f"USING gin (to_tsvector({PG_CONFIG}, text))"
        )
        conn.exec_driver_sql(
            f"CREATE INDEX ix_session_title_fts ON session "
            f"USING gin (to_tsvector({PG_CONFIG}, coalesce(title, '')))"
        )
    else:  # pragma: no cover - only SQLite and PostgreSQL are supported
        raise NotImplementedError(f"full-text search on {conn.dialect.name}")


# --- keeping the indexes current -------------------------------------------------------


def needs_indexing(conn: Connection) -> bool:
    """Whether messages must be fed to the index explicitly (SQLite) or not (PostgreSQL)."""
    return conn.dialect.name == "sqlite"


def hold_message_writes(conn: Connection) -> None:
    """Make ``max(message.id)`` a safe watermark for the rest of this transaction.

    SQLite writes are serialized (``BEGIN IMMEDIATE``), so ids are committed in
    order already. PostgreSQL hands out ids before commit; a SHARE lock waits
    for transactions still inserting messages and holds new ones off until we
    commit, so no message below the watermark can appear later.
    """
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("LOCK TABLE message IN SHARE MODE")


def index_messages(conn: Connection, after: int, upto: int) -> int:
    """Index the non-empty messages with ``after < id <= upto``; returns how many."""
    if conn.dialect.name != "sqlite":
        return 0
    from viva_store.recall import fts_keys  # it builds on this module's names

    return fts_keys.index_messages(conn, after, upto)


def index_new_titles(conn: Connection) -> int:
    """Index, in one statement, the titles of sessions not indexed yet (``title`` still NULL).

    Call before copying the titles into ``recall_session``.
    """
    if conn.dialect.name != "sqlite":
        return 0
    result = conn.exec_driver_sql(
        f"INSERT INTO {TITLE_FTS}(rowid, title) SELECT rs.key, s.title FROM recall_session rs "
        "JOIN session s ON s.id = rs.session_id "
        "WHERE rs.title IS NULL AND s.title IS NOT NULL AND s.title != ''"
    )
    return int(result.rowcount or 0)


def retitle(conn: Connection, key: int, old: str | None, new: str | None) -> None:
    """Replace a session's title in the title index (call before storing ``new``)."""
    if conn.dialect.name != "sqlite":
        return
    if old:
        conn.execute(
            text(f"INSERT INTO {TITLE_FTS}({TITLE_FTS}, rowid, title) VALUES ('delete', :k, :t)"),
            {"k": key, "t": old},
        )
    if new:
        conn.execute(
            text(f"INSERT INTO {TITLE_FTS}(rowid, title) VALUES (:k, :t)"), {"k": key, "t": new}
        )


def clear(conn: Connection) -> None:
    """Empty the indexes SQLite is fed explicitly (before a rebuild).

    Dropped and created again from their own stored definition rather than emptied
    with FTS5's ``delete-all``: refilling an emptied index of a large store measured
    twice as slow as filling a new one (its pages end up scattered over the file).
    """
    if conn.dialect.name != "sqlite":
        return
    conn.exec_driver_sql("DELETE FROM recall_message")
    for name in (MESSAGE_FTS, TITLE_FTS):
        ddl = conn.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)
        ).scalar()
        conn.exec_driver_sql(f"DROP TABLE {name}")
        conn.exec_driver_sql(str(ddl))


def index_bytes(conn: Connection) -> int | None:
    """Bytes recall's indexes take on disk (None: unknown).

    SQLite: the two FTS5 indexes and the time-key map; PostgreSQL: the two GIN
    indexes and ``ix_message_at``.
    """
    if conn.dialect.name == "sqlite":
        try:
            value = conn.exec_driver_sql(
                "SELECT sum(pgsize) FROM dbstat WHERE name LIKE 'recall_%_fts%' "
                "OR name IN ('recall_message', 'ix_message_at')"
            ).scalar()
        except OperationalError:
            return None
        return int(value or 0)
    value = conn.exec_driver_sql(
        "SELECT pg_relation_size('ix_message_text_fts') + pg_relation_size('ix_session_title_fts')"
        " + pg_relation_size('ix_message_at')"
    ).scalar()
    return int(value or 0)


@lru_cache(maxsize=1)
def _sqlite_has_exp() -> bool:
    import sqlite3

    try:
        sqlite3.connect(":memory:").execute("SELECT exp(0)")
    except sqlite3.OperationalError:
        return False
    return True


MMAP_BYTES = 1 << 30


def prepare(conn: Connection) -> None:
    """Ready a SQLite connection for searching (nothing to do on PostgreSQL).

    * ``exp`` from Python when the build lacks SQLite's math functions;
    * the database file memory-mapped (up to 1 GiB): a search fetches one message
      row per match it scores, and mapped pages halve that cost against reading
      each page through the 2 MB page cache (measured on 1M messages).
    """
    if conn.dialect.name != "sqlite":
        return
    conn.exec_driver_sql(f"PRAGMA mmap_size={MMAP_BYTES}")
    if not _sqlite_has_exp():
        raw = conn.connection.driver_connection
        assert raw is not None
        raw.create_function("exp", 1, math.exp, deterministic=True)


def is_query_error(exc: OperationalError) -> bool:
    """An FTS5 complaint about a query (e.g. a token its tokenizer splits in two)."""
    message = str(exc.orig).lower()
    return "fts5" in message or "phrase" in message or "syntax" in message


# --- matching ----------------------------------------------------------------------------


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
            self.source: FromClause = _MSG.join(_KEYS, _KEYS.c.key == _MSG.c.rowid).join(
                RECALL_SESSION, RECALL_SESSION.c.key == _KEYS.c.session_key
            )
            self.condition: ColumnElement[bool] = _MSG.c[MESSAGE_FTS].op("MATCH")(
                bindparam("fts_q", type_=String)
            )
            self.rank: ColumnElement[float] = -func.bm25(literal_column(MESSAGE_FTS))
            self.message_id: ColumnElement[Any] = _KEYS.c.message_id
            self.session_id: ColumnElement[Any] = RECALL_SESSION.c.session_id
            self.at: ColumnElement[Any] = _KEYS.c.at_us
            self.time_key = _MSG.c.rowid
            self.importance_joined = True
        else:
            vector = func.to_tsvector(literal_column(PG_CONFIG), MESSAGE.c.text)
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
            self.source: FromClause = _TTL.join(
                RECALL_SESSION, RECALL_SESSION.c.key == _TTL.c.rowid
            ).join(SESSION, SESSION.c.id == RECALL_SESSION.c.session_id)
            self.condition: ColumnElement[bool] = _TTL.c[TITLE_FTS].op("MATCH")(
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
    return _MSG.c.rank


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
    decay = func.coalesce(func.exp(-_LN2 * age / half_life_days), 0.0)
    return func.min(decay, 1.0) if dialect == "sqlite" else func.least(decay, 1.0)
