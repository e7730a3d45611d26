"""Reader for Hermes Agent sessions (``~/.hermes``).

* ``state.db`` (current; also ``profiles/<name>/state.db``): SQLite, read by
  :mod:`viva_store.importing.harness.hermes.db` — one :class:`SourceFile` of kind
  ``sqlite`` per database.
* ``sessions/session_<id>.json`` (legacy CLI logs; also under profiles): one
  session per file, kind ``json``: ``{session_id, model, platform,
  session_start, last_updated, cwd?, model_config?, messages[...]}``.

The database wins: a legacy file whose session id is also in the sibling
``state.db`` yields nothing, since its messages are keyed differently (row id
vs. position) and would otherwise appear twice. Legacy message keys are
``f"json:{index}"`` (the file is rewritten in place, appending messages, so a
position is stable). Legacy files carry no token counts.

Session facts: id, model, cwd (``cwd`` or ``model_config.cwd``), git branch,
title (ranked by ``title_source``), ``source``/``platform`` → originator,
``parent_session_id`` → parent (relation ``branch`` / ``subagent`` from the
``model_config`` markers, else ``continuation``), ``started_at``/``ended_at``
(epoch seconds; legacy ISO times without an offset are taken as UTC).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path

import orjson

from viva_store.importing.harness.common import as_str, note_unlistable, parse_timestamp
from viva_store.importing.harness.hermes.convert import convert_message, model_config, title_rank
from viva_store.importing.harness.hermes.db import has_session, read_database
from viva_store.importing.harness.model import ParsedChunk, Problem, SessionMeta, SourceFile
from viva_store.importing.harness.reader import WholeOnly

_MAX_JSON_BYTES = 256 << 20


class HermesReader(WholeOnly):
    """Hermes Agent sessions: ``state.db`` databases and legacy session logs."""

    name = "hermes"
    env_roots: tuple[str, ...] = ("HERMES_HOME",)

    def default_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """``$HERMES_HOME``, then ``~/.hermes`` (and ``%LOCALAPPDATA%/hermes`` on Windows)."""
        roots: list[Path] = []
        if env.get("HERMES_HOME"):
            roots.append(Path(env["HERMES_HOME"]).expanduser())
        roots.append(home / ".hermes")
        if env.get("LOCALAPPDATA"):
            roots.append(Path(env["LOCALAPPDATA"]) / "hermes")
        return list(dict.fromkeys(roots))  # each once, in order

    def discover(self, root: Path, problems: list[Problem] | None = None) -> Iterator[SourceFile]:
        """Every ``state.db`` (root and profiles) first, then the legacy session files."""
        homes = _homes(root)
        for home in homes:
            if (home / "state.db").is_file():
                yield SourceFile(self.name, home / "state.db", "sqlite")
        for home in homes:
            try:
                files = sorted((home / "sessions").glob("session_*.json"))
            except OSError as exc:
                note_unlistable(problems, home / "sessions", exc)
                continue
            for path in files:
                if path.is_file():
                    yield SourceFile(self.name, path, "json")

    def read_whole(self, source: SourceFile) -> Iterator[ParsedChunk | Problem]:
        """Read a ``state.db`` (kind ``sqlite``) or one legacy ``session_<id>.json``."""
        if source.kind == "sqlite":
            yield from read_database(source.path)
            return
        legacy = read_legacy(source.path)
        if isinstance(legacy, Problem):
            yield legacy
            return
        chunk, problems = legacy
        yield from problems
        state_db = source.path.parent.parent / "state.db"
        if source.path.parent.name == "sessions" and has_session(state_db, chunk.meta.native_id):
            return
        yield chunk


def _homes(root: Path) -> list[Path]:
    homes = [root]
    with contextlib.suppress(OSError):
        homes += sorted(p for p in (root / "profiles").iterdir() if p.is_dir())
    return homes


def read_legacy(path: Path) -> tuple[ParsedChunk, list[Problem]] | Problem:
    """One legacy session log as a chunk and its unusable messages, or why it is unusable."""
    try:
        size = path.stat().st_size
        if size > _MAX_JSON_BYTES:
            return Problem(str(path), None, f"file too large ({size} bytes)")
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        return Problem(str(path), None, f"unreadable: {exc.strerror or exc}")
    except orjson.JSONDecodeError as exc:
        return Problem(str(path), None, f"not JSON: {exc}")
    if not isinstance(data, dict) or not isinstance(data.get("messages", []), list):
        return Problem(str(path), None, "not a Hermes session log")
    stem = path.stem.removeprefix("session_")
    session_id = as_str(data.get("session_id")) or as_str(data.get("id")) or stem
    config = model_config(data.get("model_config"))
    model = as_str(data.get("model"))
    parent = as_str(data.get("parent_session_id"))
    title = as_str(data.get("title"))
    meta = SessionMeta(
        native_id=session_id,
        parent_native_id=parent,
        relation="continuation" if parent else None,
        cwd=as_str(data.get("cwd")) or as_str(config.get("cwd")),
        git_branch=as_str(data.get("git_branch")),
        models={model} if model else set(),
        started_at=parse_timestamp(data.get("session_start")),
        ended_at=parse_timestamp(data.get("last_updated")),
        title=title,
        title_rank=title_rank(title, data.get("title_source")),
        originator=as_str(data.get("platform")) or as_str(data.get("source")),
    )
    chunk = ParsedChunk(meta=meta)
    problems: list[Problem] = []
    for index, message in enumerate(data.get("messages", [])):
        if isinstance(message, dict):
            chunk.messages.extend(convert_message(message, f"json:{index}", None, model))
        else:
            problems.append(Problem(str(path), None, f"message {index} is not an object"))
    return chunk, problems


READER = HermesReader()
