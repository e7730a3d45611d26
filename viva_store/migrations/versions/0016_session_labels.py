"""Session labels and title overrides: an append-only log of what the owner (or the
session's member) wrote about a session.

``kind`` is ``label`` (a label added), ``unlabel`` (taken off) or ``title`` (the title
shown instead of the harness's; ``''``: the harness's again). The text is redacted
before it is stored and is re-checked by a redaction upgrade like every other log.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from viva_store.db.guards import guard_names, install_guards

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

REWRITABLE = {"session_label": ("text",)}
"""The text columns a redaction upgrade may rewrite, added by this revision."""


def upgrade() -> None:
    op.create_table(
        "session_label",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.String(), sa.ForeignKey("session.id"), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("text", sa.String(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False, server_default=""),
    )
    op.create_index("ix_session_label_session_id", "session_label", ["session_id"])
    install_guards(op.get_bind(), "session_label", REWRITABLE["session_label"])


def downgrade() -> None:
    conn = op.get_bind()
    if conn.dialect.name == "sqlite":
        for name in guard_names("session_label"):
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
    op.drop_table("session_label")
