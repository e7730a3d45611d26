"""Recovered sessions: source files, sessions, messages, usage, quarantine, redactions, runs.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from viva_store.db.guards import install_append_only

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "source_file",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("harness", sa.String(), nullable=False),
        sa.Column("path", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("size", sa.BigInteger(), nullable=False),
        sa.Column("mtime_ns", sa.BigInteger(), nullable=False),
        sa.Column("inode", sa.BigInteger(), nullable=False),
        sa.Column("byte_offset", sa.BigInteger(), nullable=False),
        sa.Column("lines", sa.Integer(), nullable=False),
        sa.Column("last_line_length", sa.Integer(), nullable=False),
        sa.Column("last_line_digest", sa.String(), nullable=False),
        sa.Column("reader_state", sa.JSON(), nullable=False),
        sa.Column("file_mtime", TS, nullable=False),
        sa.Column("first_seen_at", TS, nullable=False),
        sa.Column("imported_at", TS, nullable=False),
        sa.UniqueConstraint("harness", "path", name="uq_source_file_harness_path"),
    )
    op.create_table(
        "session",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("harness", sa.String(), nullable=False),
        sa.Column("native_id", sa.String(), nullable=False),
        sa.Column("parent_native_id", sa.String(), nullable=True),
        sa.Column("relation", sa.String(), nullable=True),
        sa.Column("project", sa.String(), nullable=True),
        sa.Column("cwd", sa.String(), nullable=True),
        sa.Column("git_branch", sa.String(), nullable=True),
        sa.Column("models", sa.JSON(), nullable=False),
        sa.Column("started_at", TS, nullable=True),
        sa.Column("ended_at", TS, nullable=True),
        sa.Column("title", sa.Text(), nullable=True),
        sa.Column("title_rank", sa.Integer(), nullable=False),
        sa.Column("entrypoint", sa.String(), nullable=True),
        sa.Column("originator", sa.String(), nullable=True),
        sa.Column("message_count", sa.Integer(), nullable=False),
        sa.Column("input_tokens", sa.BigInteger(), nullable=False),
        sa.Column("output_tokens", sa.BigInteger(), nullable=False),
        sa.Column("cache_read_tokens", sa.BigInteger(), nullable=False),
        sa.Column("cache_write_tokens", sa.BigInteger(), nullable=False),
        sa.Column("reasoning_tokens", sa.BigInteger(), nullable=False),
        sa.Column("source_path", sa.String(), nullable=False),
        sa.Column("imported_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.UniqueConstraint("harness", "native_id", name="uq_session_harness_native"),
    )
    op.create_index("ix_session_started_at", "session", ["started_at"])
    op.create_index("ix_session_native_id", "session", ["native_id"])
    op.create_table(
        "message",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("session_id", sa.String(), sa.ForeignKey("session.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("at", TS, nullable=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("tool", sa.String(), nullable=True),
        sa.Column("tool_input", sa.Text(), nullable=True),
        sa.Column("tool_result", sa.Text(), nullable=True),
        sa.Column("sidechain", sa.Boolean(), nullable=False),
        sa.Column("synthetic", sa.Boolean(), nullable=False),
        sa.Column("model", sa.String(), nullable=True),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("raw", sa.JSON(), nullable=True),
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.UniqueConstraint("session_id", "key", name="uq_message_session_key"),
    )
    op.create_index("ix_message_session_seq", "message", ["session_id", "seq"])
    op.create_table(
        "usage",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("harness", sa.String(), nullable=False),
        sa.Column("usage_key", sa.String(), nullable=False),
        sa.Column("session_id", sa.String(), sa.ForeignKey("session.id"), nullable=False),
        sa.Column("input_tokens", sa.BigInteger(), nullable=False),
        sa.Column("output_tokens", sa.BigInteger(), nullable=False),
        sa.Column("cache_read_tokens", sa.BigInteger(), nullable=False),
        sa.Column("cache_write_tokens", sa.BigInteger(), nullable=False),
        sa.Column("reasoning_tokens", sa.BigInteger(), nullable=False),
        sa.Column("model", sa.String(), nullable=True),
        sa.UniqueConstraint("harness", "usage_key", name="uq_usage_harness_key"),
    )
    op.create_index("ix_usage_session_id", "usage", ["session_id"])
    op.create_table(
        "quarantine",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("harness", sa.String(), nullable=False),
        sa.Column("path", sa.String(), nullable=False),
        sa.Column("line", sa.Integer(), nullable=True),
        sa.Column("byte_offset", sa.BigInteger(), nullable=True),
        sa.Column("length", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("raw", sa.Text(), nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False),
        sa.Column("at", TS, nullable=False),
    )
    op.create_table(
        "redaction",
        sa.Column("id", sa.Integer(), primary_key=True, autoincrement=True),
        sa.Column("run_id", sa.String(), nullable=False),
        sa.Column("session_id", sa.String(), nullable=True),
        sa.Column("message_key", sa.String(), nullable=True),
        sa.Column("quarantine_id", sa.Integer(), nullable=True),
        sa.Column("field", sa.String(), nullable=False),
        sa.Column("rule", sa.String(), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("ruleset", sa.String(), nullable=False),
    )
    op.create_table(
        "import_run",
        sa.Column("id", sa.String(), primary_key=True),
        sa.Column("started_at", TS, nullable=False),
        sa.Column("finished_at", TS, nullable=False),
        sa.Column("harnesses", sa.JSON(), nullable=False),
        sa.Column("counts", sa.JSON(), nullable=False),
        sa.Column("problems", sa.JSON(), nullable=False),
    )
    conn = op.get_bind()
    for table in ("message", "quarantine", "redaction", "import_run"):
        install_append_only(conn, table)
