"""Knowledge: curated items with provenance, and the append-only events of their lifecycle.

* ``knowledge_item``: one proposed item (content, scope, provenance, weight), never
  changed; a new wording is a new item that supersedes it.
* ``knowledge_event``: proposed, admitted, declined, used, retracted, superseded.
* ``knowledge_state``: each item's current status, uses and scope, derived from the two
  logs (rebuildable): what a task brief reads to decide what a task may see.

Both are append-only logs whose text the redaction upgrade may re-check.

Revision ID: 0017
Revises: 0015
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from viva_store.db.guards import guard_names, install_guards

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)
REWRITABLE = {  # the text columns a redaction upgrade may rewrite
    "knowledge_item": ("summary", "body", "evidence", "why"),
    "knowledge_event": ("reason",),
}


def upgrade() -> None:
    op.create_table(
        "knowledge_item",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("member", sa.String(), sa.ForeignKey("member.name"), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("project", sa.String(), nullable=True),
        sa.Column("domain", sa.String(), nullable=True),
        sa.Column("task_pattern", sa.String(), nullable=True),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("reason", sa.String(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("sources", sa.JSON(), nullable=False),
        sa.Column("importance", sa.Float(), nullable=False),
        sa.Column("why", sa.Text(), nullable=False),
        sa.Column("confidence", sa.Float(), nullable=True),
        sa.Column("occurred_at", TS, nullable=False),
        sa.Column("flags", sa.JSON(), nullable=False),
        sa.Column("proposed_by", sa.String(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False, server_default=""),
    )
    op.create_index("ix_knowledge_item_member", "knowledge_item", ["member"])
    op.create_index("ix_knowledge_item_project", "knowledge_item", ["project"])
    op.create_table(
        "knowledge_event",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("item_id", sa.String(), sa.ForeignKey("knowledge_item.id"), nullable=False),
        sa.Column("action", sa.String(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False, server_default=""),
        sa.Column("session_id", sa.String(), nullable=True),
        sa.Column("other_id", sa.String(), nullable=True),
        sa.Column("at", TS, nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False, server_default=""),
    )
    op.create_index("ix_knowledge_event_item_id", "knowledge_event", ["item_id"])
    op.create_table(
        "knowledge_state",
        sa.Column("item_id", sa.String(), sa.ForeignKey("knowledge_item.id"), primary_key=True),
        sa.Column("member", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("project", sa.String(), nullable=True),
        sa.Column("domain", sa.String(), nullable=True),
        sa.Column("task_pattern", sa.String(), nullable=True),
        sa.Column("summary", sa.Text(), nullable=False),
        sa.Column("importance", sa.Float(), nullable=False),
        sa.Column("status", sa.String(), nullable=False),
        sa.Column("uses", sa.Integer(), nullable=False),
    )
    conn = op.get_bind()
    for table, columns in REWRITABLE.items():
        install_guards(conn, table, columns)


def downgrade() -> None:
    conn = op.get_bind()
    op.drop_table("knowledge_state")
    for table in ("knowledge_event", "knowledge_item"):
        if conn.dialect.name == "sqlite":
            for name in guard_names(table):
                conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        else:
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS viva_ao_{table}_rows ON {table}")
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS viva_ao_{table}_truncate ON {table}")
        op.drop_table(table)
