"""Recall: the SQLite message index keyed by time; PostgreSQL: scope and window indexes.

SQLite: the external-content message index (rowid = message id) is replaced
by a contentless one whose rowid is a time key, mapped to messages by
``recall_message`` (:mod:`viva_store.recall.fts_keys`): newest-first searches
read the first hits of the index and stop, and ranking reads a narrow map
row per match instead of the message row. ``ix_message_at`` is dropped
there (nothing walks it any more). The index is derived data: the
watermark goes back to zero and the next search (or refresh) builds it
again; per-session tool-error counts are recounted with it. The title
index, the owner's marks and importance are kept.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

from viva_store.recall import fts_keys

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None


def upgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name != "sqlite":
        return
    fts_keys.install(conn)
    op.drop_index("ix_message_at", "message")
    conn.exec_driver_sql("UPDATE recall_session SET tool_errors = 0")
    conn.exec_driver_sql("DELETE FROM recall_state WHERE name = 'messages'")
