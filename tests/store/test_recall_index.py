"""Keeping recall's derived data current: bulk, incremental, rebuildable, never stale.

The index holds no member, so classification changes need no reindexing; the
importance of a session follows its signals (principle citations, tool
errors, the owner's mark) and a rebuild reproduces exactly what the
incremental path built.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest
from sqlalchemy import Connection, insert, select, update

from tests.store.recall_fixtures import PLANTED
from viva_store.db.schema import MESSAGE, RECALL_SESSION, SESSION
from viva_store.principles.service import propose
from viva_store.recall import index as recall_index
from viva_store.recall.marks import mark_importance
from viva_store.recall.search import recall
from viva_store.store import Context
from viva_store.triage.classify import classify


@pytest.fixture
def history(recall_history: dict[str, str]) -> dict[str, str]:
    return recall_history


def derived(ctx: Context) -> list[tuple[Any, ...]]:
    query = select(
        RECALL_SESSION.c.session_id,
        RECALL_SESSION.c.title,
        RECALL_SESSION.c.message_count,
        RECALL_SESSION.c.tool_errors,
        RECALL_SESSION.c.cited,
        RECALL_SESSION.c.marked,
        RECALL_SESSION.c.importance,
        RECALL_SESSION.c.reason,
    ).order_by(RECALL_SESSION.c.session_id)
    return ctx.store.read(lambda c: [tuple(r) for r in c.execute(query)])


def searches(ctx: Context) -> list[Any]:
    return [
        [(h.session_id, h.kind, h.seq, h.score) for h in recall(ctx, q, limit=50).hits]
        for q in (PLANTED, "cache", "alice checks", "tests pass")
    ]


def test_an_import_leaves_nothing_pending(ctx: Context, history: dict[str, str]) -> None:
    recall(ctx, "cache")
    assert not ctx.store.read(recall_index.pending)
    again = recall_index.refresh(ctx)
    assert (again.messages_indexed, again.chunks, again.titles_changed) == (0, 0, 0)


def test_classifying_needs_no_reindexing(ctx: Context, history: dict[str, str]) -> None:
    recall(ctx, "cache")
    classify(ctx, [history["u-queue"]], "oliver")
    assert not ctx.store.read(recall_index.pending)
    hits = recall(ctx, "cache", member="oliver").hits
    assert [h.session_id for h in hits] == [history["u-queue"]]


def test_chunked_bulk_build_equals_one_pass(
    ctx: Context, history: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    one_pass = searches(ctx)
    monkeypatch.setattr(recall_index, "CHUNK", 3)
    report = recall_index.rebuild(ctx)
    assert report.chunks > 3
    assert searches(ctx) == one_pass


def test_rebuild_reproduces_the_incremental_state(ctx: Context, history: dict[str, str]) -> None:
    mark_importance(ctx, history["d-recent"], 0.8)
    propose(ctx, "deven", "Write cache ideas down", "it paid off", [history["d-planted"] + "#2"])
    before_hits = searches(ctx)  # a search brings the derived data up to date first
    before_rows = derived(ctx)
    recall_index.rebuild(ctx)
    assert derived(ctx) == before_rows
    assert searches(ctx) == before_hits


def test_the_message_index_keeps_its_bulk_write_buffer(
    ctx: Context, history: dict[str, str]
) -> None:
    """SQLite: FTS5's write buffer is set by the first build and again after a rebuild,
    which creates the index anew (a bulk build with the 1 MB default merges far more)."""
    if ctx.store.engine.dialect.name != "sqlite":
        pytest.skip("FTS5's setting (PostgreSQL's GIN index is kept by the server)")
    from viva_store.recall.fts_keys import WRITE_BUFFER

    def held() -> Any:
        sql = "SELECT v FROM recall_message_fts_config WHERE k = 'hashsize'"
        return ctx.store.read(lambda c: c.exec_driver_sql(sql).scalar())

    recall(ctx, "cache")
    assert held() == WRITE_BUFFER
    recall_index.reset(ctx)
    assert held() is None
    recall_index.refresh(ctx)
    assert held() == WRITE_BUFFER


def test_a_principle_citing_a_session_raises_its_importance(
    ctx: Context, history: dict[str, str]
) -> None:
    def importance_of(sid: str) -> float:
        hit = next(h for h in recall(ctx, "cache", limit=50).hits if h.session_id == sid)
        importance = hit.factors["importance"]
        assert importance is not None
        return importance

    before = importance_of(history["d-planted"])
    propose(ctx, "deven", "Write cache ideas down", "it paid off", [history["d-planted"]])
    after = importance_of(history["d-planted"])
    assert after >= before + 0.6 - 1e-9
    hit = recall(ctx, PLANTED).hits[0]
    assert "cited by a principle" in hit.importance_reason


def test_tool_errors_count_towards_importance(ctx: Context, history: dict[str, str]) -> None:
    recall(ctx, "cache")
    sid = history["u-queue"]

    def add_error(conn: Any) -> None:
        conn.execute(
            insert(MESSAGE).values(
                session_id=sid,
                seq=99,
                key="err-1",
                role="tool",
                text="",
                tool_result="command failed",
                sidechain=False,
                synthetic=False,
                kind="tool_error",
                ruleset="test",
            )
        )

    ctx.store.write(add_error)
    hit = next(h for h in recall(ctx, "cache", limit=50).hits if h.session_id == sid)
    assert "1 tool errors" in hit.importance_reason


def test_a_changed_title_is_reindexed(ctx: Context, history: dict[str, str]) -> None:
    recall(ctx, "cache")
    sid = history["a-private"]
    ctx.store.write(
        lambda c: c.execute(
            update(SESSION).where(SESSION.c.id == sid).values(title="gyroscope review")
        )
    )
    recall_index.refresh(ctx)  # what the end of an import does
    assert recall(ctx, "gyroscope review").hits[0].kind == "title"
    assert all(h.session_id != sid or h.kind != "title" for h in recall(ctx, "alice checks").hits)


def test_messages_are_indexed_before_a_search_even_without_an_import(
    ctx: Context, history: dict[str, str]
) -> None:
    recall(ctx, "cache")
    sid = history["d-recent"]
    ctx.store.write(
        lambda c: c.execute(
            insert(MESSAGE).values(
                session_id=sid,
                seq=50,
                key="late-1",
                role="assistant",
                text="a late platypus",
                sidechain=False,
                synthetic=False,
                kind="text",
                ruleset="test",
            )
        )
    )
    assert ctx.store.read(recall_index.pending)
    assert recall(ctx, "platypus").hits[0].session_id == sid


def test_sqlite_index_passes_its_integrity_check(ctx: Context, history: dict[str, str]) -> None:
    if ctx.store.engine.dialect.name != "sqlite":
        pytest.skip("FTS5 is SQLite's")
    recall(ctx, "cache")
    for name in ("recall_message_fts", "recall_title_fts"):
        check = f"INSERT INTO {name}({name}) VALUES ('integrity-check')"
        ctx.store.write(functools.partial(Connection.exec_driver_sql, statement=check))


def test_a_burst_within_one_second_is_keyed_in_linear_time(ctx: Context) -> None:
    """A transcript line's blocks share their instant, so many messages fall in one
    second; each must get a unique key at or above its second without probing the
    same run of taken keys once per message (that was quadratic: minutes for 20,000)."""
    if ctx.store.engine.dialect.name != "sqlite":
        pytest.skip("the time-keyed index is SQLite's (PostgreSQL orders by message.at)")
    from datetime import UTC, datetime, timedelta

    from sqlalchemy import event

    from viva_store.recall.fts_keys import KEYS

    base = datetime(2026, 1, 1, tzinfo=UTC)
    n = 3000
    tokens = dict.fromkeys(
        ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens"), 0
    )
    session = {"id": "s-burst", "harness": "claude-code", "native_id": "burst", "models": [],
               "title_rank": 0, "message_count": n, "source_path": "/x", "imported_at": base,
               "updated_at": base, "started_at": base, "reasoning_tokens": 0, **tokens}  # fmt: skip
    messages = [
        {"session_id": "s-burst", "seq": i, "key": f"k{i}", "role": "assistant",
         "at": base + timedelta(seconds=i // 3), "text": f"burst word{i % 7}",
         "sidechain": False, "synthetic": False, "kind": "text", "ruleset": "1"}
        for i in range(n)
    ]  # fmt: skip

    def write(c: Any) -> None:
        c.execute(insert(SESSION), [session])
        c.execute(insert(MESSAGE), messages)

    ctx.store.write(write)
    statements: list[str] = []

    def count(*args: Any) -> None:
        statements.append(args[2])

    event.listen(ctx.store.engine, "before_cursor_execute", count)
    try:
        recall_index.refresh(ctx)
    finally:
        event.remove(ctx.store.engine, "before_cursor_execute", count)
    assert len(statements) < 200  # before the fix: ~2,000 collisions probing ~16 keys each
    rows = ctx.store.read(lambda c: c.exec_driver_sql(f"SELECT key, at_us FROM {KEYS}").all())
    assert len(rows) == n and len({key for key, _ in rows}) == n
    assert all(key >= at_us // 1_000_000 for key, at_us in rows)
    assert len(recall(ctx, "burst").hits) > 0
