"""Skills: on PostgreSQL, a covering index of the uses for the weight rebuild.

A rebuild aggregates the credited uses (a fifth of the log in a typical store) joined
with the session axis. Read from the table, that is a scan of every event's row;
this partial index holds just the uses, with every column the aggregate reads, so
PostgreSQL reads them by a parallel index-only scan — a quarter of the time of the
scan, once vacuum has marked the table's pages all-visible (autovacuum does for an
append-only table; until then the planner keeps the scan). SQLite rebuilds fast enough
by its scan, and a use there is on the clock: it gets no second index to maintain.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

NAME = "ix_skill_event_uses"


def upgrade() -> None:
    if op.get_bind().dialect.name != "postgresql":
        return
    op.create_index(
        NAME,
        "skill_event",
        ["member", "skill", "session_id"],
        postgresql_include=["value", "day", "id"],
        postgresql_where=sa.text("kind = 'used'"),
    )


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_index(NAME, "skill_event")
