"""Recall newest-first: an index on ``message.at``.

Recall's newest-first search (the Timeline's) walks this index from the
newest message down and stops as soon as it has enough hits, instead of
sorting every match by time: the difference between milliseconds and a
scan when a search word is common.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_message_at", "message", ["at"])
