"""Skill sets: the append-only skill event log, the member_skill cache, store facts.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from viva_store.clock import now
from viva_store.db.guards import install_append_only

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    meta = op.create_table(
        "store_meta",
        sa.Column("key", sa.String(), primary_key=True),
        sa.Column("value", sa.Text(), nullable=False),
    )
    # The store's birth starts the forgetting trial month. A store that existed
    # before this migration is dated by its first loaded member.
    conn = op.get_bind()
    first = conn.execute(sa.text("SELECT min(loaded_at) FROM member")).scalar()
    created = first if isinstance(first, str) else (first or now()).isoformat()
    op.bulk_insert(meta, [{"key": "created_at", "value": str(created)}])
    op.create_table(
        "skill_event",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("member", sa.String(), sa.ForeignKey("member.name"), nullable=False),
        sa.Column("skill", sa.String(), sa.ForeignKey("skill.name"), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("value", sa.Float(), nullable=True),
        sa.Column("outcome", sa.String(), nullable=True),
        sa.Column("session_id", sa.String(), nullable=True),
        sa.Column("execution_id", sa.String(), nullable=True),
        sa.Column("target_id", sa.Integer(), nullable=True),
        sa.Column("track", sa.String(), nullable=True),
        sa.Column("session_pos", sa.Float(), nullable=False),
        sa.Column("day", sa.Float(), nullable=False),
        sa.Column("at", TS, nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("basis", sa.JSON(), nullable=True),
    )
    op.create_index("ix_skill_event_member_skill", "skill_event", ["member", "skill", "id"])
    op.create_index("ix_skill_event_at", "skill_event", ["at"])
    op.create_table(
        "member_skill",
        sa.Column("member", sa.String(), sa.ForeignKey("member.name"), primary_key=True),
        sa.Column("skill", sa.String(), sa.ForeignKey("skill.name"), primary_key=True),
        sa.Column("track", sa.String(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("native", sa.Boolean(), nullable=False),
        sa.Column("w_ref", sa.Float(), nullable=False),
        sa.Column("a_ref", sa.Float(), nullable=False),
        sa.Column("epoch_seq", sa.Integer(), nullable=True),
        sa.Column("last_seq", sa.Integer(), nullable=True),
        sa.Column("uses", sa.Integer(), nullable=False),
        sa.Column("entered_pos", sa.Float(), nullable=False),
        sa.Column("entered_day", sa.Float(), nullable=False),
        sa.Column("last_used_at", TS, nullable=True),
        sa.Column("updated_at", TS, nullable=False),
    )
    install_append_only(conn, "skill_event")
