"""ENGINE-SPECIFIC ADAPTER: full-text search SQL for SQLite (FTS5) and PostgreSQL (tsvector).

Everything recall needs from an engine's full-text machinery is here and
nowhere else; :mod:`viva_store.recall.sql` composes these pieces with
portable SQLAlchemy (scope joins, recency, importance).

SQLite
    ``recall_message_fts``: FTS5, *contentless* (``content=''``), ``detail=none``
    — no stored copy of the text and no token positions, so the index stays a
    fraction of the text. What it holds per message is :func:`document`: the
    text, the tool call's whole input and the tool's output (migration 0018).
    Its rowid is a time key, mapped to the message by ``recall_message``
    (:mod:`viva_store.recall.fts_keys`, migration 0008), so newest-first
    searches read the first hits and stop. It is filled in bulk
    after an import (``INSERT … SELECT`` of every message past a watermark,
    chunked), never by a trigger row by row; ``message`` is append-only, so
    nothing indexed has to be removed but what the redaction upgrade rewrote
    (``fts_keys.reindex_rewritten``). A message whose text, input and output
    are all empty is not indexed.
    ``recall_title_fts``: FTS5 over ``recall_session.title`` (rowid =
    ``recall_session.key``), changed row by row when a title changes.
    Indexing is done by :mod:`viva_store.recall.index`, lazily: the
    first search after an import indexes everything new in bulk, later ones
    whatever arrived since (a watermark; ``message`` ids commit in order).
PostgreSQL
    GIN indexes on ``to_tsvector('simple', <document>)`` and
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

from sqlalchemy import (
    Connection,
    Float,
    Integer,
    column,
    table,
    text,
)
from sqlalchemy.exc import OperationalError

MESSAGE_FTS = "recall_message_fts"
TITLE_FTS = "recall_title_fts"
TOKENIZE = "unicode61 remove_diacritics 2"
PG_CONFIG = "'simple'::regconfig"

MESSAGE_INDEX = table(
    MESSAGE_FTS, column("rowid", Integer), column(MESSAGE_FTS), column("rank", Float)
)
TITLE_INDEX = table(TITLE_FTS, column("rowid", Integer), column(TITLE_FTS))
KEY_MAP = table(
    "recall_message",
    column("key", Integer),
    column("message_id", Integer),
    column("session_key", Integer),
    column("at_us", Integer),
)


INDEXED = ("text", "tool_args", "tool_result")
"""The message columns the index holds (what the redaction upgrade must re-index)."""
TOOL_CHARS = 100_000
"""Characters of a tool call's input and of a tool's output indexed (each): a file's whole
contents read or written add little to find it by, and PostgreSQL refuses a ``tsvector``
over 1 MB (an error in an index expression would refuse the message itself)."""


def document(prefix: str = "") -> str:
    """SQL, the same on both engines, for the words indexed of a message whose columns are
    ``{prefix}text`` …: its text, its tool input and its tool output, a space between.

    The input is JSON text; its ``\\n``, ``\\r``, ``\\t`` escapes become spaces, or the
    word after a line break would be indexed with an ``n`` glued to it. PostgreSQL's GIN
    index is over this very expression (migration 0018): a query must use it unchanged.
    """
    args = f"substr(coalesce({prefix}tool_args, ''), 1, {TOOL_CHARS})"
    for escape in ("n", "r", "t"):
        args = f"replace({args}, '\\{escape}', ' ')"
    output = f"substr(coalesce({prefix}tool_result, ''), 1, {TOOL_CHARS})"
    return f"{prefix}text || ' ' || {args} || ' ' || {output}"


def has_document(prefix: str = "") -> str:
    """SQL: whether a message has anything to index (else it is left out)."""
    return " OR ".join(f"{prefix}{name} != ''" for name in INDEXED)


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
