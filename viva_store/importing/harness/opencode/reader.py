"""Reader for OpenCode sessions (``~/.local/share/opencode``).

Two stores, both read:

* ``opencode.db`` (≥ 1.2.0) and channel builds' ``opencode-<channel>.db`` —
  one :class:`SourceFile` of kind ``sqlite`` each (see
  :mod:`viva_store.importing.harness.opencode.db`);
* the legacy ``storage/`` tree: ``session/<project>/<ses>.json``,
  ``message/<ses>/<msg>.json``, ``part/<msg>/<prt>.json`` (older builds also
  kept parts flat in ``part/*.json``, matched by their ``messageID``). Each
  *session file* is one :class:`SourceFile` of kind ``tree``; reading it reads
  that session's messages and parts. The importer skips a source whose size
  and mtime are unchanged, and OpenCode rewrites the session file (its
  ``time.updated``) on activity, so new messages re-trigger a read; parts
  added without touching the session file wait for its next update.

DB wins: the JSON→SQLite migration copies sessions into the DB but has lost
parts for some users, so the tree is still read; a tree message whose id is
also in a sibling ``opencode*.db`` is skipped (as is its usage), so only what
the migration lost is recovered from the tree. Message keys and usage keys are
identical in both stores, so whichever is imported first, the importer's
dedupe by key holds.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import orjson

from viva_store.importing.harness.common import as_dict, as_str, note_unlistable
from viva_store.importing.harness.model import Message, ParsedChunk, Problem, SourceFile, Usage
from viva_store.importing.harness.opencode.convert import convert_message, session_meta
from viva_store.importing.harness.opencode.db import (
    database_files,
    database_message_ids,
    read_database,
)
from viva_store.importing.harness.reader import WholeOnly

JsonFile = dict[str, Any]


class OpenCodeReader(WholeOnly):
    """OpenCode sessions: ``opencode*.db`` databases and the legacy ``storage/`` tree."""

    name = "opencode"
    env_roots: tuple[str, ...] = ("OPENCODE_DATA_DIR", "XDG_DATA_HOME")

    def default_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """``$OPENCODE_DATA_DIR``, ``$XDG_DATA_HOME/opencode``, then ``~/.local/share/opencode``."""
        roots: list[Path] = []
        if env.get("OPENCODE_DATA_DIR"):
            roots.append(Path(env["OPENCODE_DATA_DIR"]).expanduser())
        if env.get("XDG_DATA_HOME"):
            roots.append(Path(env["XDG_DATA_HOME"]).expanduser() / "opencode")
        roots.append(home / ".local" / "share" / "opencode")
        return list(dict.fromkeys(roots))  # each once, in order

    def discover(self, root: Path, problems: list[Problem] | None = None) -> Iterator[SourceFile]:
        """Databases first (they win), then one source per legacy session file; stable order.

        ``root`` may be the data dir (holding ``opencode.db`` and ``storage/``) or a
        ``storage`` dir itself.
        """
        for db in database_files(root):
            yield SourceFile(self.name, db, "sqlite")
        for storage in _storage_dirs(root):
            try:
                projects = sorted(p for p in (storage / "session").iterdir() if p.is_dir())
            except OSError as exc:
                note_unlistable(problems, storage / "session", exc)
                continue
            for project in projects:
                try:
                    files = sorted(p for p in project.iterdir() if p.suffix == ".json")
                except OSError as exc:
                    note_unlistable(problems, project, exc)
                    continue
                for path in files:
                    if path.is_file():
                        yield SourceFile(self.name, path, "tree")

    def read_whole(self, source: SourceFile) -> Iterator[ParsedChunk | Problem]:
        """Read an ``opencode*.db`` (kind ``sqlite``) or one legacy session file (kind ``tree``)."""
        if source.kind == "sqlite":
            yield from read_database(source.path)
        else:
            yield from _read_tree_session(source.path)


def _storage_dirs(root: Path) -> list[Path]:
    dirs = []
    for candidate in (root / "storage", root):
        if (candidate / "session").is_dir() and candidate not in dirs:
            dirs.append(candidate)
    return dirs


# -- legacy storage tree ----------------------------------------------------------


def _load(path: Path) -> JsonFile | Problem:
    """A JSON object file, or why it cannot be used."""
    try:
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        return Problem(str(path), None, f"unreadable: {exc.strerror or exc}")
    except orjson.JSONDecodeError as exc:
        return Problem(str(path), None, f"not JSON: {exc}")
    if not isinstance(data, dict):
        return Problem(str(path), None, "not a JSON object")
    return data


def _read_tree_session(path: Path) -> Iterator[ParsedChunk | Problem]:
    data = _load(path)
    if isinstance(data, Problem):
        yield data
        return
    session_id = as_str(data.get("id")) or path.stem
    storage = path.parent.parent.parent
    meta = session_meta(data, session_id)
    in_db = database_message_ids(storage.parent, session_id)
    loaded: list[tuple[Any, str, str, JsonFile]] = []
    for message_path in _json_files(storage / "message" / session_id):
        message = _load(message_path)
        if isinstance(message, Problem):
            yield message
            continue
        message_id = as_str(message.get("id")) or message_path.stem
        created = as_dict(message.get("time")).get("created")
        order = created if isinstance(created, int | float) else float("inf")
        loaded.append((order, message_id, message_path.name, message))
    loaded.sort(key=lambda item: (item[0], item[1]))
    messages: list[Message] = []
    usage: list[Usage] = []
    for _, message_id, _, message in loaded:
        if message_id in in_db:
            continue
        parts: list[tuple[str, JsonFile]] = []
        for part_path in _json_files(storage / "part" / message_id):
            part = _load(part_path)
            if isinstance(part, Problem):
                yield part
            else:
                parts.append((as_str(part.get("id")) or part_path.stem, part))
        parts += _flat_parts(storage / "part", message_id)
        converted = convert_message(session_id, message_id, message, parts)
        messages.extend(converted.messages)
        if converted.usage is not None:
            usage.append(converted.usage)
        meta.models |= converted.models
    yield ParsedChunk(meta=meta, messages=messages, usage=usage)


def _json_files(directory: Path) -> list[Path]:
    try:
        return sorted(p for p in directory.iterdir() if p.suffix == ".json" and p.is_file())
    except OSError:
        return []


def _flat_parts(part_dir: Path, message_id: str) -> list[tuple[str, JsonFile]]:
    """Parts stored flat in ``part/*.json`` (older builds) that belong to ``message_id``.

    A flat part that is not valid JSON names no message, so it cannot be
    attributed to a session and is skipped.
    """
    try:
        stat = part_dir.stat()
    except OSError:
        return []
    parts = []
    for name in _flat_index(str(part_dir), stat.st_mtime_ns).get(message_id, ()):
        try:
            part = orjson.loads((part_dir / name).read_bytes())
        except (OSError, orjson.JSONDecodeError):
            continue
        if isinstance(part, dict):
            parts.append((as_str(part.get("id")) or Path(name).stem, part))
    return parts


@lru_cache(maxsize=8)
def _flat_index(part_dir: str, _mtime_ns: int) -> dict[str, tuple[str, ...]]:
    """File names of flat parts by ``messageID`` (cached per directory mtime)."""
    grouped: dict[str, list[str]] = {}
    for path in _json_files(Path(part_dir)):
        try:
            part = orjson.loads(path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            continue
        message_id = as_str(part.get("messageID")) if isinstance(part, dict) else None
        if message_id:
            grouped.setdefault(message_id, []).append(path.name)
    return {key: tuple(names) for key, names in grouped.items()}


READER = OpenCodeReader()
