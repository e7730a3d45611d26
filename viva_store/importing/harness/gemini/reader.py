"""Reader for Gemini CLI chat recordings (``~/.gemini/tmp/<project-id>/chats/``).

Two formats live side by side:

* ``session-*.json`` (≤ 0.39): one ``ConversationRecord`` rewritten in place —
  read whole by :func:`read_source`. The ``/chat save`` checkpoint shape
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

import hashlib
from collections.abc import Iterator, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from viva_store.importing.harness.common import (
    TITLE_RANK_FIRST_PROMPT,
    TITLE_RANK_SUMMARY,
    as_dict,
    as_int,
    as_list,
    as_str,
    one_line,
    parse_timestamp,
)
from viva_store.importing.harness.gemini.convert import convert_message
from viva_store.importing.harness.model import (
    Message,
    ParsedChunk,
    Problem,
    Record,
    SessionMeta,
    SourceFile,
    Usage,
)

NAME = "gemini"
ENV_ROOTS: tuple[str, ...] = ("GEMINI_CLI_HOME", "GEMINI_DATA_DIR")

_MAX_JSON_BYTES = 512 << 20
_META_KEYS = ("sessionId", "projectHash", "startTime", "lastUpdated", "kind")


def default_roots(env: Mapping[str, str], home: Path) -> list[Path]:
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
    unique: list[Path] = []
    for root in roots:
        if root not in unique:
            unique.append(root)
    return unique


def discover(root: Path) -> Iterator[SourceFile]:
    """Chat files under ``root`` (``<project-id>/chats/``), sorted by path.

    ``session-*.json`` → kind ``json``; ``session-*.jsonl`` and sub-agent
    ``chats/<parent>/*.jsonl`` → kind ``jsonl``. ``checkpoint-*.json`` (``/chat
    save``) copies are not discovered: they repeat a recorded conversation.
    """
    try:
        projects = sorted(p for p in root.iterdir() if p.is_dir())
    except OSError:
        return
    for project in projects:
        chats = project / "chats"
        try:
            entries = sorted(chats.iterdir())
        except OSError:
            continue
        for entry in entries:
            if entry.is_dir():
                try:
                    subs = sorted(p for p in entry.iterdir() if p.is_file())
                except OSError:
                    continue
                for sub in subs:
                    if sub.suffix in (".jsonl", ".json"):
                        yield SourceFile(NAME, sub, _kind(sub))
            elif entry.name.startswith("session-") and entry.suffix in (".jsonl", ".json"):
                yield SourceFile(NAME, entry, _kind(entry))


def _kind(path: Path) -> str:
    return "jsonl" if path.suffix == ".jsonl" else "json"


# -- layout facts -----------------------------------------------------------


def _layout(path: Path) -> dict[str, Any]:
    """Project id, parent session (sub-agent dir) and cwd implied by where ``path`` lives."""
    facts: dict[str, Any] = {}
    parent = path.parent
    if parent.name == "chats":
        project_dir = parent.parent
    elif parent.parent.name == "chats":
        project_dir = parent.parent.parent
        facts["parent"] = parent.name
    else:
        return facts
    facts["project"] = project_dir.name
    cwd = _project_cwd(project_dir)
    if cwd:
        facts["cwd"] = cwd
    return facts


def _project_cwd(project_dir: Path) -> str | None:
    try:
        marker = (project_dir / ".project_root").read_text("utf-8", errors="replace").strip()
    except OSError:
        marker = ""
    if marker:
        return marker
    try:
        registry = orjson.loads((project_dir.parent.parent / "projects.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    slug = project_dir.name
    for cwd, project_id in as_dict(as_dict(registry).get("projects")).items():
        if project_id == slug or hashlib.sha256(cwd.encode()).hexdigest() == slug:
            return cwd
    return None


# -- shared session assembly -------------------------------------------------


class _Session:
    """Accumulates one Gemini session: metadata, messages upserted by key, usage."""

    def __init__(self, source: SourceFile, state: dict[str, Any]) -> None:
        self.source = source
        self.state = state
        if "project" not in state and "layout" not in state:
            state.update(_layout(source.path))
            state["layout"] = True
        state.setdefault("sid", source.path.stem)
        self.messages: dict[str, Message] = {}
        self.usage: dict[str, Usage] = {}
        self.models: set[str] = set()
        self.start: datetime | None = None
        self.end: datetime | None = None
        self.title: str | None = None
        self.header = False

    def apply_meta(self, meta: dict[str, Any]) -> None:
        sid = as_str(meta.get("sessionId"))
        if sid and not self.state.get("sid_fixed"):
            self.state["sid"] = sid
            self.state["sid_fixed"] = True
        if as_str(meta.get("kind")):
            self.state["kind"] = meta["kind"]
        if not self.state.get("project") and as_str(meta.get("projectHash")):
            self.state["project"] = meta["projectHash"]
        self._time(parse_timestamp(meta.get("startTime", meta.get("start_time"))))
        self._time(parse_timestamp(meta.get("lastUpdated", meta.get("last_updated"))))
        summary = as_str(meta.get("summary"))
        if summary:
            self.title = summary.strip() or None
        self.header = True

    def _time(self, at: datetime | None) -> None:
        if at is not None:
            if self.start is None or at < self.start:
                self.start = at
            if self.end is None or at > self.end:
                self.end = at

    def add_record(self, record: dict[str, Any], key: str) -> None:
        converted = convert_message(record, key, self.state["sid"])
        for message in converted.messages:
            self.messages[message.key] = message
            self._time(message.at)
        if converted.usage is not None:
            self.usage[converted.usage.usage_key] = converted.usage
        self.models |= converted.models

    def add_event(self, record: dict[str, Any], key: str, kind: str, text: str = "") -> None:
        self.messages[key] = Message(key=key, role="event", text=text, kind=kind, raw=record)

    def _title(self) -> tuple[str | None, int]:
        """The summary, else the first prompt (only while no earlier read of this
        file offered one: ``state`` keeps the best rank, so that the prompt of an
        appended chunk never replaces the first)."""
        state = self.state
        if self.title:
            state["title_rank"] = max(as_int(state.get("title_rank")), TITLE_RANK_SUMMARY)
            return self.title, TITLE_RANK_SUMMARY
        if as_int(state.get("title_rank")) >= TITLE_RANK_FIRST_PROMPT:
            return None, 0
        for message in self.messages.values():
            prompt = one_line(message.text) if message.role == "user" else ""
            if prompt and not message.synthetic:
                state["title_rank"] = TITLE_RANK_FIRST_PROMPT
                return prompt, TITLE_RANK_FIRST_PROMPT
        return None, 0

    def chunk(self) -> ParsedChunk:
        state = self.state
        title, rank = self._title()
        parent = state.get("parent")
        meta = SessionMeta(
            native_id=state["sid"],
            parent_native_id=parent,
            relation="subagent" if parent else None,
            project=state.get("project"),
            cwd=state.get("cwd"),
            models=self.models,
            started_at=self.start,
            ended_at=self.end,
            title=title,
            title_rank=rank,
            entrypoint=state.get("kind"),
        )
        return ParsedChunk(
            meta=meta, messages=list(self.messages.values()), usage=list(self.usage.values())
        )


# -- JSONL (>= 0.40) -------------------------------------------------------------


def parse_records(
    source: SourceFile, records: Iterator[Record], state: dict[str, Any]
) -> Iterator[ParsedChunk]:
    """Normalize Gemini JSONL records; yields one chunk with each message id once."""
    session = _Session(source, state)
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
            for index, message in enumerate(as_list(update.get("messages"))):
                _add_message(session, as_dict(message), f"{offset_key}:{index}")
        elif _is_message(obj):
            _add_message(session, obj, offset_key)
        elif any(key in obj for key in _META_KEYS):
            session.apply_meta(obj)
            for index, message in enumerate(as_list(obj.get("messages"))):
                _add_message(session, as_dict(message), f"{offset_key}:{index}")
        else:
            session.add_event(obj, offset_key, "unknown")
    if seen_any:
        yield session.chunk()


def _is_message(obj: dict[str, Any]) -> bool:
    return "type" in obj and ("id" in obj or "content" in obj or "parts" in obj)


def _add_message(session: _Session, message: dict[str, Any], fallback_key: str) -> None:
    if not message:
        return
    key = as_str(message.get("id")) or fallback_key
    session.add_record(message, key)


# -- JSON (<= 0.39, checkpoints, drift) -------------------------------------------


def read_source(source: SourceFile, problems: list[Problem]) -> Iterator[ParsedChunk]:
    """Read a whole-file Gemini chat (``ConversationRecord``, checkpoint or variant)."""
    path = source.path
    try:
        size = path.stat().st_size
        if size > _MAX_JSON_BYTES:
            problems.append(
                Problem(str(path), None, f"file too large to read whole ({size} bytes)")
            )
            return
        data = orjson.loads(path.read_bytes())
    except OSError as exc:
        problems.append(Problem(str(path), None, f"unreadable: {exc.strerror or exc}"))
        return
    except orjson.JSONDecodeError as exc:
        problems.append(Problem(str(path), None, f"not JSON: {exc}"))
        return
    session = _Session(source, {})
    if isinstance(data, list):
        data = {"history": data}
    if not isinstance(data, dict):
        problems.append(Problem(str(path), None, "not a Gemini chat record"))
        return
    session.apply_meta(data)
    messages = data.get("messages")
    history = data.get("history")
    if isinstance(messages, list):
        for index, message in enumerate(messages):
            _add_message(session, as_dict(message), f"{path.name}:{index}")
    elif isinstance(history, list):
        for index, item in enumerate(history):
            _add_message(session, as_dict(item), f"{path.name}:{index}")
    elif not as_str(data.get("sessionId")):
        problems.append(Problem(str(path), None, "not a Gemini chat record"))
        return
    if not session.models:
        # Variants (e.g. a checkpoint) may name the model only at the top level.
        model = as_str(as_dict(data.get("meta")).get("model")) or as_str(data.get("model"))
        if model:
            session.models.add(model)
    yield session.chunk()
