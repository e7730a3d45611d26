"""ENGINE-SPECIFIC ADAPTER (SQLite): the message index keyed by time (migration 0008).

FTS5 walks a match's rowids in either direction and stops as soon as a query's
``LIMIT`` is reached, so an index whose rowid follows time answers "newest
first" by reading the first few hits — however common the words. Message ids
do not follow time (a bulk import of history arrives in any order), so the
message index is *contentless* (``content=''``) with its own rowid, the
**time key**, and ``recall_message`` maps each key to its message:

``recall_message(key INTEGER PRIMARY KEY, message_id, session_key, at_us)``
    ``key``: the message's time in whole Unix seconds (clamped at 0), made
    unique by moving a colliding message to the next free key *above* it —
    so ``key >= floor(at)`` always holds. A message without a time gets
    ``id - 2**62``: below every timed message, in id order.
    ``session_key``: ``recall_session.key`` (importance, scope); ``at_us``:
    the exact time in microseconds (recency, exact order).

Walking keys downwards therefore yields messages in time order except for
the few moved up by a collision; :func:`trusted_bound` says which of a walked
prefix are certainly in order. The map also makes ranking cheaper: scoring
a match reads a narrow ``recall_message`` row instead of the message row.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import UTC, datetime

from sqlalchemy import Connection, bindparam, text

from viva_store.recall.fts import INDEXED, MESSAGE_FTS, TOKENIZE, document, has_document

KEYS = "recall_message"
NULL_BASE = 1 << 62
PROBE = 64
DAY = 86_400
WRITE_BUFFER = 32 << 20
"""FTS5's ``hashsize``: the bytes of new postings it holds before writing a segment
(default 1 MB). A bulk build with 32 MB writes a few large segments instead of
hundreds of small ones that are then merged: a build of 1M messages took 0.6× the
time, for ~45 MB more memory while it runs. Small writes flush at commit anyway."""

_SECONDS = "CAST(strftime('%s', m.at) AS INTEGER)"
_KEY = f"CASE WHEN m.at IS NULL THEN m.id - {NULL_BASE} ELSE max({_SECONDS}, 0) END"
_AT_US = (  # exact to the microsecond (SQLite's own date functions round to the millisecond)
    f"{_SECONDS} * 1000000 + CASE WHEN substr(m.at, 20, 1) = '.' "
    "THEN CAST(substr(substr(m.at, 21, 6) || '000000', 1, 6) AS INTEGER) ELSE 0 END"
)
_CHUNK = (  # the non-empty messages with ``after < id <= upto`` and their sessions' keys
    "FROM message m JOIN recall_session rs ON rs.session_id = m.session_id "
    f"WHERE m.id > :after AND m.id <= :upto AND ({has_document('m.')})"
)


def install(conn: Connection) -> None:
    """Migration 0008 on SQLite: the time-keyed message index. Frozen, like ``fts.install``."""
    conn.exec_driver_sql(f"DROP TABLE IF EXISTS {MESSAGE_FTS}")
    conn.exec_driver_sql(
        f"CREATE TABLE {KEYS} (key INTEGER PRIMARY KEY, message_id INTEGER NOT NULL, "
        "session_key INTEGER NOT NULL, at_us INTEGER)"
    )
    conn.exec_driver_sql(
        f"CREATE VIRTUAL TABLE {MESSAGE_FTS} USING fts5(text, content='', "
        f"detail=none, tokenize='{TOKENIZE}')"
    )


def _free_key(conn: Connection, start: int) -> tuple[int, int | None]:
    """The lowest key at or above ``start`` that no message has, and the next taken
    key above it (None: none), so that the keys in between are known to be free."""
    key = start
    while True:
        taken = list(
            conn.execute(
                text(f"SELECT key FROM {KEYS} WHERE key >= :k ORDER BY key LIMIT {PROBE}"),
                {"k": key},
            ).scalars()
        )
        for existing in taken:
            if existing != key:
                return key, existing
            key += 1
        if len(taken) < PROBE:
            return key, None


def _place_collisions(conn: Connection, chunk: dict[str, int]) -> int:
    """Give the chunk's messages whose key was taken the next free key above it;
    returns the highest key given.

    The collisions are placed in key order, and each probe starts above the key the
    previous one got when their ranges overlap (every key in between is taken); the
    keys a probe saw free are used without asking again. A burst of messages within
    one second (a transcript line's blocks share their instant) would otherwise probe
    the same run of taken keys once per message — quadratic in the burst (20,000
    messages at three per second took 158 s to index; now 0.2 s).
    """
    rows = conn.execute(
        text(
            f"SELECT m.id AS message_id, rs.key AS session_key, {_AT_US} AS at_us, "
            f"{_KEY} AS key {_CHUNK} AND NOT EXISTS (SELECT 1 FROM {KEYS} r "
            f"WHERE r.key = {_KEY} AND r.message_id = m.id) ORDER BY key, message_id"
        ),
        chunk,
    ).all()
    placed: list[dict[str, int | None]] = []
    last: int | None = None
    taken_next: int | None = None  # the keys strictly between last and this are free
    for row in rows:
        if last is not None and row.key <= last and (taken_next is None or last + 1 < taken_next):
            last += 1
        else:
            start = row.key if last is None or row.key > last else last + 1
            last, taken_next = _free_key(conn, start)
        placed.append({"k": last, "m": row.message_id, "s": row.session_key, "a": row.at_us})
    if placed:
        conn.execute(text(f"INSERT INTO {KEYS} VALUES (:k, :m, :s, :a)"), placed)
    return -NULL_BASE if last is None else last


def _key_range(
    after: int, upto: int, untimed: int, first: str | None, last: str | None
) -> tuple[int, int]:
    """Keys that hold every key of the chunk but those moved up by a collision.

    Timed keys come from the earliest and latest stored times (text, which sorts as
    time does), a day wider on each side: that covers any offset the text may carry.
    """
    ranges = [(after + 1 - NULL_BASE, upto - NULL_BASE)] if untimed else []
    if first is not None and last is not None:
        try:
            ranges.append((max(0, _seconds(first) - DAY), _seconds(last) + DAY))
        except ValueError:  # a time Python does not read: walk every timed key
            ranges.append((0, NULL_BASE))
    return min(low for low, _ in ranges), max(high for _, high in ranges)


def _seconds(stored: str) -> int:
    at = datetime.fromisoformat(stored)
    return math.floor((at if at.tzinfo else at.replace(tzinfo=UTC)).timestamp())


def _size_write_buffer(conn: Connection) -> None:
    """Set :data:`WRITE_BUFFER` unless the index has it: a setting FTS5 keeps with
    the index (a rebuild creates the index anew, without it)."""
    config = f"{MESSAGE_FTS}_config"
    held = conn.exec_driver_sql(f"SELECT v FROM {config} WHERE k = 'hashsize'").scalar()
    if held != WRITE_BUFFER:
        conn.exec_driver_sql(
            f"INSERT INTO {MESSAGE_FTS}({MESSAGE_FTS}, rank) VALUES ('hashsize', {WRITE_BUFFER})"
        )


def index_messages(conn: Connection, after: int, upto: int) -> int:
    """Key and index the messages with ``after < id <= upto`` that have a text, a tool
    input or a tool output (:func:`~viva_store.recall.fts.document`); returns how many.

    Every message of the chunk needs its ``recall_session`` row first. The keys go
    into the map first; FTS5 is then fed by walking the map in key order over the
    chunk's range of keys (out of order, FTS5 flushes its buffer at every step
    back), each text fetched by id. That walk needs no sort of the texts, and nothing
    is staged: measured faster than sorting the chunk's texts by key.
    """
    chunk = {"after": after, "upto": upto}
    expected, untimed, first, last = conn.execute(
        text(f"SELECT count(*), count(*) - count(m.at), min(m.at), max(m.at) {_CHUNK}"), chunk
    ).one()
    if not expected:
        return 0
    low, high = _key_range(after, upto, untimed, first, last)
    _size_write_buffer(conn)
    placed = conn.execute(
        text(
            f"INSERT OR IGNORE INTO {KEYS} SELECT {_KEY}, m.id, rs.key, {_AT_US} "
            f"{_CHUNK} ORDER BY 1, m.id"
        ),
        chunk,
    ).rowcount
    if placed != expected:
        high = max(high, _place_collisions(conn, chunk))
    result = conn.execute(
        text(
            f"INSERT INTO {MESSAGE_FTS}(rowid, text) SELECT r.key, {document('m.')} "
            f"FROM {KEYS} r CROSS JOIN message m ON m.id = r.message_id "
            "WHERE r.key BETWEEN :low AND :high AND r.message_id > :after "
            "AND r.message_id <= :upto ORDER BY r.key"
        ),
        {**chunk, "low": low, "high": high},
    )
    return int(result.rowcount or 0)


def trusted_bound(last_key: int, complete: bool) -> int | None:
    """The time (µs) from which walked messages are certainly in order; None: all are.

    Walking from the highest key down to ``last_key``: a message not walked yet
    has a lower key, and ``key >= floor(at)``, so it is older than ``last_key``
    seconds. Walked messages at or after that instant are therefore in order
    (one moved up by a collision may not be). ``complete``: nothing is left.
    """
    if complete or last_key < 0:  # below 0: untimed messages, in id order after every timed one
        return None
    return last_key * 1_000_000


Indexed = tuple[str, str | None, str | None]
"""A message's indexed columns, in the order of :data:`~viva_store.recall.fts.INDEXED`."""


def reindex_rewritten(conn: Connection, changes: Sequence[tuple[int, Indexed, Indexed]]) -> int:
    """Re-index messages whose indexed columns the redaction upgrade rewrote: ``(message id,
    old columns, new columns)`` each, given before the index is asked again. A contentless
    index forgets a message only when told the very words it was given (the document of
    the old columns, built by the same SQL as the bulk build); returns how many."""
    texts = {mid: (old, new) for mid, old, new in changes}
    given = f"SELECT {document('m.')} FROM (SELECT :text AS text, :tool_args AS tool_args, "
    given += ":tool_result AS tool_result) m"
    done = 0
    for start in range(0, len(texts), 500):
        ids = list(texts)[start : start + 500]
        keyed = conn.execute(
            text(f"SELECT key, message_id FROM {KEYS} WHERE message_id IN :ids").bindparams(
                bindparam("ids", expanding=True)
            ),
            {"ids": ids},
        )
        for key, mid in list(keyed):
            old, new = (
                conn.execute(text(given), dict(zip(INDEXED, columns, strict=True))).scalar()
                for columns in texts[mid]
            )
            conn.execute(
                text(
                    f"INSERT INTO {MESSAGE_FTS}({MESSAGE_FTS}, rowid, text) "
                    "VALUES ('delete', :k, :t)"
                ),
                {"k": key, "t": old},
            )
            conn.execute(
                text(f"INSERT INTO {MESSAGE_FTS}(rowid, text) VALUES (:k, :t)"),
                {"k": key, "t": new},
            )
            done += 1
    return done


def clear(conn: Connection) -> None:
    """Empty the key map (the index itself is dropped and created again by ``fts.clear``)."""
    conn.exec_driver_sql(f"DELETE FROM {KEYS}")
