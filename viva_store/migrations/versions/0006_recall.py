"""Recall and engagement state: full-text indexes, derived importance, state events.

The full-text objects are engine-specific (:mod:`viva_store.recall.fts`): on
SQLite, FTS5 external-content tables over ``message.text`` and the titles
kept in ``recall_session``; on PostgreSQL, GIN indexes over
``to_tsvector('simple', ...)`` of the same columns. Neither carries the
member: the scope is joined from ``attribution`` at query time, so
re-classifying a session never touches an index.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from viva_store.db.guards import install_append_only
from viva_store.recall import fts

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "recall_session",
        sa.Column("key", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.String(), sa.ForeignKey("session.id"), nullable=False),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("tool_errors", sa.Integer(), nullable=False),
        sa.Column("cited", sa.Boolean(), nullable=False),
        sa.Column("marked", sa.Float(), nullable=True),
        sa.Column("importance", sa.Float(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.UniqueConstraint("session_id", name="uq_recall_session_session_id"),
    )
    op.create_table(
        "recall_mark",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.String(), sa.ForeignKey("session.id"), nullable=False),
        sa.Column("importance", sa.Float(), nullable=True),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
    )
    op.create_index("ix_recall_mark_session_id", "recall_mark", ["session_id"])
    op.create_table(
        "recall_state",
        sa.Column("name", sa.String(), primary_key=True),
        sa.Column("value", sa.BigInteger(), nullable=False),
    )
    op.create_table(
        "engagement_event",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("member", sa.String(), sa.ForeignKey("member.name"), nullable=False),
        sa.Column("field", sa.String(), nullable=False),
        sa.Column("value", sa.Text(), nullable=True),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("corrects", sa.Integer(), nullable=True),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.Column("basis", sa.JSON(), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
    )
    op.create_index("ix_engagement_event_member", "engagement_event", ["member"])
    conn = op.get_bind()
    fts.install(conn)
    for table in ("recall_mark", "engagement_event"):
        install_append_only(conn, table)
