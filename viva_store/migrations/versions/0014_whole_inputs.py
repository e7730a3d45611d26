"""Import: whole tool inputs, paths kept without their secrets, copies of a session linked.

* ``message.tool_args``: a tool call's whole input as JSON text (redacted); the
  one-line ``tool_input`` stays as what a list shows.
* ``source_file.path`` holds the redacted path; ``path_key`` finds the file again:
  the path itself when redaction leaves it unchanged, else a digest of the real path
  keyed with the store's own ``path_digest_key`` (in ``store_meta``). The unique key
  and SQLite's covering index of the skip decision move to ``path_key``.
* ``source_file.tail_state``: whether the last read withheld an unterminated last
  line (``waiting``) or examined one that is not complete JSON (``kept``).
* ``usage_copy``: another session whose file also holds a model response (a resumed
  copy of a session under a new id); the ``usage`` row names the session that had it
  first.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from __future__ import annotations

import secrets

import sqlalchemy as sa
from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None

_OLD_SCAN = ["harness", "path", "id", "size", "mtime_ns", "inode"]
_NEW_SCAN = ["harness", "path_key", "id", "size", "mtime_ns", "inode", "tail_state"]


def upgrade() -> None:
    conn = op.get_bind()
    sqlite = conn.dialect.name == "sqlite"
    op.add_column("message", sa.Column("tool_args", sa.Text(), nullable=True))
    if sqlite:
        op.drop_index("ix_source_file_scan", "source_file")
    with op.batch_alter_table("source_file") as batch:
        batch.add_column(sa.Column("path_key", sa.String(), nullable=True))
        batch.add_column(sa.Column("tail_state", sa.String(), nullable=False, server_default=""))
    op.execute("UPDATE source_file SET path_key = path")
    with op.batch_alter_table("source_file") as batch:
        batch.alter_column("path_key", existing_type=sa.String(), nullable=False)
        batch.drop_constraint("uq_source_file_harness_path", type_="unique")
        batch.create_unique_constraint("uq_source_file_harness_key", ["harness", "path_key"])
    if sqlite:
        op.create_index("ix_source_file_scan", "source_file", _NEW_SCAN)
    op.create_table(
        "usage_copy",
        sa.Column("harness", sa.String(), primary_key=True),
        sa.Column("usage_key", sa.String(), primary_key=True),
        sa.Column("session_id", sa.String(), sa.ForeignKey("session.id"), primary_key=True),
    )
    op.create_index("ix_usage_copy_session_id", "usage_copy", ["session_id"])
    meta = sa.table("store_meta", sa.column("key", sa.String()), sa.column("value", sa.Text()))
    op.bulk_insert(meta, [{"key": "path_digest_key", "value": secrets.token_hex(32)}])


def downgrade() -> None:
    conn = op.get_bind()
    sqlite = conn.dialect.name == "sqlite"
    op.execute("DELETE FROM store_meta WHERE key = 'path_digest_key'")
    op.drop_index("ix_usage_copy_session_id", "usage_copy")
    op.drop_table("usage_copy")
    if sqlite:
        op.drop_index("ix_source_file_scan", "source_file")
    with op.batch_alter_table("source_file") as batch:
        batch.drop_constraint("uq_source_file_harness_key", type_="unique")
        batch.create_unique_constraint("uq_source_file_harness_path", ["harness", "path"])
        batch.drop_column("tail_state")
        batch.drop_column("path_key")
    if sqlite:
        op.create_index("ix_source_file_scan", "source_file", _OLD_SCAN)
    # In place (SQLite >= 3.35): rebuilding the table would drop its append-only and
    # search-index triggers.
    op.execute("ALTER TABLE message DROP COLUMN tool_args")
