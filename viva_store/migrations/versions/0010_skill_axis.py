"""Skills: each member's session axis kept as rows (``skill_axis``); an index of the
control events.

A rebuild of the weights needs the ordinal of every session on a member's axis.
Computed on the fly it is a window over all attributed sessions, which
PostgreSQL runs single-threaded and which kept the rebuild's join with the
skill event log out of a parallel plan. The table holds the ordinals; it is
refreshed wherever attribution changes (the weights are rebuilt right after,
from it). Filled here from the current attribution.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


_CONTROL = sa.text(
    "kind IN ('added', 'synced', 'reclaimed', 'revalued', 'track_changed', 'forgotten')"
)


def upgrade() -> None:
    op.create_table(
        "skill_axis",
        sa.Column("member", sa.String(), primary_key=True),
        sa.Column("session_id", sa.String(), primary_key=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("ordinal", sa.Integer(), nullable=False),
    )
    # Counts and probes by start time (a position at an instant, later sessions).
    op.create_index("ix_skill_axis_start", "skill_axis", ["member", "started_at", "session_id"])
    if op.get_bind().dialect.name == "postgresql":
        # The table is small next to the log (100,000 sessions are a few MB, under
        # min_parallel_table_scan_size): without this PostgreSQL never scans it in
        # parallel, so each worker of the rebuild's join builds the whole hash table
        # instead of sharing one (Parallel Hash).
        op.execute("ALTER TABLE skill_axis SET (parallel_workers = 4)")
    # The rebuild reads the control events (entries, corrections, track changes, forgets:
    # a few per pair) apart from the uses; this index holds just them.
    op.create_index(
        "ix_skill_event_control",
        "skill_event",
        ["member", "skill", "id"],
        postgresql_where=_CONTROL,
        sqlite_where=_CONTROL,
    )
    op.execute(
        "INSERT INTO skill_axis (member, session_id, started_at, ordinal) "
        "SELECT attribution.member, session.id, session.started_at, row_number() OVER "
        "(PARTITION BY attribution.member ORDER BY session.started_at, session.id) "
        "FROM attribution JOIN session ON session.id = attribution.session_id "
        "WHERE attribution.status = 'attributed' AND session.started_at IS NOT NULL "
        "AND (session.relation IS NULL OR session.relation != 'subagent')"
    )


def downgrade() -> None:
    op.drop_index("ix_skill_event_control", "skill_event")
    op.drop_index("ix_skill_axis_start", "skill_axis")
    op.drop_table("skill_axis")
