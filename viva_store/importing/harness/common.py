"""Small helpers shared by the harness readers.

Everything here is pure and never raises on odd input: a value that cannot
be understood comes back as ``None`` (or ``0`` / ``""``), so a reader can
keep going. Append new helpers at the end; never rename an existing one.
"""

from __future__ import annotations

import math
import sqlite3
import time
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from viva_store.importing.harness.model import Problem

# Ranks for ``SessionMeta.title_rank``: the importer keeps the highest.
TITLE_RANK_FIRST_PROMPT = 10
TITLE_RANK_SUMMARY = 20
TITLE_RANK_AI = 30
TITLE_RANK_CUSTOM = 40

# Epoch values above this are taken as milliseconds (year 5138 in seconds).
_MS_THRESHOLD = 100_000_000_000


def parse_timestamp(value: Any) -> datetime | None:
    """An aware UTC datetime from an ISO-8601 string or an epoch number.

    Numbers above 1e11 are read as milliseconds, others as seconds; ``Z`` and
    offsets are honoured and naive strings are taken as UTC. Anything else
    (``None``, booleans, NaN, garbage, out-of-range values) gives ``None``.
    """
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return _from_epoch(float(value))
    if not isinstance(value, str):
        return None
    text = value.strip()
    if not text:
        return None
    if text[-1] in "zZ":
        text = text[:-1] + "+00:00"
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        try:
            return _from_epoch(float(text))
        except (ValueError, OverflowError):
            return None
    if parsed.tzinfo is None:
        return parsed.replace(tzinfo=UTC)
    try:
        return parsed.astimezone(UTC)
    except (OverflowError, ValueError):
        return None


def _from_epoch(number: float) -> datetime | None:
    if not math.isfinite(number) or number < 0:
        return None
    if number > _MS_THRESHOLD:
        number /= 1000.0
    try:
        return datetime.fromtimestamp(number, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None


def as_int(value: Any) -> int:
    """A non-negative int from a JSON number (or numeric string); 0 otherwise."""
    if isinstance(value, bool):
        return 0
    if isinstance(value, int):
        return max(value, 0)
    if isinstance(value, float):
        return int(value) if math.isfinite(value) and value > 0 else 0
    if isinstance(value, str):
        try:
            return as_int(float(value))
        except ValueError:
            return 0
    return 0


def as_str(value: Any) -> str | None:
    """``value`` if it is a non-empty string, else ``None``."""
    return value if isinstance(value, str) and value else None


def as_dict(value: Any) -> dict[str, Any]:
    """``value`` if it is a JSON object, else an empty dict."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """``value`` if it is a JSON array, else an empty list."""
    return value if isinstance(value, list) else []


def compact_json(value: Any) -> str:
    """``value`` as compact JSON text (``str(value)`` if it cannot be encoded)."""
    if isinstance(value, str):
        return value
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return str(value)


def truncate(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, marking the cut with an ellipsis.

    A text that must be cut is redacted first: a secret cut in half no longer matches
    its rule, so redacting the cut text later would let its first part through.
    """
    if len(text) <= limit:
        return text
    from viva_store.redact import redact_text

    text = redact_text(text)[0]
    return text if len(text) <= limit else text[: max(limit - 1, 0)] + "…"


TOOL_INPUT_LIMIT = 4000
_COMMAND_KEYS = ("command", "cmd")


def summarize_tool_input(value: Any, limit: int = TOOL_INPUT_LIMIT) -> str | None:
    """A short, readable summary of a tool call's arguments.

    A shell-like call (``{"command": ...}``) is summarised by its command; a
    JSON string holding an object is decoded first; anything else becomes
    compact JSON. Long summaries are cut at ``limit`` characters.
    """
    if value is None:
        return None
    if isinstance(value, str):
        decoded = loads_or_none(value)
        if isinstance(decoded, dict):
            value = decoded
        else:
            return truncate(value, limit) if value else None
    if isinstance(value, dict):
        for key in _COMMAND_KEYS:
            command = value.get(key)
            if isinstance(command, str) and command:
                return truncate(command, limit)
            if isinstance(command, list) and command and all(isinstance(c, str) for c in command):
                return truncate(" ".join(command), limit)
        if not value:
            return None
    return truncate(compact_json(value), limit)


def loads_or_none(text: str | bytes) -> Any:
    """Decoded JSON, or ``None`` when ``text`` is not valid JSON."""
    try:
        return orjson.loads(text)
    except (orjson.JSONDecodeError, TypeError, ValueError):
        return None


def join_text(parts: Iterable[str]) -> str:
    """Non-empty strings of ``parts`` joined by blank lines."""
    return "\n\n".join(p for p in parts if p)


def connect_sqlite_ro(path: Path, attempts: int = 3, delay: float = 0.2) -> sqlite3.Connection:
    """Open a SQLite database read-only, retrying briefly while it is locked.

    Raises :class:`sqlite3.Error` when the database cannot be opened or read
    (the caller turns that into a ``Problem``). A cheap query is run first so
    "database is locked" / "disk I/O error" during a writer's checkpoint is
    retried here rather than surfacing on the first real query.
    """
    uri = f"{path.resolve().as_uri()}?mode=ro"
    last: sqlite3.Error | None = None
    for attempt in range(max(attempts, 1)):
        try:
            conn = sqlite3.connect(uri, uri=True, timeout=delay * 5)
            try:
                conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()
            except sqlite3.Error:
                conn.close()
                raise
            return conn
        except sqlite3.Error as exc:
            last = exc
            if not is_transient_sqlite_error(exc) or attempt == attempts - 1:
                break
            time.sleep(delay * (attempt + 1))
    assert last is not None
    raise last


def is_transient_sqlite_error(exc: BaseException) -> bool:
    """True for the SQLite errors a retry may cure (a lock, a checkpoint's I/O error)."""
    text = str(exc).lower()
    return "locked" in text or "busy" in text or "disk i/o error" in text


def sqlite_columns(conn: sqlite3.Connection, table: str) -> set[str]:
    """Column names of ``table`` (empty when the table does not exist)."""
    try:
        rows = conn.execute(f"PRAGMA table_info({quote_ident(table)})").fetchall()
    except sqlite3.Error:
        return set()
    return {str(row[1]) for row in rows}


def quote_ident(name: str) -> str:
    """``name`` quoted as an SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def sqlite_retry(action: Any, attempts: int = 3, delay: float = 0.2) -> Any:
    """Call ``action()``; retry briefly on a transient SQLite error, re-raise others."""
    for attempt in range(max(attempts, 1)):
        try:
            return action()
        except sqlite3.Error as exc:
            if not is_transient_sqlite_error(exc) or attempt == attempts - 1:
                raise
            time.sleep(delay * (attempt + 1))
    return None


# -- appended for the claude-code and codex readers ---------------------------

# Between a user-set name (custom) and a model-written title (ai): Claude's
# ``agent-name`` lines name the agent a session runs as.
TITLE_RANK_AGENT_NAME = 35

TOOL_INPUT_LINE_LIMIT = 200
# Argument keys that say best what a tool call does, most telling first.
_TOOL_INPUT_KEYS = (
    "command",
    "cmd",
    "file_path",
    "notebook_path",
    "path",
    "filePath",
    "pattern",
    "url",
    "query",
    "description",
    "prompt",
    "skill",
    "name",
)
_PATCH_HEADERS = ("*** Add File: ", "*** Update File: ", "*** Delete File: ")


def one_line(text: str, limit: int = TOOL_INPUT_LINE_LIMIT) -> str:
    """``text`` with runs of whitespace (newlines included) folded to one space, then cut."""
    return truncate(" ".join(text.split()), limit)


def tool_input_line(value: Any, limit: int = TOOL_INPUT_LINE_LIMIT) -> str | None:
    """A one-line summary (≤ ``limit`` chars) of a tool call's input.

    JSON text is decoded first; an object is summarised by its most telling
    argument (the command, file path, pattern, URL, query, description...);
    a ``bash -lc <script>`` argv by its script; an ``apply_patch`` body by
    the files it touches. Anything else becomes compact JSON.
    """
    if isinstance(value, str):
        stripped = value.strip()
        if stripped.startswith("*** Begin Patch"):
            files = [
                line.strip()[4:]
                for line in stripped.splitlines()
                if line.strip().startswith(_PATCH_HEADERS)
            ]
            return one_line("; ".join(files) or stripped, limit) or None
        decoded = loads_or_none(value) if stripped[:1] in ("{", "[") else None
        if decoded is None:
            return one_line(value, limit) or None
        value = decoded
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        argv = [str(v) for v in value]
        if len(argv) >= 3 and argv[-2] in ("-lc", "-c"):
            return one_line(argv[-1], limit) or None
        return one_line(" ".join(argv), limit) or None
    if isinstance(value, dict):
        for key in _TOOL_INPUT_KEYS:
            found = value.get(key)
            if isinstance(found, str | list) and found:
                return tool_input_line(found, limit)
        if not value:
            return None
    if value is None:
        return None
    return one_line(json_text(value), limit) or None


def json_text(value: Any) -> str:
    """:func:`compact_json`, but ``""`` for a value nested too deep even to ``repr``."""
    try:
        return compact_json(value)
    except (RecursionError, ValueError):
        return ""


def without_keys_deep(value: Any, keys: frozenset[str]) -> Any:
    """A copy of ``value`` with every object key in ``keys`` removed, at any depth.

    Iterative, so a deeply nested record cannot exhaust the recursion limit.
    Used to drop opaque blobs (e.g. Codex ``encrypted_content``) from kept records.
    """
    if not isinstance(value, dict | list):
        return value
    root: Any = {} if isinstance(value, dict) else []
    stack: list[tuple[Any, Any]] = [(value, root)]
    while stack:
        src, dst = stack.pop()
        items = src.items() if isinstance(src, dict) else enumerate(src)
        for k, v in items:
            if isinstance(src, dict) and k in keys:
                continue
            if isinstance(v, dict | list):
                child: Any = {} if isinstance(v, dict) else []
                stack.append((v, child))
                v = child
            if isinstance(dst, dict):
                dst[k] = v
            else:
                dst.append(v)
    return root


def short_digest(text: str) -> str:
    """A 16-hex-digit digest of ``text`` (for remembering text in reader state)."""
    import hashlib  # kept local: this block is appended to a file other readers share

    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def remember(mapping: dict[str, Any], key: str, value: Any, cap: int) -> None:
    """Set ``mapping[key] = value`` as the newest entry, dropping the oldest beyond ``cap``."""
    mapping.pop(key, None)
    mapping[key] = value
    while len(mapping) > cap:
        del mapping[next(iter(mapping))]


# -- appended for reporting what a discovery walk could not look at --------------


def note_unlistable(problems: list[Problem] | None, path: Any, exc: OSError) -> None:
    """Append a :class:`Problem` for a folder or file a walk could not look at (e.g. no
    permission) to ``problems``; a path that does not exist is not one."""
    if problems is None or isinstance(exc, FileNotFoundError | NotADirectoryError):
        return
    problems.append(Problem(str(path), None, f"cannot list: {exc.strerror or exc}"))


# -- appended for keeping a tool call's whole input --------------------------------


def json_of(value: Any) -> str | None:
    """A tool call's whole input as JSON text (``None`` when it has none).

    A string that already holds a JSON object or array (Codex ``arguments``) is kept
    as it is; any other string is stored as a JSON string; anything else is encoded.
    """
    if value is None:
        return None
    if isinstance(value, str):
        stripped = value.lstrip()
        if stripped[:1] in ("{", "[") and isinstance(loads_or_none(value), dict | list):
            return value
        return orjson.dumps(value).decode()
    try:
        return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
    except (TypeError, orjson.JSONEncodeError):
        return orjson.dumps(json_text(value)).decode()
