"""Import: a covering index for the skip decision of every run.

Each import starts by reading the fingerprint (harness, path, id, size,
mtime, inode) of every file it read before. The table rows also hold each
file's reader state (a few kilobytes of JSON), so scanning the table reads
all of that; this index holds just the fingerprint, and SQLite scans it
instead (the re-import of an unchanged history is little more than a
directory walk and this read). PostgreSQL does not need it: there the query
is a sequential scan of a table it keeps in its buffer cache.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30
"""

from __future__ import annotations

from alembic import op

revision = "0009"
down_revision = "0008"
branch_labels = None
depends_on = None

_COLUMNS = ["harness", "path", "id", "size", "mtime_ns", "inode"]


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.create_index("ix_source_file_scan", "source_file", _COLUMNS)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.drop_index("ix_source_file_scan", "source_file")
