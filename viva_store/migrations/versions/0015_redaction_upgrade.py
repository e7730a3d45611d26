"""Redaction upgrades: re-checkable records, the permit the guards admit, REPLACE refused.

* Every append-only table that holds text remembers the rule-set version that
  redacted each row (``ruleset``; ``''`` for rows stored before: older than any).
* ``redact_permit``: the row the upgrade writes, and removes, in the transaction that
  rewrites a table's text; ``redaction_upgrade``: one event per such transaction;
  ``redaction.record`` names the record a hit was found in when no other column does.
* The guards of every append-only table are replaced (:func:`install_guards`): on
  SQLite a ``BEFORE INSERT`` trigger refuses an existing key, so REPLACE cannot
  rewrite history whatever the connection's pragmas; on both engines the update
  guard admits the redaction upgrade and nothing else.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from viva_store.db.guards import (
    guard_names,
    install_append_only,
    install_guards,
    install_row_guard_function,
)

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)
NEWLY_VERSIONED = (
    "import_run",
    "classification",
    "principle_version",
    "principle_event",
    "principle_batch",
    "recall_mark",
    "engagement_event",
)
REWRITABLE = {  # the text columns a redaction upgrade may rewrite, as of this revision
    "message": ("text", "tool_input", "tool_result", "raw"),
    "quarantine": ("path", "reason", "raw"),
    "import_run": ("problems",),
    "classification": ("note",),
    "principle_version": ("text", "rationale"),
    "principle_event": ("text", "reason", "basis"),
    "principle_batch": ("summary", "candidates"),
    "recall_mark": ("note",),
    "engagement_event": ("value", "note", "basis"),
}
GUARDED = (  # every append-only table as of this revision
    "grant_revocation",
    "message",
    "quarantine",
    "redaction",
    "import_run",
    "classification",
    "skill_event",
    "principle_version",
    "principle_event",
    "principle_batch",
    "recall_mark",
    "engagement_event",
    "redaction_upgrade",
)


def upgrade() -> None:
    conn = op.get_bind()
    for table in NEWLY_VERSIONED:
        op.add_column(table, sa.Column("ruleset", sa.String(), nullable=False, server_default=""))
    op.add_column("redaction", sa.Column("record", sa.String(), nullable=True))
    op.create_table(
        "redact_permit",
        sa.Column("table_name", sa.String(), primary_key=True),
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("txid", sa.BigInteger(), nullable=True),
    )
    op.create_table(
        "redaction_upgrade",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("table_name", sa.String(), nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("checked", sa.Integer(), nullable=False),
        sa.Column("changed", sa.Integer(), nullable=False),
        sa.Column("redactions", sa.Integer(), nullable=False),
        sa.Column("actor", sa.String(), nullable=False),
        sa.Column("at", TS, nullable=False),
    )
    op.create_index("ix_redaction_upgrade_run_id", "redaction_upgrade", ["run_id"])
    install_row_guard_function(conn)
    for table in GUARDED:
        install_guards(conn, table, REWRITABLE.get(table, ()))


def downgrade() -> None:
    conn = op.get_bind()
    for table in GUARDED:
        if conn.dialect.name == "sqlite":
            for name in guard_names(table):
                conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS {name}")
        else:
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS viva_ao_{table}_rows ON {table}")
            conn.exec_driver_sql(f"DROP TRIGGER IF EXISTS viva_ao_{table}_truncate ON {table}")
    op.drop_table("redaction_upgrade")
    op.drop_table("redact_permit")
    with op.batch_alter_table("redaction") as batch:
        batch.drop_column("record")
    for table in NEWLY_VERSIONED:
        with op.batch_alter_table(table) as batch:
            batch.drop_column("ruleset")
    if conn.dialect.name == "postgresql":
        conn.exec_driver_sql("DROP FUNCTION IF EXISTS viva_append_only_rows()")
    for table in GUARDED[:-1]:
        install_append_only(conn, table)
