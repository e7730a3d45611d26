"""Entry-by-entry conversion of a pi session file (used by its reader).

See :mod:`viva_store.importing.harness.pi.reader` for the identity, fork and usage rules.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from viva_store.importing.harness.common import (
    TITLE_RANK_CUSTOM,
    TITLE_RANK_FIRST_PROMPT,
    as_dict,
    as_int,
    as_list,
    as_str,
    join_text,
    one_line,
    parse_timestamp,
    tool_input_line,
)
from viva_store.importing.harness.model import (
    Message,
    ParsedChunk,
    Record,
    SessionMeta,
    SourceFile,
    Usage,
)
from viva_store.importing.harness.pi.state import PiState

_SUMMARY_ROLES = {"compactionSummary": "compaction", "branchSummary": "branch_summary"}
_CUSTOM_ROLES = ("custom", "hookMessage")


def session_id_from_path(path: str | Path) -> str:
    """The session id encoded in a pi file name ``<ts>_<uuid>.jsonl`` (else the stem)."""
    name = str(path).replace("\\", "/").rsplit("/", 1)[-1]
    stem = name[: -len(".jsonl")] if name.endswith(".jsonl") else name
    _, sep, tail = stem.partition("_")
    return tail if sep and tail else stem


class PiParser:
    """Stateful conversion of one file's records; flushes into chunks."""

    def __init__(self, source: SourceFile, state: PiState) -> None:
        self.source = source
        self.state = state
        if state.sid is None:
            state.sid = session_id_from_path(source.path)
        self.messages: list[Message] = []
        self.usage: list[Usage] = []
        self.models: set[str] = set()
        self.start: datetime | None = None
        self.end: datetime | None = None
        self.title: str | None = None
        self.title_rank = 0
        self.meta_dirty = False
        self.fork_at = parse_timestamp(state.fork_at)

    @property
    def sid(self) -> str:
        return self.state.sid or session_id_from_path(self.source.path)

    # -- chunk assembly -------------------------------------------------
    def flush(self) -> ParsedChunk:
        state = self.state
        project = self.source.path.parent.name
        meta = SessionMeta(
            native_id=self.sid,
            parent_native_id=state.parent,
            relation=state.relation,
            project=project if project.startswith("--") else None,
            cwd=state.cwd,
            models=self.models,
            started_at=self.start,
            ended_at=self.end,
            title=self.title,
            title_rank=self.title_rank if self.title else 0,
        )
        chunk = ParsedChunk(meta=meta, messages=self.messages, usage=self.usage)
        self.messages, self.usage, self.models = [], [], set()
        self.start = self.end = None
        self.title, self.title_rank = None, 0
        self.meta_dirty = False
        return chunk

    def _seen_time(self, at: datetime | None) -> None:
        if at is None:
            return
        if self.start is None or at < self.start:
            self.start = at
        if self.end is None or at > self.end:
            self.end = at

    # -- records --------------------------------------------------------
    def feed(self, record: Record) -> None:
        obj = record.obj
        kind = obj.get("type")
        # A header on line 1 is always the header (a file pi rewrote is re-read from the start).
        if kind == "session" and (record.offset == 0 or not self.state.header):
            self._header(obj)
            return
        at = parse_timestamp(obj.get("timestamp"))
        fork_at = self.fork_at
        if fork_at is not None and at is not None and at < fork_at:
            self.state.copied += 1
            return
        key = as_str(obj.get("id")) or f"{self.source.path.name}:{record.offset}"
        self._seen_time(at)
        if kind == "message":
            self._message(obj, key, at)
        elif kind in ("compaction", "branch_summary"):
            self._add(
                Message(
                    key=key,
                    role="summary",
                    text=as_str(obj.get("summary")) or "",
                    at=at,
                    synthetic=True,
                    kind=str(kind),
                    raw=_without(obj, "summary"),
                )
            )
        elif kind == "model_change":
            model = as_str(obj.get("modelId"))
            if model:
                self.models.add(model)
            provider = as_str(obj.get("provider"))
            label = "/".join(p for p in (provider, model) if p)
            self._event(obj, key, at, f"model: {label}" if label else "")
        elif kind == "thinking_level_change":
            self._event(obj, key, at, f"thinking level: {obj.get('thinkingLevel')}")
        elif kind == "session_info":
            name = as_str(obj.get("name"))
            if name:
                self._offer_title(TITLE_RANK_CUSTOM, name, latest_wins=True)
            self._event(obj, key, at, name or "")
        elif kind == "label":
            self._event(obj, key, at, str(obj.get("label") or ""))
        elif kind == "custom_message":
            self._add(
                Message(
                    key=key,
                    role="system",
                    text=_content_text(obj.get("content")),
                    at=at,
                    kind=f"custom_message:{obj.get('customType') or ''}",
                )
            )
        else:
            self._event(obj, key, at, "")

    def _offer_title(self, rank: int, text: str, latest_wins: bool) -> None:
        """A session name beats the first prompt; ``state`` remembers the best
        rank across chunks and resumes, so a later prompt never replaces it."""
        title = one_line(text)
        best = self.state.title_rank
        if title and (rank > best or (rank == best and latest_wins)):
            self.state.title_rank = rank
            self.title, self.title_rank = title, rank

    def _header(self, obj: dict[str, Any]) -> None:
        state = self.state
        state.header = True
        self.meta_dirty = True
        sid = as_str(obj.get("id"))
        if sid:
            state.sid = sid
        cwd = as_str(obj.get("cwd"))
        if cwd:
            state.cwd = cwd
        for field, relation in (("parentSession", "fork"), ("branchedFrom", "branch")):
            parent = as_str(obj.get(field))
            if parent:
                state.parent = session_id_from_path(parent)
                state.relation = relation
                self.fork_at = parse_timestamp(obj.get("timestamp"))
                if self.fork_at is not None:
                    state.fork_at = str(obj["timestamp"])
                break
        self._seen_time(parse_timestamp(obj.get("timestamp")))

    def _add(self, message: Message) -> None:
        self.messages.append(message)

    def _event(self, obj: dict[str, Any], key: str, at: datetime | None, text: str) -> None:
        self._add(
            Message(key=key, role="event", text=text, at=at, kind=str(obj.get("type")), raw=obj)
        )

    def _message(self, obj: dict[str, Any], key: str, at: datetime | None) -> None:
        msg = obj.get("message")
        if not isinstance(msg, dict):
            self._event(obj, key, at, "")
            return
        if at is None:
            at = parse_timestamp(msg.get("timestamp"))
            self._seen_time(at)
        role = msg.get("role")
        if role == "user":
            text = _content_text(msg.get("content"))
            self._offer_title(TITLE_RANK_FIRST_PROMPT, text, latest_wins=False)
            self._add(Message(key=key, role="user", text=text, at=at))
        elif role == "assistant":
            self._assistant(obj, msg, key, at)
        elif role == "toolResult":
            is_error = msg.get("isError") is True
            self._add(
                Message(
                    key=key,
                    role="tool",
                    at=at,
                    tool=as_str(msg.get("toolName")),
                    tool_result=_content_text(msg.get("content")),
                    kind="tool_error" if is_error else "tool_result",
                )
            )
        elif role == "bashExecution":
            self._add(
                Message(
                    key=key,
                    role="tool",
                    at=at,
                    tool="bash",
                    tool_input=as_str(msg.get("command")),
                    tool_result=msg.get("output") if isinstance(msg.get("output"), str) else None,
                    kind="bash",
                )
            )
        elif role in _SUMMARY_ROLES:
            self._add(
                Message(
                    key=key,
                    role="summary",
                    text=as_str(msg.get("summary")) or "",
                    at=at,
                    synthetic=True,
                    kind=_SUMMARY_ROLES[str(role)],
                )
            )
        elif role in _CUSTOM_ROLES:
            self._add(
                Message(
                    key=key,
                    role="system",
                    text=_content_text(msg.get("content")),
                    at=at,
                    kind=f"custom:{msg.get('customType') or ''}",
                )
            )
        else:
            self._event(obj, key, at, "")

    def _assistant(
        self, obj: dict[str, Any], msg: dict[str, Any], key: str, at: datetime | None
    ) -> None:
        model = as_str(msg.get("model"))
        if model:
            self.models.add(model)
        blocks = msg.get("content")
        texts: list[str] = []
        thinking: list[str] = []
        calls: list[dict[str, Any]] = []
        if isinstance(blocks, str):
            texts.append(blocks)
        for block in as_list(blocks):
            block = as_dict(block)
            btype = block.get("type")
            if btype == "text":
                texts.append(as_str(block.get("text")) or "")
            elif btype == "thinking":
                thinking.append(as_str(block.get("thinking")) or "")
            elif btype == "toolCall":
                calls.append(block)
            elif btype == "image":
                texts.append("[image]")
        error = as_str(msg.get("errorMessage"))
        if error:
            texts.append(f"[{msg.get('stopReason') or 'error'}] {error}")
        if any(thinking):
            self._add(
                Message(
                    key=f"{key}:thinking",
                    role="assistant",
                    text=join_text(thinking),
                    at=at,
                    model=model,
                    kind="thinking",
                )
            )
        text = join_text(texts)
        # A turn that only thought and called tools has no text message of its own.
        if text or not (calls or any(thinking)):
            self._add(Message(key=key, role="assistant", text=text, at=at, model=model))
        for index, call in enumerate(calls):
            call_id = as_str(call.get("id")) or str(index)
            self._add(
                Message(
                    key=f"{key}:call:{call_id}",
                    role="assistant",
                    at=at,
                    model=model,
                    tool=as_str(call.get("name")),
                    tool_input=tool_input_line(call.get("arguments")),
                    kind="tool_call",
                )
            )
        usage_ref = as_str(obj.get("timestamp")) or key
        usage = pi_usage(f"pi:{self.sid}:{usage_ref}", msg.get("usage"), model)
        if usage is not None:
            self.usage.append(usage)


def _content_text(content: Any) -> str:
    """Text of a pi ``content`` value: a string or text/image blocks."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in as_list(content):
        block = as_dict(block)
        if block.get("type") == "text":
            parts.append(as_str(block.get("text")) or "")
        elif block.get("type") == "image":
            parts.append("[image]")
    return "\n".join(p for p in parts if p)


def _without(obj: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {k: v for k, v in obj.items() if k not in keys}


def pi_usage(usage_key: str, usage: Any, model: str | None) -> Usage | None:
    """A :class:`Usage` from a pi assistant ``usage`` object (``None`` when absent or all zero)."""
    if not isinstance(usage, dict):
        return None
    figures = Usage(
        usage_key=usage_key,
        input_tokens=as_int(usage.get("input")),
        output_tokens=as_int(usage.get("output")),
        cache_read_tokens=as_int(usage.get("cacheRead")),
        cache_write_tokens=as_int(usage.get("cacheWrite")),
        model=model,
    )
    total = (
        figures.input_tokens
        + figures.output_tokens
        + figures.cache_read_tokens
        + figures.cache_write_tokens
    )
    return figures if total else None
