"""Every table Viva has, in one place, as SQLAlchemy Core tables.

Only the migrations (``viva_store/migrations``) create and change them; these definitions
must match what the migrations build (``tests/store/test_store.py`` compares them).
:data:`APPEND_ONLY` lists the logs, whose rows are never updated or deleted (DESIGN I3) but
by the redaction upgrade; their guards are triggers (:mod:`viva_store.db.guards`).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
)

METADATA = MetaData()
INSTANT = DateTime(timezone=True)
"""Every instant Viva stores is timezone-aware (UTC)."""


_APPEND_ONLY: list[str] = []


def _table(name: str, *columns: Column[Any]) -> Table:
    return Table(name, METADATA, *columns)


def _append_only(name: str, *columns: Column[Any]) -> Table:
    """A log: a table whose rows are never updated or deleted (listed in :data:`APPEND_ONLY`)."""
    _APPEND_ONLY.append(name)
    return _table(name, *columns)


def _versioned(name: str, *columns: Column[Any]) -> Table:
    """A log whose rows remember the rule-set version that redacted them (``''``: unknown)."""
    return _append_only(name, *columns, Column("ruleset", String, nullable=False, default=""))


# --- members: identity, grants, launches ---------------------------------------------
MEMBER = _table(  # identity, from members/<name>/member.yaml and soul.md
    "member",
    Column("name", String, primary_key=True),
    Column("display_name", String, nullable=False),
    Column("role", String, nullable=False),
    Column("engine", String, nullable=False),
    Column("harnesses", JSON, nullable=False),
    Column("tools", JSON, nullable=False),
    Column("coordinator", Boolean, nullable=False, default=False),
    Column("soul", String, nullable=False, default=""),
    Column("native_skills", JSON, nullable=False),
    Column("source_path", String, nullable=False, default=""),
    Column("loaded_at", INSTANT, nullable=False),
)
SKILL = _table(  # a team skill: one SKILL.md folder of the library
    "skill",
    Column("name", String, primary_key=True),
    Column("description", String, nullable=False),
    Column("body", String, nullable=False),
    Column("tags", JSON, nullable=False),
    Column("source_path", String, nullable=False, default=""),
    Column("derived_from", String, ForeignKey("skill.name")),
    Column("digest", String, nullable=False),
    Column("added_at", INSTANT, nullable=False),
)
MEMBER_GRANT = _table(  # lets a member act through Viva; only the token's hash
    "member_grant",
    Column("id", String, primary_key=True),
    Column("member", String, ForeignKey("member.name"), nullable=False, index=True),
    Column("token_hash", String, nullable=False, unique=True),
    Column("created_at", INSTANT, nullable=False),
    Column("expires_at", INSTANT),
    Column("note", String, nullable=False, default=""),
)
GRANT_REVOCATION = _append_only(  # revoking is an event; the grant row never changes
    "grant_revocation",
    Column("id", Integer, primary_key=True),
    Column("grant_id", String, ForeignKey("member_grant.id"), nullable=False, index=True),
    Column("revoked_at", INSTANT, nullable=False),
    Column("reason", String, nullable=False, default=""),
)
EXECUTION = _table(  # a session Viva launched: attributes it without the owner (I6)
    "execution",
    Column("id", String, primary_key=True),
    Column("member", String, ForeignKey("member.name"), nullable=False, index=True),
    Column("harness", String, nullable=False),
    Column("cwd", String, nullable=False),
    Column("task", String, nullable=False, default=""),
    Column("native_session_id", String, index=True),
    Column("grant_id", String),
    Column("started_at", INSTANT, nullable=False),
    Column("ended_at", INSTANT),
    Column("outcome", String),
    Column("exit_status", Integer),
)
# --- sessions: what the importer recovered, and how far it read --------------------------
SOURCE_FILE = _table(  # a harness file (or database), and how far it was read
    "source_file",
    Column("id", Integer, primary_key=True),
    Column("harness", String, nullable=False),
    Column("path", String, nullable=False),  # redacted: for people to read
    Column("path_key", String, nullable=False),  # finds it again (importing.paths)
    Column("kind", String, nullable=False),
    Column("size", BigInteger, nullable=False, default=0),
    Column("mtime_ns", BigInteger, nullable=False, default=0),
    Column("inode", BigInteger, nullable=False, default=0),
    Column("byte_offset", BigInteger, nullable=False, default=0),
    Column("lines", Integer, nullable=False, default=0),
    Column("last_line_length", Integer, nullable=False, default=0),
    Column("last_line_digest", String, nullable=False, default=""),
    Column("reader_state", JSON, nullable=False),
    Column("tail_state", String, nullable=False, default=""),  # "" | waiting | kept
    Column("file_mtime", INSTANT, nullable=False),
    Column("first_seen_at", INSTANT, nullable=False),
    Column("imported_at", INSTANT, nullable=False),
)
SESSION = _table(  # derived from its messages and source files
    "session",
    Column("id", String, primary_key=True),
    Column("harness", String, nullable=False),
    Column("native_id", String, nullable=False),
    Column("parent_native_id", String),
    Column("relation", String),
    Column("project", String),
    Column("cwd", String),
    Column("git_branch", String),
    Column("models", JSON, nullable=False),
    Column("started_at", INSTANT),
    Column("ended_at", INSTANT),
    Column("title", String),
    Column("title_rank", Integer, nullable=False, default=0),
    Column("entrypoint", String),
    Column("originator", String),
    Column("message_count", Integer, nullable=False, default=0),
    Column("input_tokens", BigInteger, nullable=False, default=0),
    Column("output_tokens", BigInteger, nullable=False, default=0),
    Column("cache_read_tokens", BigInteger, nullable=False, default=0),
    Column("cache_write_tokens", BigInteger, nullable=False, default=0),
    Column("reasoning_tokens", BigInteger, nullable=False, default=0),
    Column("source_path", String, nullable=False, default=""),
    Column("imported_at", INSTANT, nullable=False),
    Column("updated_at", INSTANT, nullable=False),
)
MESSAGE = _versioned(  # one redacted transcript item (append-only, I3)
    "message",
    Column("id", Integer, primary_key=True),
    Column("session_id", String, ForeignKey("session.id"), nullable=False),
    Column("seq", Integer, nullable=False),
    Column("key", String, nullable=False),
    Column("role", String, nullable=False),
    Column("at", INSTANT),
    Column("text", String, nullable=False, default=""),
    Column("tool", String),
    Column("tool_input", String),  # a one-line summary of the input, for lists
    Column("tool_args", String),  # the whole input, as JSON text
    Column("tool_result", String),
    Column("sidechain", Boolean, nullable=False, default=False),
    Column("synthetic", Boolean, nullable=False, default=False),
    Column("model", String),
    Column("kind", String, nullable=False, default=""),
    Column("raw", JSON),
)
USAGE = _table(  # tokens of one model response, once per (harness, usage key)
    "usage",
    Column("id", Integer, primary_key=True),
    Column("harness", String, nullable=False),
    Column("usage_key", String, nullable=False),
    Column("session_id", String, ForeignKey("session.id"), nullable=False, index=True),
    Column("input_tokens", BigInteger, nullable=False, default=0),
    Column("output_tokens", BigInteger, nullable=False, default=0),
    Column("cache_read_tokens", BigInteger, nullable=False, default=0),
    Column("cache_write_tokens", BigInteger, nullable=False, default=0),
    Column("reasoning_tokens", BigInteger, nullable=False, default=0),
    Column("model", String),
)
USAGE_COPY = _table(  # another session whose file also holds a response (a resumed copy)
    "usage_copy",
    Column("harness", String, primary_key=True),
    Column("usage_key", String, primary_key=True),
    Column("session_id", String, ForeignKey("session.id"), primary_key=True, index=True),
)
QUARANTINE = _versioned(  # a line that could not be used, kept redacted with where and why
    "quarantine",
    Column("id", Integer, primary_key=True),
    Column("run_id", String, nullable=False),
    Column("harness", String, nullable=False),
    Column("path", String, nullable=False),
    Column("line", Integer),
    Column("byte_offset", BigInteger),
    Column("length", BigInteger, nullable=False, default=0),
    Column("reason", String, nullable=False),
    Column("raw", String, nullable=False, default=""),
    Column("at", INSTANT, nullable=False),
)
REDACTION = _append_only(  # which rule fired where, never the value
    "redaction",
    Column("id", Integer, primary_key=True),
    Column("run_id", String, nullable=False),
    Column("session_id", String),
    Column("message_key", String),
    Column("quarantine_id", Integer),
    Column("field", String, nullable=False),
    Column("rule", String, nullable=False),
    Column("position", Integer, nullable=False),
    Column("ruleset", String, nullable=False),
    Column("record", String),  # "<table>:<key>" of a record no other column names
)
IMPORT_RUN = _versioned(  # one run of the importer: when, what, counts, problems
    "import_run",
    Column("id", String, primary_key=True),
    Column("started_at", INSTANT, nullable=False),
    Column("finished_at", INSTANT, nullable=False),
    Column("harnesses", JSON, nullable=False),
    Column("counts", JSON, nullable=False),
    Column("problems", JSON, nullable=False),
)
# --- triage: the owner's decisions and the attribution derived from them ----------------
CLASSIFICATION = _versioned(  # member | nobody | unclassify | execution, by the owner or a launch
    "classification",
    Column("id", Integer, primary_key=True),
    Column("session_id", String, ForeignKey("session.id"), nullable=False, index=True),
    Column("action", String, nullable=False),
    Column("member", String, ForeignKey("member.name")),
    Column("execution_id", String, ForeignKey("execution.id")),
    Column("actor", String, nullable=False),
    Column("at", INSTANT, nullable=False),
    Column("note", String, nullable=False, default=""),
)
ATTRIBUTION = _table(  # current attribution per session, derived from classification
    "attribution",
    Column("session_id", String, ForeignKey("session.id"), primary_key=True),
    Column("status", String, nullable=False),
    Column("member", String, index=True),
    Column("source", String, nullable=False),
    Column("classification_id", Integer),
    Column("note", String, nullable=False, default=""),
)
# --- skills ------------------------------------------------------------------------------
STORE_META = _table(  # facts about the store (created_at starts the trial month)
    "store_meta",
    Column("key", String, primary_key=True),
    Column("value", String, nullable=False),
)
SKILL_EVENT = _append_only(  # the log every weight is derived from (kinds: skills.events)
    "skill_event",
    Column("id", Integer, primary_key=True),
    Column("member", String, ForeignKey("member.name"), nullable=False),
    Column("skill", String, ForeignKey("skill.name"), nullable=False),
    Column("kind", String, nullable=False),
    Column("value", Float),
    Column("outcome", String),
    Column("session_id", String),
    Column("execution_id", String),
    Column("target_id", Integer),
    Column("track", String),
    Column("session_pos", Float, nullable=False, default=0.0),
    Column("day", Float, nullable=False, default=0.0),
    Column("at", INSTANT, nullable=False),
    Column("actor", String, nullable=False),
    Column("reason", String, nullable=False, default=""),
    Column("basis", JSON),
)
MEMBER_SKILL = _table(  # set membership and weight state: a cache equal to a rebuild
    "member_skill",
    Column("member", String, ForeignKey("member.name"), primary_key=True),
    Column("skill", String, ForeignKey("skill.name"), primary_key=True),
    Column("track", String, nullable=False, default="session"),
    Column("status", String, nullable=False, default="active"),
    Column("native", Boolean, nullable=False, default=False),
    Column("w_ref", Float, nullable=False, default=0.0),
    Column("a_ref", Float, nullable=False, default=0.0),
    Column("epoch_seq", Integer),
    Column("last_seq", Integer),
    Column("uses", Integer, nullable=False, default=0),
    Column("entered_pos", Float, nullable=False, default=0.0),
    Column("entered_day", Float, nullable=False, default=0.0),
    Column("last_used_at", INSTANT),
    Column("updated_at", INSTANT, nullable=False),
)
SKILL_AXIS = _table(  # each member's session axis: its sessions and 1-based ordinals
    "skill_axis",
    Column("member", String, primary_key=True),
    Column("session_id", String, primary_key=True),
    Column("started_at", INSTANT, nullable=False),
    Column("ordinal", Integer, nullable=False),
)
# --- principles ----------------------------------------------------------------------------
PRINCIPLE = _table(  # a norm of one member; its wording lives in its versions
    "principle",
    Column("id", String, primary_key=True),
    Column("member", String, ForeignKey("member.name"), nullable=False, index=True),
    Column("created_at", INSTANT, nullable=False),
)
PRINCIPLE_VERSION = _versioned(  # a proposed wording (a candidate), never changed
    "principle_version",
    Column("id", String, primary_key=True),
    Column("principle_id", String, ForeignKey("principle.id"), nullable=False, index=True),
    Column("version", Integer, nullable=False),
    Column("text", String, nullable=False),
    Column("rationale", String, nullable=False),
    Column("evidence", JSON, nullable=False),
    Column("proposed_by", String, nullable=False),
    Column("week", String, nullable=False),
    Column("replaces_version", Integer),
    Column("created_at", INSTANT, nullable=False),
)
PRINCIPLE_EVENT = _versioned(  # proposed, batched, approved, rejected, deferred, rolled back...
    "principle_event",
    Column("id", Integer, primary_key=True),
    Column("principle_id", String, ForeignKey("principle.id"), nullable=False, index=True),
    Column("version_id", String, ForeignKey("principle_version.id")),
    Column("action", String, nullable=False),
    Column("actor", String, nullable=False),
    Column("text", String),
    Column("reason", String, nullable=False, default=""),
    Column("batch_id", String),
    Column("at", INSTANT, nullable=False),
    Column("basis", JSON),
)
PRINCIPLE_BATCH = _versioned(  # the coordinator's weekly gathering of candidates
    "principle_batch",
    Column("id", String, primary_key=True),
    Column("week", String, nullable=False, index=True),
    Column("created_by", String, nullable=False),
    Column("summary", String, nullable=False),
    Column("candidates", JSON, nullable=False),
    Column("created_at", INSTANT, nullable=False),
)
# --- recall and engagement ------------------------------------------------------------------
RECALL_SESSION = _table(  # per-session recall facts (importance, indexed title), rebuildable
    "recall_session",
    Column("key", Integer, primary_key=True),
    Column("session_id", String, ForeignKey("session.id"), nullable=False, unique=True),
    Column("title", String),
    Column("message_count", Integer, nullable=False, default=0),
    Column("tool_errors", Integer, nullable=False, default=0),
    Column("cited", Boolean, nullable=False, default=False),
    Column("marked", Float),
    Column("importance", Float, nullable=False, default=0.0),
    Column("reason", String, nullable=False, default=""),
)
RECALL_MARK = _versioned(  # a marked importance (None: back to derived)
    "recall_mark",
    Column("id", Integer, primary_key=True),
    Column("session_id", String, ForeignKey("session.id"), nullable=False, index=True),
    Column("importance", Float),
    Column("actor", String, nullable=False),
    Column("at", INSTANT, nullable=False),
    Column("note", String, nullable=False, default=""),
)
RECALL_STATE = _table(  # how far derived recall data was brought (last message indexed)
    "recall_state",
    Column("name", String, primary_key=True),
    Column("value", BigInteger, nullable=False, default=0),
)
ENGAGEMENT_EVENT = _versioned(  # one change of one field of a member's engagement state
    "engagement_event",
    Column("id", Integer, primary_key=True),
    Column("member", String, ForeignKey("member.name"), nullable=False, index=True),
    Column("field", String, nullable=False),
    Column("value", String),
    Column("source", String, nullable=False),
    Column("confidence", Float),
    Column("corrects", Integer),
    Column("actor", String, nullable=False),
    Column("at", INSTANT, nullable=False),
    Column("basis", JSON),
    Column("note", String, nullable=False, default=""),
)
SESSION_LABEL = _versioned(  # a label added or taken off, or a title shown instead
    "session_label",
    Column("id", Integer, primary_key=True),
    Column("session_id", String, ForeignKey("session.id"), nullable=False, index=True),
    Column("kind", String, nullable=False),  # label | unlabel | title
    Column("text", String, nullable=False),
    Column("actor", String, nullable=False),
    Column("at", INSTANT, nullable=False),
)
# --- knowledge: curated items with provenance, and what happens to them ------------------
KNOWLEDGE_ITEM = _versioned(  # a proposed item, never changed (a new wording supersedes it)
    "knowledge_item",
    Column("id", String, primary_key=True),
    Column("member", String, ForeignKey("member.name"), nullable=False, index=True),
    Column("kind", String, nullable=False),
    Column("project", String, index=True),
    Column("domain", String),
    Column("task_pattern", String),
    Column("summary", String, nullable=False),
    Column("body", String, nullable=False),
    Column("reason", String, nullable=False),
    Column("evidence", String, nullable=False),
    Column("sources", JSON, nullable=False),
    Column("importance", Float, nullable=False),
    Column("why", String, nullable=False),
    Column("confidence", Float),
    Column("occurred_at", INSTANT, nullable=False),
    Column("flags", JSON, nullable=False),
    Column("proposed_by", String, nullable=False),
    Column("created_at", INSTANT, nullable=False),
)
KNOWLEDGE_EVENT = _versioned(  # proposed, admitted, declined, used, retracted, superseded
    "knowledge_event",
    Column("id", Integer, primary_key=True),
    Column("item_id", String, ForeignKey("knowledge_item.id"), nullable=False, index=True),
    Column("action", String, nullable=False),
    Column("actor", String, nullable=False),
    Column("reason", String, nullable=False, default=""),
    Column("session_id", String),
    Column("other_id", String),
    Column("at", INSTANT, nullable=False),
)
KNOWLEDGE_STATE = _table(  # an item's status and scope, derived from the two logs, rebuildable
    "knowledge_state",
    Column("item_id", String, ForeignKey("knowledge_item.id"), primary_key=True),
    Column("member", String, nullable=False),
    Column("kind", String, nullable=False),
    Column("project", String),
    Column("domain", String),
    Column("task_pattern", String),
    Column("summary", String, nullable=False),
    Column("importance", Float, nullable=False),
    Column("status", String, nullable=False),
    Column("uses", Integer, nullable=False, default=0),
)
# --- redaction upgrades: the permit the guards admit, one event per transaction -----------
REDACT_PERMIT = _table(  # held (on PostgreSQL by its transaction) while an upgrade rewrites
    "redact_permit",
    Column("table_name", String, primary_key=True),
    Column("ruleset", String, nullable=False),
    Column("txid", BigInteger),
)
REDACTION_UPGRADE = _append_only(  # one transaction of a redaction upgrade: what it re-checked
    "redaction_upgrade",
    Column("id", Integer, primary_key=True),
    Column("run_id", String, nullable=False, index=True),
    Column("table_name", String, nullable=False),
    Column("ruleset", String, nullable=False),
    Column("checked", Integer, nullable=False),
    Column("changed", Integer, nullable=False),
    Column("redactions", Integer, nullable=False),
    Column("actor", String, nullable=False),
    Column("at", INSTANT, nullable=False),
)
APPEND_ONLY: tuple[str, ...] = tuple(_APPEND_ONLY)
