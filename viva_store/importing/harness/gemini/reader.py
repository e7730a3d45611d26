"""Reader for Gemini CLI chat recordings (``~/.gemini/tmp/<project-id>/chats/``).

Two formats live side by side:

* ``session-*.json`` (≤ 0.39): one ``ConversationRecord`` rewritten in place —
  read whole by ``read_whole``. The ``/chat save`` checkpoint shape
  (``{history: [{role, parts}]}`` or a bare list) and odd variants are read
  too, as a session when they hold messages.
* ``session-*.jsonl`` (≥ 0.40): a metadata line, then ``MessageRecord`` lines,
  ``{"$set": {...}}`` metadata updates and ``{"$rewindTo": id}`` markers — read
  line by line by :func:`parse_records`. Sub-agents write
  ``chats/<parentSessionId>/<id>.jsonl`` (``kind: "subagent"``).

Identity: session = ``sessionId`` (else the file stem); message key = message
``id`` (else ``f"{file name}:{offset or index}"``); usage key =
``f"gemini:{session id}:{message key}"``.

Gemini re-appends a message under the same id each time it changes (tool
status, results, tokens). Within one parse the last write wins and each id is
emitted once, at its first position. Across resumes the importer keeps the
first stored version of a key, so a message that was still being updated when
the file was read keeps that earlier content (a known limitation).

``$rewindTo`` does not delete anything here: history that was rewound away
really happened, and a resumed import could not retract it anyway. The marker
is kept as an ``event`` (kind ``rewind``). ``$set.messages`` (a checkpoint that
replaces history) is read as an upsert of the messages it lists.

cwd comes from ``tmp/<id>/.project_root`` or ``~/.gemini/projects.json``
(``{"projects": {"/abs/path": "slug"}}``; an old sha256 project id is matched
by hashing each registered path); project = the ``<project-id>`` directory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import orjson

from viva_store.importing.harness.common import as_dict, as_list, as_str, note_unlistable
from viva_store.importing.harness.gemini.session import GeminiSession
from viva_store.importing.harness.gemini.state import GeminiState
from viva_store.importing.harness.model import JsonObj, ParsedChunk, Problem, Record, SourceFile
from viva_store.importing.harness.reader import LineParse

_MAX_JSON_BYTES = 512 << 20
_META_KEYS = ("sessionId", "projectHash", "startTime", "lastUpdated", "kind")


class GeminiReader:
    """Gemini CLI chats: whole JSON records (≤ 0.39) and JSON lines (≥ 0.40)."""

    name = "gemini"
    env_roots: tuple[str, ...] = ("GEMINI_CLI_HOME", "GEMINI_DATA_DIR")

    def default_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """``~/.gemini/tmp``, honouring ``GEMINI_CLI_HOME`` (Gemini's own home
        override) and ``GEMINI_DATA_DIR`` (a ``.gemini`` dir or its ``tmp``)."""
        roots: list[Path] = []
        data_dir = env.get("GEMINI_DATA_DIR")
        if data_dir:
            path = Path(data_dir).expanduser()
            roots.append(path / "tmp" if (path / "tmp").is_dir() else path)
        if env.get("GEMINI_CLI_HOME"):
            roots.append(Path(env["GEMINI_CLI_HOME"]).expanduser() / ".gemini" / "tmp")
        roots.append(home / ".gemini" / "tmp")
        return list(dict.fromkeys(roots))  # each once, in order

    def discover(self, root: Path, problems: list[Problem] | None = None) -> Iterator[SourceFile]:
        """Chat files under ``root`` (``<project-id>/chats/``), sorted by path.

        ``session-*.json`` → kind ``json``; ``session-*.jsonl`` and sub-agent
        ``chats/<parent>/*.jsonl`` → kind ``jsonl``. ``checkpoint-*.json`` (``/chat
        save``) copies are not discovered: they repeat a recorded conversation.
        """
        try:
            projects = sorted(p for p in root.iterdir() if p.is_dir())
        except OSError as exc:
            note_unlistable(problems, root, exc)
            return
        for project in projects:
            chats = project / "chats"
            try:
                entries = sorted(chats.iterdir())
            except OSError as exc:
                note_unlistable(problems, chats, exc)
                continue
            for entry in entries:
                if entry.is_dir():
                    try:
                        subs = sorted(p for p in entry.iterdir() if p.is_file())
                    except OSError as exc:
                        note_unlistable(problems, entry, exc)
                        continue
                    for sub in subs:
                        if sub.suffix in (".jsonl", ".json"):
                            yield SourceFile(self.name, sub, _kind(sub))
                elif entry.name.startswith("session-") and entry.suffix in (".jsonl", ".json"):
                    yield SourceFile(self.name, entry, _kind(entry))

    def parse_records(
        self, source: SourceFile, records: Iterable[Record], saved: JsonObj
    ) -> LineParse:
        """Normalize Gemini JSONL records; yields one chunk with each message id once."""
        state = GeminiState.from_json(saved)
        session = GeminiSession(source, state)
        seen_any = False
        for record in records:
            seen_any = True
            obj = record.obj
            offset_key = f"{source.path.name}:{record.offset}"
            if "$rewindTo" in obj:
                target = obj.get("$rewindTo")
                session.add_event(obj, offset_key, "rewind", f"rewind to {target}")
            elif "$set" in obj:
                update = as_dict(obj.get("$set"))
                session.apply_meta(update)
                _add_messages(session, update.get("messages"), offset_key)
            elif _is_message(obj):
                session.add_record(obj, offset_key)
            elif any(key in obj for key in _META_KEYS):
                session.apply_meta(obj)
                _add_messages(session, obj.get("messages"), offset_key)
            else:
                session.add_event(obj, offset_key, "unknown")
        if seen_any:
            yield session.chunk()
        return state.to_json()

    def read_whole(self, source: SourceFile) -> Iterator[ParsedChunk | Problem]:
        """Read a whole-file Gemini chat (``ConversationRecord``, checkpoint or variant)."""
        path = source.path
        try:
            size = path.stat().st_size
            if size > _MAX_JSON_BYTES:
                yield Problem(str(path), None, f"file too large to read whole ({size} bytes)")
                return
            data = orjson.loads(path.read_bytes())
        except OSError as exc:
            yield Problem(str(path), None, f"unreadable: {exc.strerror or exc}")
            return
        except orjson.JSONDecodeError as exc:
            yield Problem(str(path), None, f"not JSON: {exc}")
            return
        session = GeminiSession(source, GeminiState())
        if isinstance(data, list):
            data = {"history": data}
        if not isinstance(data, dict):
            yield Problem(str(path), None, "not a Gemini chat record")
            return
        session.apply_meta(data)
        messages = data.get("messages")
        history = data.get("history")
        if isinstance(messages, list):
            for index, message in enumerate(messages):
                session.add_record(as_dict(message), f"{path.name}:{index}")
        elif isinstance(history, list):
            for index, item in enumerate(history):
                session.add_record(as_dict(item), f"{path.name}:{index}")
        elif not as_str(data.get("sessionId")):
            yield Problem(str(path), None, "not a Gemini chat record")
            return
        if not session.models:
            # Variants (e.g. a checkpoint) may name the model only at the top level.
            model = as_str(as_dict(data.get("meta")).get("model")) or as_str(data.get("model"))
            if model:
                session.models.add(model)
        yield session.chunk()


def _kind(path: Path) -> str:
    return "jsonl" if path.suffix == ".jsonl" else "json"


def _is_message(obj: dict[str, Any]) -> bool:
    return "type" in obj and ("id" in obj or "content" in obj or "parts" in obj)


def _add_messages(session: GeminiSession, messages: Any, offset_key: str) -> None:
    """The messages a metadata line or a ``$set`` lists (a checkpoint), upserted."""
    for index, message in enumerate(as_list(messages)):
        session.add_record(as_dict(message), f"{offset_key}:{index}")


READER = GeminiReader()
