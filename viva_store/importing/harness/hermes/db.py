"""Hermes ``state.db`` (SQLite) reading.

Columns come from ``SCHEMA_SQL`` in ``hermes_state_common.py``; only those that
exist are selected, so older and newer schemas read as far as they match.
Only live transcript rows are read (``active = 1`` when that column exists):
rows archived by in-place compaction or a rewind are not imported, unless an
earlier import saw them while they were live.

Usage: Hermes keeps token counts per session (the ``sessions`` aggregate
columns), so each session yields one :class:`Usage` keyed
``f"hermes:{session id}"``. The totals grow while the session runs: a later
read carries the same key with larger figures, and the importer must replace
the stored figure for that key rather than keep the first one.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from viva_store.importing.harness.common import (
    as_int,
    as_str,
    connect_sqlite_ro,
    parse_timestamp,
    quote_ident,
    sqlite_columns,
    sqlite_retry,
)
from viva_store.importing.harness.hermes.convert import (
    convert_message,
    model_config,
    relation,
    title_rank,
)
from viva_store.importing.harness.model import ParsedChunk, Problem, SessionMeta, Usage

_SESSION_COLUMNS = (
    "id", "source", "model", "model_config", "parent_session_id", "started_at", "ended_at",
    "cwd", "git_branch", "git_repo_root", "title", "title_source", "input_tokens",
    "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens",
    "last_activity_at",
)  # fmt: skip
_MESSAGE_COLUMNS = (
    "id", "role", "content", "tool_call_id", "tool_calls", "tool_name", "timestamp",
    "finish_reason", "reasoning", "reasoning_content", "codex_reasoning_items",
)  # fmt: skip
_TOKEN_COLUMNS = (
    "input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens",
)  # fmt: skip


def read_database(path: Path) -> Iterator[ParsedChunk | Problem]:
    """One chunk per row of ``sessions`` in a Hermes ``state.db``, and what could not be read."""
    try:
        conn = connect_sqlite_ro(path)
    except sqlite3.Error as exc:
        yield Problem(str(path), None, f"cannot open database: {exc}")
        return
    try:
        yield from _read(conn, path)
    except sqlite3.Error as exc:
        yield Problem(str(path), None, f"database error: {exc}")
    finally:
        conn.close()


def has_session(path: Path, session_id: str) -> bool:
    """Whether the ``state.db`` at ``path`` holds ``session_id`` (False if unreadable)."""
    if not path.is_file():
        return False
    try:
        conn = connect_sqlite_ro(path, attempts=2, delay=0.05)
    except sqlite3.Error:
        return False
    try:
        if "id" not in sqlite_columns(conn, "sessions"):
            return False
        return bool(_rows(conn, "SELECT 1 FROM sessions WHERE id = ? LIMIT 1", (session_id,)))
    except sqlite3.Error:
        return False
    finally:
        conn.close()


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    return list(sqlite_retry(lambda: conn.execute(sql, params).fetchall()))


def _read(conn: sqlite3.Connection, path: Path) -> Iterator[ParsedChunk | Problem]:
    session_cols = sqlite_columns(conn, "sessions")
    if "id" not in session_cols:
        yield Problem(str(path), None, "no Hermes sessions table")
        return
    message_cols = sqlite_columns(conn, "messages")
    readable = {"session_id", "role"} <= message_cols
    if not readable:
        yield Problem(str(path), None, "no readable Hermes messages table")
    wanted = [c for c in _SESSION_COLUMNS if c in session_cols]
    order = "started_at, id" if "started_at" in session_cols else "id"
    select = ", ".join(quote_ident(c) for c in wanted)
    models_by_session = _usage_models(conn)
    for row in _rows(conn, f"SELECT {select} FROM sessions ORDER BY {order}"):
        data = dict(zip(wanted, row, strict=True))
        chunk = ParsedChunk(meta=_meta(data))
        chunk.meta.models |= models_by_session.get(chunk.meta.native_id, set())
        if readable:
            _fill(conn, chunk, message_cols, as_str(data.get("model")))
        usage = _usage(data, chunk.meta.native_id)
        if usage is not None:
            chunk.usage.append(usage)
        yield chunk


def _meta(data: dict[str, Any]) -> SessionMeta:
    config = model_config(data.get("model_config"))
    parent = as_str(data.get("parent_session_id"))
    title = as_str(data.get("title"))
    model = as_str(data.get("model"))
    cwd = as_str(data.get("cwd")) or as_str(config.get("cwd"))
    ended = parse_timestamp(data.get("ended_at")) or parse_timestamp(data.get("last_activity_at"))
    return SessionMeta(
        native_id=str(data["id"]),
        parent_native_id=parent,
        relation=relation(config) if parent else None,
        project=as_str(data.get("git_repo_root")),
        cwd=cwd,
        git_branch=as_str(data.get("git_branch")),
        models={model} if model else set(),
        started_at=parse_timestamp(data.get("started_at")),
        ended_at=ended,
        title=title,
        title_rank=title_rank(title, data.get("title_source")),
        originator=as_str(data.get("source")),
    )


def _usage_models(conn: sqlite3.Connection) -> dict[str, set[str]]:
    """Models per session from ``session_model_usage`` (when the table exists)."""
    if not {"session_id", "model"} <= sqlite_columns(conn, "session_model_usage"):
        return {}
    found: dict[str, set[str]] = {}
    for session_id, model in _rows(
        conn, "SELECT DISTINCT session_id, model FROM session_model_usage"
    ):
        if isinstance(model, str) and model:
            found.setdefault(str(session_id), set()).add(model)
    return found


def _fill(
    conn: sqlite3.Connection, chunk: ParsedChunk, message_cols: set[str], model: str | None
) -> None:
    # ``messages.id`` is the INTEGER PRIMARY KEY, i.e. the rowid: select it as such.
    wanted = [c for c in _MESSAGE_COLUMNS if c in message_cols and c != "id"]
    select = ", ".join(["rowid", *(quote_ident(c) for c in wanted)])
    where = "session_id = ?" + (" AND active = 1" if "active" in message_cols else "")
    order = "timestamp, rowid" if "timestamp" in message_cols else "rowid"
    sql = f"SELECT {select} FROM messages WHERE {where} ORDER BY {order}"
    for rowid, *values in _rows(conn, sql, (chunk.meta.native_id,)):
        message = dict(zip(wanted, values, strict=True))
        at = parse_timestamp(message.get("timestamp"))
        chunk.messages.extend(convert_message(message, str(rowid), at, model))


def _usage(data: dict[str, Any], session_id: str) -> Usage | None:
    figures = {c: as_int(data.get(c)) for c in _TOKEN_COLUMNS}
    if not any(figures.values()):
        return None
    return Usage(
        usage_key=f"hermes:{session_id}",
        input_tokens=figures["input_tokens"],
        output_tokens=figures["output_tokens"],
        cache_read_tokens=figures["cache_read_tokens"],
        cache_write_tokens=figures["cache_write_tokens"],
        reasoning_tokens=figures["reasoning_tokens"],
        model=as_str(data.get("model")),
    )
