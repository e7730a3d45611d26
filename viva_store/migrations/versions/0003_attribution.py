"""Attribution: execution records, classification events, the derived attribution.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from viva_store.db.guards import install_append_only

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "execution",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("member", sa.String(), sa.ForeignKey("member.name"), nullable=False),
        sa.Column("harness", sa.String(), nullable=False),
        sa.Column("cwd", sa.String(), nullable=False),
        sa.Column("task", sa.Text(), nullable=False),
        sa.Column("native_session_id", sa.String(), nullable=True),
        sa.Column("grant_id", sa.String(), nullable=True),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("ended_at", TS, nullable=True),
        sa.Column("outcome", sa.String(), nullable=True),
        sa.Column("exit_status", sa.Integer(), nullable=True),
    )
    op.create_index("ix_execution_member", "execution", ["member"])
    op.create_index("ix_execution_native_session_id", "execution", ["native_session_id"])
    op.create_table(
        "classification",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.String(), sa.ForeignKey("session.id"), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("member", sa.String(), sa.ForeignKey("member.name"), nullable=True),
        sa.Column("execution_id", sa.String(), sa.ForeignKey("execution.id"), nullable=True),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
    )
    op.create_index("ix_classification_session_id", "classification", ["session_id"])
    op.create_table(
        "attribution",
        sa.Column("session_id", sa.String(), sa.ForeignKey("session.id"), primary_key=True),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("member", sa.String(), nullable=True),
        sa.Column("source", sa.String(), nullable=False),
        sa.Column("classification_id", sa.Integer(), nullable=True),
        sa.Column("note", sa.Text(), nullable=False),
    )
    op.create_index("ix_attribution_member", "attribution", ["member"])
    install_append_only(op.get_bind(), "classification")
