"""Tool inputs and outputs in recall's index, on SQLite and PostgreSQL: a store indexed at
0017 finds them once migration 0018 ran, the query is served by the index, the redaction
upgrade re-indexes a rewritten tool field, and messages with nothing to index stay out."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from alembic import command
from sqlalchemy import Connection, insert, literal_column, select, text

from tests.redact.support import secret_of, survivors
from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.db import engine as db_engine
from viva_store.db.migrate import _alembic_config
from viva_store.db.schema import MESSAGE, SESSION
from viva_store.recall import fts_match
from viva_store.recall.search import recall
from viva_store.recheck.service import run_upgrade
from viva_store.redact import RULES_BY_ID
from viva_store.store import Context, Store

NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
SID = "s0000000000bb"
EDIT = json.dumps({"file_path": "src/a.py", "new_string": "first line\nnarwhal second"})
MESSAGES: list[dict[str, Any]] = [  # seq by position
    {"text": "the walrus plan", "kind": "text"},
    {"text": "", "kind": "tool_use", "tool": "Edit", "tool_input": "src/a.py", "tool_args": EDIT},
    {"text": "", "kind": "tool_result", "tool": "Edit", "tool_result": "beluga output"},
    {"text": "", "kind": "tool_error", "tool": "Bash", "tool_result": "orca failed"},
    {"text": "", "kind": "event"},  # nothing to index
]


def _at_0017(conn: Connection) -> None:
    cfg = _alembic_config()
    cfg.attributes["connection"] = conn
    command.upgrade(cfg, "0017")


def _old_store(conn: Connection) -> None:
    """One session of five messages, indexed as 0017 did: text only (SQLite: keyed by time,
    a watermark, the tool error counted once; an owner's mark)."""
    conn.execute(
        text(
            "INSERT INTO session (id, harness, native_id, models, started_at, title, title_rank, "
            "message_count, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, "
            "reasoning_tokens, source_path, imported_at, updated_at) VALUES (:id, 'claude-code', "
            "'n1', '[]', :t, 'old notes', 1, 5, 0, 0, 0, 0, 0, '/x', :t, :t)"
        ),
        {"id": SID, "t": NOW - timedelta(days=3)},
    )
    start = NOW - timedelta(days=3)
    for seq, fields in enumerate(MESSAGES):
        row = {"tool": None, "tool_input": None, "tool_args": None, "tool_result": None, **fields}
        conn.execute(
            insert(MESSAGE).values(
                session_id=SID,
                seq=seq,
                key=f"k{seq}",
                role="assistant",
                at=start + timedelta(minutes=seq),
                sidechain=False,
                synthetic=False,
                ruleset="old",
                **row,
            )
        )
    conn.execute(
        text(
            "INSERT INTO recall_session (session_id, title, message_count, tool_errors, cited, "
            "marked, importance, reason) VALUES (:s, 'old notes', 5, 1, false, 0.9, 0.9, 'marked')"
        ),
        {"s": SID},
    )
    top = conn.execute(text("SELECT max(id) FROM message")).scalar()
    conn.execute(text("INSERT INTO recall_state (name, value) VALUES ('messages', :v)"), {"v": top})
    if conn.dialect.name == "sqlite":
        conn.exec_driver_sql(
            "INSERT INTO recall_message (key, message_id, session_key, at_us) "
            "SELECT CAST(strftime('%s', m.at) AS INTEGER), m.id, rs.key, "
            "CAST(strftime('%s', m.at) AS INTEGER) * 1000000 FROM message m "
            "JOIN recall_session rs ON rs.session_id = m.session_id WHERE m.text != ''"
        )
        conn.exec_driver_sql(
            "INSERT INTO recall_message_fts(rowid, text) SELECT r.key, m.text "
            "FROM recall_message r JOIN message m ON m.id = r.message_id"
        )
        conn.exec_driver_sql(
            "INSERT INTO recall_title_fts(rowid, title) SELECT key, title FROM recall_session"
        )


def found(ctx: Context, word: str, order: str = "rank") -> list[tuple[str, int | None]]:
    return [(h.session_id, h.seq) for h in recall(ctx, word, order=order).hits]


def test_a_store_indexed_at_0017_finds_tool_fields_after_the_migration(
    config: Config, monkeypatch: Any
) -> None:
    monkeypatch.setenv("VIVA_NOW", NOW.isoformat())
    if config.is_sqlite:
        config.home.mkdir(parents=True, exist_ok=True)
    engine = db_engine.make_engine(config.db_url)
    db_engine.write(engine, _at_0017)
    db_engine.write(engine, _old_store)
    engine.dispose()

    store = Store.open(config)  # the normal path: applies 0018
    try:
        ctx = Context(store, OWNER)
        for order in ("rank", "newest"):
            assert found(ctx, "narwhal", order) == [(SID, 1)]  # after a line break in JSON
            assert found(ctx, "beluga", order) == [(SID, 2)]
            assert found(ctx, "orca", order) == [(SID, 3)]
            assert found(ctx, "walrus", order) == [(SID, 0)]
        (hit,) = recall(ctx, "narwhal").hits
        assert hit.snippet == "Edit src/a.py: first line narwhal second"
        row: Any = store.read(
            lambda c: c.execute(
                text("SELECT tool_errors, marked FROM recall_session WHERE session_id = :s"),
                {"s": SID},
            ).one()
        )
        assert (row.tool_errors, row.marked) == (1, 0.9)
        if config.is_sqlite:  # the message with nothing in it stays out of the index
            keyed = store.read(lambda c: c.exec_driver_sql("SELECT count(*) FROM recall_message"))
            assert keyed.scalar() == len(MESSAGES) - 1
        else:
            indexdef = store.read(
                lambda c: c.exec_driver_sql(
                    "SELECT indexdef FROM pg_indexes WHERE indexname = 'ix_message_text_fts'"
                ).scalar()
            )
            assert "tool_args" in str(indexdef) and "tool_result" in str(indexdef)
    finally:
        store.close()


def test_the_query_is_served_by_the_message_index(
    recall_history: dict[str, str], ctx: Context
) -> None:
    """The match recall runs reads the index (on PostgreSQL: the GIN index over the very
    expression of migration 0018, not a scan recomputing it)."""
    dialect = ctx.store.engine.dialect.name
    match = fts_match.MessageMatch(dialect, 0, False)
    params = fts_match.match_params(dialect, ("cache",), False)
    query = select(literal_column("1")).select_from(match.source).where(match.condition)
    compiled = query.compile(dialect=ctx.store.engine.dialect)

    def plan(conn: Connection) -> str:
        values = compiled.construct_params(params)
        if dialect == "sqlite":
            ordered = tuple(values[name] for name in compiled.positiontup or ())
            rows = conn.exec_driver_sql(f"EXPLAIN QUERY PLAN {compiled}", ordered)
            return " ".join(str(r[-1]) for r in rows)
        conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
        rows = conn.exec_driver_sql(f"EXPLAIN {compiled}", values)
        return " ".join(str(r[0]) for r in rows)

    shown = ctx.store.read(plan)
    expected = "VIRTUAL TABLE INDEX" if dialect == "sqlite" else "ix_message_text_fts"
    assert expected in shown, shown


WORD = "okapimarsh"


def test_the_redaction_upgrade_reindexes_a_rewritten_tool_input(
    recall_history: dict[str, str], ctx: Context
) -> None:
    secret = secret_of(RULES_BY_ID["github-pat"])

    def plant(conn: Connection) -> None:
        session_id = conn.execute(select(SESSION.c.id).order_by(SESSION.c.id).limit(1)).scalar()
        args = json.dumps({"command": f"{WORD} --token {secret}"})
        conn.execute(
            insert(MESSAGE).values(
                session_id=session_id,
                seq=10_000,
                key="planted-tool",
                role="assistant",
                at=NOW - timedelta(days=2),
                text="",
                tool="Bash",
                tool_input=f"{WORD} --token",
                tool_args=args,
                tool_result=f"pushed with {secret}",
                kind="tool_use",
                ruleset="0",  # a rule set that did not know the secret's rule
            )
        )

    ctx.store.write(plant)
    assert recall(ctx, WORD).hits, "the planted tool call is indexed before the upgrade"
    run_upgrade(ctx, by="the owner")
    (hit,) = recall(ctx, WORD).hits
    assert "[REDACTED:github-pat]" in hit.snippet and survivors(secret, hit.snippet) == []
    rewritten = recall(ctx, f"{WORD} redacted")  # the new words are indexed: every word
    assert rewritten.matched == "all" and [h.seq for h in rewritten.hits] == [10_000]
    if ctx.store.engine.dialect.name == "sqlite":  # the contentless index forgot the old words
        assert recall(ctx, secret.split("_", 1)[1]).hits == ()
        ctx.store.write(
            lambda c: c.exec_driver_sql(
                "INSERT INTO recall_message_fts(recall_message_fts, rank) "
                "VALUES ('integrity-check', 0)"
            )
        )
