"""Members, the team skill library, grants.

Revision ID: 0001
Revises:
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from viva_store.db.guards import install_append_only, install_guard_function

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    conn = op.get_bind()
    install_guard_function(conn)
    op.create_table(
        "member",
        sa.Column("name", sa.String(), primary_key=True),
        sa.Column("display_name", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("engine", sa.String(), nullable=False),
        sa.Column("harnesses", sa.JSON(), nullable=False),
        sa.Column("tools", sa.JSON(), nullable=False),
        sa.Column("coordinator", sa.Boolean(), nullable=False),
        sa.Column("soul", sa.Text(), nullable=False),
        sa.Column("native_skills", sa.JSON(), nullable=False),
        sa.Column("source_path", sa.String(), nullable=False),
        sa.Column("loaded_at", TS, nullable=False),
    )
    op.create_table(
        "skill",
        sa.Column("name", sa.String(), primary_key=True),
        sa.Column("description", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("tags", sa.JSON(), nullable=False),
        sa.Column("source_path", sa.String(), nullable=False),
        sa.Column("derived_from", sa.String(), sa.ForeignKey("skill.name"), nullable=True),
        sa.Column("digest", sa.String(), nullable=False),
        sa.Column("added_at", TS, nullable=False),
    )
    op.create_table(
        "member_grant",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("member", sa.String(), sa.ForeignKey("member.name"), nullable=False),
        sa.Column("token_hash", sa.String(), nullable=False, unique=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("expires_at", TS, nullable=True),
        sa.Column("note", sa.String(), nullable=False),
    )
    op.create_index("ix_member_grant_member", "member_grant", ["member"])
    op.create_table(
        "grant_revocation",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("grant_id", sa.String(), sa.ForeignKey("member_grant.id"), nullable=False),
        sa.Column("revoked_at", TS, nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
    )
    op.create_index("ix_grant_revocation_grant_id", "grant_revocation", ["grant_id"])
    install_append_only(conn, "grant_revocation")
