"""Principles: norms with versions, decision events, weekly batches.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from viva_store.db.guards import install_append_only

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "principle",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("member", sa.String(), sa.ForeignKey("member.name"), nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_principle_member", "principle", ["member"])
    op.create_table(
        "principle_version",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("principle_id", sa.String(), sa.ForeignKey("principle.id"), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("rationale", sa.Text(), nullable=False),
        sa.Column("evidence", sa.JSON(), nullable=False),
        sa.Column("proposed_by", sa.String(), nullable=False),
        sa.Column("week", sa.String(), nullable=False),
        sa.Column("replaces_version", sa.Integer(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.UniqueConstraint("principle_id", "version", name="uq_principle_version"),
    )
    op.create_index("ix_principle_version_principle_id", "principle_version", ["principle_id"])
    op.create_table(
        "principle_event",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("principle_id", sa.String(), sa.ForeignKey("principle.id"), nullable=False),
        sa.Column("version_id", sa.String(), sa.ForeignKey("principle_version.id"), nullable=True),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("text", sa.Text(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("batch_id", sa.String(), nullable=True),
        sa.Column("at", TS, nullable=False),
        sa.Column("basis", sa.JSON(), nullable=True),
    )
    op.create_index("ix_principle_event_principle_id", "principle_event", ["principle_id"])
    op.create_table(
        "principle_batch",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("week", sa.String(), nullable=False),
        sa.Column("created_by", sa.String(), nullable=False),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("candidates", sa.JSON(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
    )
    op.create_index("ix_principle_batch_week", "principle_batch", ["week"])
    conn = op.get_bind()
    for table in ("principle_version", "principle_event", "principle_batch"):
        install_append_only(conn, table)
