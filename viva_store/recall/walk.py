"""How a search collects its best hits, a few rows at a time, without scoring what cannot win.

* :func:`best_per_session` — an ordered hit list (the SQL did the ordering),
  fetched ``k`` rows at a time until it holds ``limit`` sessions.
* :func:`newest_keyed` — newest first on SQLite: the time-keyed index walked
  from its top (:mod:`viva_store.recall.fts_keys`), checked against exact times.
* :func:`bounded_ranked` — best first on SQLite for a search of everything
  (the owner's, not narrowed): the matches are ordered by an upper bound of
  their score that the index alone can compute — relevance from its rank,
  recency from its time key (``key + 1`` second is never older than the
  message), importance at the highest any session has — and only the first
  rows are read and scored exactly. They are the answer once the last
  session kept scores above every bound not read; otherwise more rows are
  read. The result is the same as scoring every match (tested); a scoped
  search keeps the scope inside its one query instead.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Connection, Select, func, select

from viva_store.clock import as_utc
from viva_store.db.schema import MESSAGE, RECALL_SESSION
from viva_store.recall import changes, fts_keys
from viva_store.recall.ranking import RecallParams

WINDOW_MESSAGES = 16384
_SPAN = select(func.min(MESSAGE.c.at), func.max(MESSAGE.c.at), func.max(MESSAGE.c.id))
FEW_MATCHES = 2000
EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
LN2 = math.log(2)
US_PER_DAY = 86_400_000_000.0
IN_BATCH = 500
MARGIN = 1e-9


@dataclass(frozen=True, slots=True)
class Candidate:
    session_id: str
    kind: str  # message | title
    message_id: int | None
    at: datetime | None
    key: float  # the score (rank order) or the time (newest order)
    rank: float | None  # the engine's rank, when the search already has it


def as_key(value: Any) -> float:
    if value is None:
        return float("-inf")
    return as_utc(value).timestamp() if isinstance(value, datetime) else float(value)


def at_of(value: Any) -> datetime | None:
    """A match's time as selected: a datetime, or microseconds (SQLite's time-key map)."""
    if value is None or isinstance(value, datetime):
        return value
    return EPOCH + timedelta(microseconds=int(value))


def best_per_session(
    fetch: Callable[[int], list[Any]], limit: int, first: int, kind: str
) -> list[Candidate]:
    """The first ``limit`` sessions of an ordered hit list, fetching more rows as needed."""
    k = first
    while True:
        rows = fetch(k)
        best: dict[str, Candidate] = {}
        for row in rows:
            if row.session_id not in best:
                message_id = row.id if kind == "message" else None
                rank = float(row.rank or 0.0) if row.rank is not None else None
                best[row.session_id] = Candidate(
                    row.session_id, kind, message_id, at_of(row.at), as_key(row.key), rank
                )
                if len(best) == limit:
                    return list(best.values())
        if len(rows) < k:
            return list(best.values())
        k *= 8


def newest_keyed(
    conn: Connection, keyed: Select[Any], params: dict[str, Any], limit: int, first: int
) -> list[Candidate]:
    """Newest first on SQLite: walk the time-keyed index from the top, ``first`` hits at a time.

    Of the hits walked, those at or after the last one's key (in seconds) are
    certainly newer than any hit not walked (:func:`fts_keys.trusted_bound`);
    they are put in exact time order. When they hold ``limit`` sessions that is
    the answer, else the walk goes further.
    """
    k = first
    while True:
        rows = conn.execute(keyed, {**params, "k": k}).all()
        complete = len(rows) < k
        bound = fts_keys.trusted_bound(rows[-1].tkey, complete) if rows else None
        ok = [r for r in rows if bound is None or (r.at is not None and r.at >= bound)]
        ok.sort(key=lambda r: (r.at is not None, r.at or 0, r.id), reverse=True)
        best: dict[str, Candidate] = {}
        for row in ok:
            if row.session_id not in best:
                key = row.at / 1_000_000 if row.at is not None else float("-inf")
                best[row.session_id] = Candidate(
                    row.session_id, "message", row.id, at_of(row.at), key, None
                )
                if len(best) == limit:
                    return list(best.values())
        if complete:
            return list(best.values())
        k *= 8


@dataclass(frozen=True, slots=True)
class Ceiling:
    """The best score a match older than a window's start could have (ranked windows)."""

    params: RecallParams
    k: float  # relevance's k
    rank: float  # the highest rank the engine can give this query
    boost: float  # the engagement state's boost, when it applies
    now: datetime

    def above(self, since: datetime, importance: float) -> float:
        p = self.params
        rel = 1.0 - self.k / (self.rank + self.k)
        age = (self.now - as_utc(since)).total_seconds() / 86400
        rec = min(math.exp((-LN2 * age) / p.half_life_days), 1.0)
        total = p.weight_relevance * rel + p.weight_recency * rec + p.weight_importance * importance
        return total / p.weight_sum * self.boost


def windows(
    conn: Connection,
    statements: tuple[Select[Any], Select[Any]],
    params: dict[str, Any],
    limit: int,
    first: int,
    ceiling: Ceiling | None = None,
    stamp: Hashable | None = None,
    scoped: bool = False,
    estimate: float | None = None,
) -> list[Candidate]:
    """PostgreSQL: the newest window of time first, eight times wider each time it is not
    enough, then everything (untimed messages included) — or everything at once when the
    engine ``estimate``s few matches in all (each window reads every word's index entries
    again, which costs a rare query more than sorting its few matches).

    The first window spans about ``WINDOW_MESSAGES`` messages' worth of the stored
    history; all of a window's matches are read and ordered. Newest first, a window
    holding ``limit`` sessions holds the newest of all. Best first (``ceiling``),
    its ``limit``-th session must also beat the best score a match older than the
    window could have: the engine's highest rank, the recency of the window's
    start, the highest importance any session has.
    """
    windowed, everything = statements
    oldest, newest, total = changes.remembered(
        conn, "recall.time_span", lambda: tuple(conn.execute(_SPAN).one()), stamp
    )
    highest = _highest_importance(conn, stamp) if ceiling is not None else 0.0
    read = [0]

    def fetch(statement: Select[Any], extra: dict[str, Any]) -> list[Candidate]:
        def rows(k: int) -> list[Any]:
            found = list(conn.execute(statement, {**params, **extra, "k": k}))
            read[0] = len(found)
            return found

        return best_per_session(rows, limit, first, "message")

    few = estimate is not None and estimate <= FEW_MATCHES
    if newest is not None and oldest is not None and total and not few:
        span = newest - oldest
        width = span * min(1.0, WINDOW_MESSAGES / total)
        while newest - width > oldest:
            since = newest - width
            found = fetch(windowed, {"lo": since})
            if len(found) >= limit:
                if ceiling is None:
                    return found
                if min(c.key for c in found) > ceiling.above(since, highest) + MARGIN:
                    return found
            # Few matches in the window: when the whole history likely holds few, sorting
            # them all is cheaper than more windows (each reads the word's index entries).
            # Not in a scope: the matches outside it are read too, and were not counted.
            elif not scoped and (read[0] + 1) * (span / width) <= FEW_MATCHES:
                break
            width *= 8
    return fetch(everything, {})


def exact_score(
    p: RecallParams, k: float, now_us: int, rank: float, at_us: int | None, imp: Any
) -> float:
    """The score, computed as the ranking SQL computes it (same operations, same order)."""
    rel = 1.0 - k / (rank + k)
    rec = 0.0
    if at_us is not None:
        age = (now_us - at_us) / US_PER_DAY
        rec = min(math.exp((-LN2 * age) / p.half_life_days), 1.0)
    total = p.weight_relevance * rel + p.weight_recency * rec + p.weight_importance * (imp or 0.0)
    return total / p.weight_sum * 1.0


def _highest_importance(conn: Connection, stamp: Hashable | None) -> float:
    value = changes.remembered(
        conn,
        "recall.importance_max",
        lambda: conn.execute(select(func.max(RECALL_SESSION.c.importance))).scalar(),
        stamp,
    )
    return float(value or 0.0)


def _bound(p: RecallParams, k: float, now_us: int, rank: float, key: int, slack: float) -> float:
    """The best score a match not read yet could have: its rank at most ``rank``, its time
    key below ``key`` (so its time before ``key + 1`` s), importance at most the highest."""
    return exact_score(p, k, now_us, rank, (key + 1) * 1_000_000, 0.0) + slack


@dataclass(slots=True)
class _Read:
    """What a round of :func:`bounded_ranked` has read."""

    rows: list[Any]
    complete: bool  # every match is among them
    lowest: float  # the n-th highest rank
    oldest: int  # the n-th highest time key


def _read(
    conn: Connection,
    statements: tuple[Select[Any], ...],
    params: dict[str, Any],
    ranked: list[Any] | None,
) -> tuple[_Read, list[Any]]:
    """The first ``k`` matches by rank and ``kt`` by time key (``recall_sql._bounded``);
    ``ranked``: the rank rows of the last round when ``k`` did not change."""
    n, nt = params["k"], params["kt"]
    if len(statements) == 2:
        if ranked is None:
            ranked = list(conn.execute(statements[0], params))
        if len(ranked) < n:
            return _Read(ranked, True, 0.0, 0), ranked
        recent = list(conn.execute(statements[1], params))
        rows = list({row.tkey: row for row in (*ranked, *recent)}.values())
        lowest = min(float(r.rank) for r in ranked)
        return _Read(rows, len(recent) < nt, lowest, min(r.tkey for r in recent)), ranked
    rows = list(conn.execute(statements[0], params))
    if not rows or rows[0].n_all <= max(n, nt):  # one of the prefixes is every match
        return _Read(rows, True, 0.0, 0), rows
    lowest = sorted((float(r.rank) for r in rows), reverse=True)[n - 1]
    oldest = sorted((r.tkey for r in rows), reverse=True)[nt - 1]
    return _Read(rows, False, lowest, oldest), rows


def bounded_ranked(
    conn: Connection,
    statements: tuple[Select[Any], ...],
    params: dict[str, Any],
    p: RecallParams,
    k: float,
    limit: int,
    first: int,
    stamp: Hashable | None = None,
) -> list[Candidate]:
    """Best first over everything (SQLite): see the module docstring.

    The matches are read in two orders at once — the first ``n`` by the
    engine's rank and the first ``nt`` by time key — and every match read is
    scored exactly. A match not read ranks no higher than the ``n``-th by rank
    and is older than the ``nt``-th by time, which bounds its score; once the
    ``limit``-th session kept beats that bound, nothing unread can enter (the
    threshold algorithm). Otherwise the time prefix grows eightfold — and the
    rank prefix too when even a match of no recency could still enter.
    """
    slack = p.weight_importance * _highest_importance(conn, stamp) / p.weight_sum
    now_us = int(params["now_us"])
    n = nt = first
    ranked: list[Any] | None = None
    while True:
        read, ranked = _read(conn, statements, {**params, "k": n, "kt": nt}, ranked)
        scored = sorted(
            ((exact_score(p, k, now_us, r.rank, r.at, r.imp), r.id, r) for r in read.rows),
            key=lambda s: (s[0], s[1]),
            reverse=True,
        )
        best: dict[str, Candidate] = {}
        for score, _, row in scored:
            if row.session_id not in best:
                best[row.session_id] = Candidate(
                    row.session_id, "message", row.id, at_of(row.at), score, float(row.rank)
                )
                if len(best) == limit:
                    break
        if read.complete:
            return list(best.values())
        kept = min(c.key for c in best.values()) if len(best) == limit else float("-inf")
        if kept > _bound(p, k, now_us, read.lowest, read.oldest, slack) + MARGIN:
            return list(best.values())
        nt *= 8
        if kept <= exact_score(p, k, now_us, read.lowest, None, 0.0) + slack + MARGIN:
            n, ranked = n * 8, None  # no recency would be low enough: read further by rank
