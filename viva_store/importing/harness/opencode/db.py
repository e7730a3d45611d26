"""OpenCode ``opencode.db`` (SQLite, ≥ 1.2.0) reading.

Tables used (``packages/core/src/session/sql.ts``): ``session`` (one row per
session, columns ``id, project_id, parent_id, fork_session_id, directory,
title, agent, model JSON, time_created, time_updated`` …), ``message(id,
session_id, time_created, time_updated, data JSON)`` and ``part(id,
message_id, session_id, time_created, time_updated, data JSON)``. The JSON in
``data`` is the legacy file content minus the ids held in columns.

The database is opened read-only; only the columns that exist are selected,
so older or newer schemas read as far as they match. Bad ``data`` JSON in a
row is a :class:`Problem`, never an exception. OpenCode 2's ``session_v2`` /
``session_message`` tables are not read yet.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from viva_store.importing.harness.common import (
    connect_sqlite_ro,
    quote_ident,
    sqlite_columns,
    sqlite_retry,
)
from viva_store.importing.harness.model import ParsedChunk, Problem
from viva_store.importing.harness.opencode.convert import convert_message, session_meta

_SESSION_COLUMNS = (
    "id", "project_id", "parent_id", "fork_session_id", "directory", "title", "agent", "model",
    "time_created", "time_updated",
)  # fmt: skip
_JSON_COLUMNS = ("model",)
_IN_CHUNK = 500


def read_database(path: Path) -> Iterator[ParsedChunk | Problem]:
    """One chunk per session row of an ``opencode*.db``, and what could not be read."""
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


def _rows(conn: sqlite3.Connection, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    return list(sqlite_retry(lambda: conn.execute(sql, params).fetchall()))


def _read(conn: sqlite3.Connection, path: Path) -> Iterator[ParsedChunk | Problem]:
    session_cols = sqlite_columns(conn, "session")
    message_cols = sqlite_columns(conn, "message")
    part_cols = sqlite_columns(conn, "part")
    if "id" not in session_cols:
        yield Problem(str(path), None, "no OpenCode session table")
        return
    wanted = [c for c in _SESSION_COLUMNS if c in session_cols]
    order = " ORDER BY time_created, id" if "time_created" in session_cols else " ORDER BY id"
    select = ", ".join(quote_ident(c) for c in wanted)
    sessions = _rows(conn, f"SELECT {select} FROM session{order}")
    can_read_messages = {"id", "session_id", "data"} <= message_cols
    if not can_read_messages:
        yield Problem(str(path), None, "no readable OpenCode message table")
    for row in sessions:
        data: dict[str, Any] = dict(zip(wanted, row, strict=True))
        session_id = str(data["id"])
        for column in _JSON_COLUMNS:
            if isinstance(data.get(column), str | bytes):
                data[column] = _json(data[column])
        meta = session_meta(data, session_id)
        chunk = ParsedChunk(meta=meta)
        if can_read_messages:
            yield from _fill(conn, path, chunk, session_id, message_cols, part_cols)
        yield chunk


def _fill(
    conn: sqlite3.Connection,
    path: Path,
    chunk: ParsedChunk,
    session_id: str,
    message_cols: set[str],
    part_cols: set[str],
) -> Iterator[Problem]:
    """Put the session's messages into ``chunk``; yields the rows that could not be read."""
    order = "time_created, id" if "time_created" in message_cols else "id"
    rows = _rows(
        conn, f"SELECT id, data FROM message WHERE session_id = ? ORDER BY {order}", (session_id,)
    )
    parts, problems = _parts(conn, path, session_id, [str(r[0]) for r in rows], part_cols)
    yield from problems
    for message_id, raw in rows:
        message = _json(raw)
        if not isinstance(message, dict):
            yield Problem(str(path), None, f"message {message_id}: data is not a JSON object")
            continue
        converted = convert_message(
            session_id, str(message_id), message, parts.get(str(message_id), [])
        )
        chunk.messages.extend(converted.messages)
        if converted.usage is not None:
            chunk.usage.append(converted.usage)
        chunk.meta.models |= converted.models


def _parts(
    conn: sqlite3.Connection,
    path: Path,
    session_id: str,
    message_ids: list[str],
    part_cols: set[str],
) -> tuple[dict[str, list[tuple[str, dict[str, Any]]]], list[Problem]]:
    """The session's parts by message id, and the part rows that could not be read."""
    if not {"id", "message_id", "data"} <= part_cols or not message_ids:
        return {}, []
    rows: list[Any] = []
    # Part ids ascend with creation time; time_created first covers ids that do not.
    order = "message_id, time_created, id" if "time_created" in part_cols else "message_id, id"
    if "session_id" in part_cols:
        rows = _rows(
            conn,
            f"SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY {order}",
            (session_id,),
        )
    else:
        for start in range(0, len(message_ids), _IN_CHUNK):
            batch = message_ids[start : start + _IN_CHUNK]
            marks = ",".join("?" for _ in batch)
            rows += _rows(
                conn,
                f"SELECT id, message_id, data FROM part WHERE message_id IN ({marks})"
                f" ORDER BY {order}",
                tuple(batch),
            )
    grouped: dict[str, list[tuple[str, dict[str, Any]]]] = {}
    problems: list[Problem] = []
    for part_id, message_id, raw in rows:
        part = _json(raw)
        if not isinstance(part, dict):
            problems.append(Problem(str(path), None, f"part {part_id}: data is not a JSON object"))
            continue
        grouped.setdefault(str(message_id), []).append((str(part_id), part))
    return grouped, problems


def _json(raw: Any) -> Any:
    if not isinstance(raw, str | bytes):
        return None
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None


def database_files(root: Path) -> list[Path]:
    """``opencode.db`` and ``opencode-*.db`` directly in ``root``, sorted."""
    try:
        return sorted(
            p
            for p in root.iterdir()
            if p.suffix == ".db"
            and (p.name == "opencode.db" or p.name.startswith("opencode-"))
            and p.is_file()
        )
    except OSError:
        return []


def database_message_ids(data_dir: Path, session_id: str) -> set[str]:
    """Ids of ``session_id``'s messages in the ``opencode*.db`` files of ``data_dir``.

    Used to let the database win over the legacy tree. A database that cannot
    be read contributes nothing (its own import reports the problem).
    """
    found: set[str] = set()
    for db in database_files(data_dir):
        try:
            conn = connect_sqlite_ro(db, attempts=2, delay=0.05)
        except sqlite3.Error:
            continue
        try:
            if {"id", "session_id"} <= sqlite_columns(conn, "message"):
                rows = _rows(conn, "SELECT id FROM message WHERE session_id = ?", (session_id,))
                found.update(str(r[0]) for r in rows)
        except sqlite3.Error:
            pass
        finally:
            conn.close()
    return found
