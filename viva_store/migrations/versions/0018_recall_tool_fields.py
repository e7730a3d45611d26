"""Recall: a message's tool input and tool output are searched, beside its text.

What a message's index entry holds becomes its text, its tool call's whole input
(``tool_args``, JSON whose ``\\n``, ``\\r``, ``\\t`` escapes read as spaces) and its tool
output (``tool_result``), the first 100,000 characters of each of the two
(:func:`viva_store.recall.fts.document`).

SQLite: the message index and its time-key map are emptied and the watermark goes back
to zero, as 0008 did: the next search (or refresh) builds them again in bulk — one pass,
cheaper than re-indexing row by row the messages whose entry changes (most of them: tool
calls and outputs were not indexed at all). Tool-error counts are recounted with it;
titles, marks and importance are kept.

PostgreSQL: the GIN expression index is replaced by one over the new expression, which
the query states identically so the planner uses it.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""

from __future__ import annotations

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None

_FTS = (
    "CREATE VIRTUAL TABLE recall_message_fts USING fts5(text, content='', detail=none, "
    "tokenize='unicode61 remove_diacritics 2')"
)
_ARGS = "substr(coalesce(tool_args, ''), 1, 100000)"
_UNESCAPED = f"replace(replace(replace({_ARGS}, '\\n', ' '), '\\r', ' '), '\\t', ' ')"
_DOCUMENT = f"text || ' ' || {_UNESCAPED} || ' ' || substr(coalesce(tool_result, ''), 1, 100000)"


def _sqlite_reset() -> None:
    """The message index empty and unwatermarked: the next search builds it."""
    conn = op.get_bind()
    conn.exec_driver_sql("DELETE FROM recall_message")
    conn.exec_driver_sql("DROP TABLE recall_message_fts")
    conn.exec_driver_sql(_FTS)
    conn.exec_driver_sql("UPDATE recall_session SET tool_errors = 0")
    conn.exec_driver_sql("DELETE FROM recall_state WHERE name = 'messages'")


def _pg_index(expression: str) -> None:
    conn = op.get_bind()
    conn.exec_driver_sql("DROP INDEX IF EXISTS ix_message_text_fts")
    conn.exec_driver_sql(
        "CREATE INDEX ix_message_text_fts ON message "
        f"USING gin (to_tsvector('simple'::regconfig, ({expression})))"
    )


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_reset()
    else:
        _pg_index(_DOCUMENT)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_reset()  # the older code rebuilds it from the texts alone
    else:
        _pg_index("text")
