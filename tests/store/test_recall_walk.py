"""The walks of a search give exactly what sorting every match gives.

Newest first: on SQLite the message index is keyed by time
(``viva_store.recall.fts_keys``): a message whose second is taken moves to the
next free key above it, so the walk from the newest key is checked against
each hit's exact time. These tests build collisions on purpose (messages
sharing a second, untimed ones, late imports of old ones) and compare with
the order of the stored times. Best first over everything: the bounded walk
(``recall_walk.bounded_ranked``) against scoring every match in one query.
On PostgreSQL the same assertions hold through its own paths.
"""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from sqlalchemy import func, insert, select

from tests.store.recall_fixtures import NOW, as_member
from viva_store.clock import as_utc
from viva_store.db.schema import CLASSIFICATION, MESSAGE, SESSION
from viva_store.recall.marks import mark_importance
from viva_store.recall.search import recall
from viva_store.store import Context
from viva_store.triage import attribution
from viva_store.triage.classify import classify, unclassify

WORD = "zebrafinch"
T0 = datetime(2026, 5, 30, 9, 0, 0, tzinfo=UTC)
TOKENS: tuple[str, ...] = ("input_tokens", "output_tokens", "cache_read_tokens")
TOKENS += ("cache_write_tokens", "reasoning_tokens")
EARLIEST = datetime.min.replace(tzinfo=UTC)


@pytest.fixture
def history(recall_history: dict[str, str]) -> dict[str, str]:
    return recall_history


def add_session(
    ctx: Context,
    sid: str,
    times: list[datetime | None],
    member: str | None,
    texts: list[str] | None = None,
) -> None:
    """A session whose messages say WORD (or ``texts``), at these times (None: untimed)."""
    row: dict[str, Any] = {
        "id": sid,
        "harness": "claude-code",
        "native_id": sid,
        "models": [],
        "started_at": T0 - timedelta(days=1),
        "message_count": len(times),
        "source_path": "/test",
        "imported_at": NOW,
        "updated_at": NOW,
        **dict.fromkeys(TOKENS, 0),
    }
    messages = [
        {
            "session_id": sid,
            "seq": n,
            "key": f"{sid}-{n}",
            "role": "assistant",
            "at": at,
            "text": texts[n] if texts else f"{WORD} note {n}",
            "sidechain": False,
            "synthetic": False,
            "kind": "text",
            "ruleset": "test",
        }
        for n, at in enumerate(times)
    ]

    def work(conn: Any) -> None:
        conn.execute(insert(SESSION).values(**row))
        conn.execute(insert(MESSAGE), messages)
        if member is not None:
            event = {"session_id": sid, "action": "member", "member": member}
            conn.execute(insert(CLASSIFICATION).values(**event, actor="owner", at=NOW, note=""))
        attribution.rebuild(conn, [sid])

    ctx.store.write(work)


def newest_sessions(ctx: Context, limit: int = 50) -> list[str]:
    return [h.session_id for h in recall(ctx, WORD, order="newest", limit=limit).hits]


def expected(ctx: Context, member: str | None = None) -> list[str]:
    """Sessions by their newest message saying WORD: the stored times, sorted in Python."""
    rows = ctx.store.read(
        lambda c: list(
            c.execute(
                select(MESSAGE.c.id, MESSAGE.c.session_id, MESSAGE.c.at).where(MESSAGE.c.text != "")
            )
        )
    )
    best: dict[str, tuple[bool, datetime, int]] = {}
    for row in rows:
        at = as_utc(row.at) if row.at is not None else EARLIEST
        key = (row.at is not None, at, row.id)
        if row.session_id.startswith("t") and key > best.get(row.session_id, (False, at, -1)):
            best[row.session_id] = key
    order = sorted(best, key=lambda sid: best[sid], reverse=True)
    if member is None:
        return order
    return [sid for sid in order if sid.endswith(member)]


@pytest.fixture
def crowded(ctx: Context, history: dict[str, str]) -> None:
    """Twelve messages in one second (their keys move up over the next seconds), sessions
    at those next seconds, an untimed one, and an old message imported last."""

    def second(n: int) -> datetime:
        return T0 + timedelta(microseconds=250 + n)

    add_session(ctx, "t01-deven", [second(n) for n in range(6)], "deven")
    add_session(ctx, "t02-alice", [second(9 - n) for n in range(6)], "alice")
    for n in range(1, 6):
        member = ("deven", "alice")[n % 2]
        add_session(ctx, f"t1{n}-{member}", [T0 + timedelta(seconds=n)], member)
    add_session(ctx, "t20-deven", [None, None], "deven")
    add_session(ctx, "t21-alice", [None], "alice")
    recall(ctx, WORD)  # index what is there
    add_session(ctx, "t30-deven", [T0 - timedelta(days=300)], "deven")  # an old file, late
    add_session(ctx, "t31-alice", [T0 + timedelta(seconds=3, microseconds=1)], "alice")


@pytest.mark.parametrize("fetch", [None, 1])
def test_newest_first_follows_the_stored_times_exactly(
    ctx: Context, crowded: None, monkeypatch: pytest.MonkeyPatch, fetch: int | None
) -> None:
    if fetch is not None:  # one hit at a time, then 8, 64...; the narrowest time windows
        from viva_store.recall import search as service
        from viva_store.recall import walk as recall_walk

        monkeypatch.setattr(service, "FETCH_PER_HIT", fetch)
        monkeypatch.setattr(service, "FETCH_MIN", fetch)
        monkeypatch.setattr(recall_walk, "WINDOW_MESSAGES", fetch)
        monkeypatch.setattr(recall_walk, "FEW_MATCHES", 0)
    want = expected(ctx)
    assert len(want) == 11
    assert newest_sessions(ctx) == want
    assert newest_sessions(ctx, limit=3) == want[:3]
    assert [h.session_id for h in recall(as_member(ctx, "deven"), WORD, order="newest").hits] == (
        expected(ctx, "deven")
    )


def test_every_message_is_indexed_once(ctx: Context, crowded: None) -> None:
    recall(ctx, WORD)
    texts = select(func.count()).select_from(MESSAGE).where(MESSAGE.c.text != "")
    count = ctx.store.read(lambda c: c.execute(texts).scalar())
    if ctx.store.engine.dialect.name != "sqlite":
        return
    keyed = ctx.store.read(
        lambda c: c.exec_driver_sql(
            "SELECT count(*), count(DISTINCT message_id) FROM recall_message"
        ).one()
    )
    assert tuple(keyed) == (count, count)
    moved = ctx.store.read(
        lambda c: c.exec_driver_sql(
            "SELECT count(*) FROM recall_message WHERE key > at_us / 1000000"
        ).scalar()
    )
    assert (
        moved is not None and moved >= 11
    )  # eleven of the twelve messages of the crowded second moved up
    ctx.store.write(
        lambda c: c.exec_driver_sql(
            "INSERT INTO recall_message_fts(recall_message_fts) VALUES ('integrity-check')"
        )
    )


def test_reclassifying_moves_a_session_in_newest_first(ctx: Context, crowded: None) -> None:
    deven, alice = as_member(ctx, "deven"), as_member(ctx, "alice")

    def seen(who: Context) -> set[str]:
        return {h.session_id for h in recall(who, WORD, order="newest", limit=50).hits}

    assert "t01-deven" in seen(deven) and "t01-deven" not in seen(alice)
    classify(ctx, ["t01-deven"], "alice")
    assert "t01-deven" in seen(alice) and "t01-deven" not in seen(deven)
    unclassify(ctx, ["t01-deven"])
    assert "t01-deven" not in seen(alice) | seen(deven)
    assert "t01-deven" in seen(ctx)


VOCABULARY = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "glacier", "harbor"]


@pytest.fixture
def varied(ctx: Context, history: dict[str, str]) -> None:
    """Sixty sessions of random words, lengths and times; some marked important."""
    rnd = random.Random(8)
    for n in range(60):
        times: list[datetime | None] = [
            NOW - timedelta(days=rnd.uniform(0, 400), seconds=s) for s in range(rnd.randint(1, 6))
        ]
        if n % 17 == 0:
            times[0] = None
        texts = [" ".join(rnd.choices(VOCABULARY, k=rnd.randint(2, 30))) for _ in times]
        member = (None, "deven", "alice")[n % 3]
        add_session(ctx, f"t{n:02d}-{member}", times, member, texts)
    for n in range(0, 60, 7):
        mark_importance(ctx, f"t{n:02d}-{(None, 'deven', 'alice')[n % 3]}", rnd.random())


@pytest.mark.parametrize("query", ["amber", "cobalt dune", "glacier harbor ember", "fjord zzz"])
@pytest.mark.parametrize("fetch", [None, 1])
def test_best_first_bounded_is_scoring_every_match(
    ctx: Context, varied: None, monkeypatch: pytest.MonkeyPatch, query: str, fetch: int | None
) -> None:
    """SQLite's bounded walk and PostgreSQL's time windows, against one sort of every match."""
    from viva_store.recall import search as service
    from viva_store.recall import walk as recall_walk

    if fetch is not None:
        monkeypatch.setattr(service, "BOUNDED_PER_HIT", fetch)
        monkeypatch.setattr(service, "BOUNDED_MIN", fetch)
        monkeypatch.setattr(recall_walk, "WINDOW_MESSAGES", 2)
        monkeypatch.setattr(recall_walk, "FEW_MATCHES", 0)
    deven = as_member(ctx, "deven")
    bounded = [recall(ctx, query, limit=n).hits for n in (1, 5, 50)]
    member = recall(deven, query, limit=20).hits
    monkeypatch.setattr(service, "BOUNDED", False)
    monkeypatch.setattr(service, "WINDOWS", False)
    assert [recall(ctx, query, limit=n).hits for n in (1, 5, 50)] == bounded
    assert recall(deven, query, limit=20).hits == member
    assert len(bounded[2]) > 5


@pytest.mark.parametrize("query", ["amber", "cobalt dune", "fjord zzz"])
def test_newest_first_by_windows_or_walks_is_sorting_every_match(
    ctx: Context, varied: None, monkeypatch: pytest.MonkeyPatch, query: str
) -> None:
    from viva_store.recall import search as service
    from viva_store.recall import walk as recall_walk

    monkeypatch.setattr(recall_walk, "WINDOW_MESSAGES", 2)
    monkeypatch.setattr(recall_walk, "FEW_MATCHES", 0)  # widen, never give up on windows
    walked = [recall(ctx, query, order="newest", limit=n).hits for n in (1, 5, 50)]
    deven = recall(as_member(ctx, "deven"), query, order="newest").hits
    monkeypatch.setattr(service, "WINDOWS", False)
    monkeypatch.setattr(service, "FETCH_MIN", 100_000)  # SQLite: the whole walk at once
    assert [recall(ctx, query, order="newest", limit=n).hits for n in (1, 5, 50)] == walked
    assert recall(as_member(ctx, "deven"), query, order="newest").hits == deven
    assert len(walked[2]) > 5


def test_a_rare_query_is_read_once_rather_than_window_by_window(
    ctx: Context, varied: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PostgreSQL: each time window reads every word's index entries again, so a query
    the planner expects few matches for is answered by reading its matches once."""
    from sqlalchemy import event

    from viva_store.recall import fts_match
    from viva_store.recall import search as service
    from viva_store.recall import walk as recall_walk

    monkeypatch.setattr(recall_walk, "WINDOW_MESSAGES", 2)  # windows, were they used
    seen: list[str] = []

    def record(*args: Any) -> None:
        seen.append(args[2])

    event.listen(ctx.store.engine, "before_cursor_execute", record)
    try:
        hits = recall(ctx, "cobalt dune", order="newest", limit=5).hits
    finally:
        event.remove(ctx.store.engine, "before_cursor_execute", record)
    windowed = [s for s in seen if "message.at >=" in s]
    monkeypatch.setattr(service, "WINDOWS", False)
    assert recall(ctx, "cobalt dune", order="newest", limit=5).hits == hits
    assert hits
    dialect = ctx.store.engine.dialect.name
    match = fts_match.MessageMatch(dialect, 0, False)
    params = fts_match.match_params(dialect, ("cobalt", "dune"), False)
    estimate = ctx.store.read(lambda c: fts_match.estimated_matches(c, match, params))
    if dialect == "sqlite":
        assert estimate is None  # its time-keyed walk reads the newest matches directly
        return
    assert estimate is not None and 0 < estimate <= recall_walk.FEW_MATCHES
    assert windowed == []
