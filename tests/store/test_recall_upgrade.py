"""A store indexed before migration 0008 upgrades through the normal open path and searches.

The store is built at revision 0007 with a session, its messages and recall's
derived rows as that version left them (on SQLite: the message index keyed by
message id, a watermark, a tool-error count, an owner's mark); opening it with
``Store.open`` applies 0008, and the next search finds every message, newest
first too, with the tool errors counted once and the mark kept.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Connection, text

from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.db import engine as db_engine
from viva_store.db.migrate import _alembic_config
from viva_store.recall.search import recall
from viva_store.store import Context, Store

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
SID = "s0000000000aa"


def _at_0007(conn: Connection) -> None:
    cfg = _alembic_config()
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, "0007")


def _old_store(conn: Connection) -> None:
    """One session of four messages (one a tool error), indexed as 0007 did."""
    conn.execute(
        text(
            "INSERT INTO session (id, harness, native_id, models, started_at, title, title_rank, "
            "message_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, "
            "reasoning_tokens, source_path, imported_at, updated_at) VALUES (:id, 'codex', "
            "'n1', '[]', :t, 'old notes', 1, 4, 0, 0, 0, 0, 0, '/x', :t, :t)"
        ),
        {"id": SID, "t": NOW - timedelta(days=3)},
    )
    texts = ["the walrus plan", "", "walrus error output", "later walrus notes"]
    for seq, body in enumerate(texts):
        conn.execute(
            text(
                "INSERT INTO message (session_id, seq, key, role, at, text, sidechain, "
                "synthetic, kind, ruleset) VALUES (:s, :q, :k, 'assistant', :at, :body, "
                "false, false, :kind, 'old')"
            ),
            {
                "s": SID,
                "q": seq,
                "k": f"k{seq}",
                "at": NOW - timedelta(days=3, minutes=-seq),
                "body": body,
                "kind": "tool_error" if seq == 2 else "text",
            },
        )
    conn.execute(
        text(
            "INSERT INTO recall_session (session_id, title, message_count, tool_errors, cited, "
            "marked, importance, reason) VALUES (:s, 'old notes', 4, 1, false, 0.9, 0.9, 'marked')"
        ),
        {"s": SID},
    )
    top = conn.execute(text("SELECT max(id) FROM message")).scalar()
    conn.execute(text("INSERT INTO recall_state (name, value) VALUES ('messages', :v)"), {"v": top})
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(
            "INSERT INTO recall_message_fts(rowid, text) SELECT id, text FROM message "
            "WHERE text != ''"
        )
        conn.exec_driver_sql(
            "INSERT INTO recall_title_fts(rowid, title) SELECT key, title FROM recall_session"
        )


def test_a_store_indexed_before_0008_upgrades_and_searches(
    config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("VIVA_NOW", NOW.isoformat())
    if config.is_sqlite:
        config.home.mkdir(parents=True, exist_ok=True)
    engine = db_engine.make_engine(config.db_url)
    db_engine.write(engine, _at_0007)
    db_engine.write(engine, _old_store)
    engine.dispose()

    store = Store.open(config)  # the normal path: applies 0008
    try:
        ctx = Context(store, OWNER)
        hits = recall(ctx, "walrus", order="newest").hits
        assert [(h.session_id, h.seq) for h in hits] == [(SID, 3)]
        ranked = recall(ctx, "walrus plan").hits[0]
        assert (ranked.session_id, ranked.seq) == (SID, 0)
        assert recall(ctx, "old notes").hits[0].kind in ("title", "message")
        row: Any = store.read(
            lambda c: c.execute(
                text("SELECT tool_errors, marked FROM recall_session WHERE session_id = :s"),
                {"s": SID},
            ).one()
        )
        assert (row.tool_errors, row.marked) == (1, 0.9)
    finally:
        store.close()
