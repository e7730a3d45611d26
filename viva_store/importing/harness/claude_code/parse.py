"""The line-by-line conversion behind :mod:`viva_store.importing.harness.claude_code.reader`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from viva_store.importing.harness.claude_code.state import FIRSTS, ClaudeState
from viva_store.importing.harness.claude_code.text import (
    UUID,
    blocks_text,
    is_injected,
    message_keys,
    slash_command,
    subagents_parent,
)
from viva_store.importing.harness.claude_code.usage import StreamedUsage
from viva_store.importing.harness.common import (
    TITLE_RANK_AGENT_NAME,
    TITLE_RANK_AI,
    TITLE_RANK_CUSTOM,
    TITLE_RANK_FIRST_PROMPT,
    TITLE_RANK_SUMMARY,
    as_dict,
    as_str,
    join_text,
    json_text,
    one_line,
    parse_timestamp,
    remember,
    tool_input_line,
)
from viva_store.importing.harness.model import (
    Message,
    ParsedChunk,
    Record,
    SessionMeta,
    SourceFile,
)

CHUNK_MESSAGES = 500
_TOOLS_CAP = 512
# A slash command the human typed titles a session only until a real prompt does.
_TITLE_RANK_COMMAND = TITLE_RANK_FIRST_PROMPT - 5
_INJECTED_ORIGINS = frozenset({"task-notification", "coordinator"})
_TITLE_LINES = {
    "custom-title": ("customTitle", TITLE_RANK_CUSTOM),
    "agent-name": ("agentName", TITLE_RANK_AGENT_NAME),
    "ai-title": ("aiTitle", TITLE_RANK_AI),
}


class ClaudeParser:
    """Stateful conversion of one file's records into chunks."""

    def __init__(self, source: SourceFile, state: ClaudeState) -> None:
        self.source = source
        self.state = state
        self.name = source.path.name
        self.is_agent = self.name.startswith("agent-")
        self.folder_parent = subagents_parent(source.path) if self.is_agent else None
        self.messages: list[Message] = []
        self.usage = StreamedUsage(state)
        self.models: set[str] = set()
        self.start: datetime | None = None
        self.end: datetime | None = None
        self.title: str | None = None
        self.title_rank = 0
        # (state field, line field) whose first non-empty value is still to be found
        self.firsts = [(name, field) for name, field in FIRSTS if getattr(state, name) is None]

    # -- chunk assembly -------------------------------------------------
    def native_id(self) -> str:
        """The session id, decided once and kept in ``state``."""
        sid = self.state.sid
        if sid is None:
            stem = self.name.removesuffix(".jsonl")
            named = self.is_agent or UUID.fullmatch(stem)
            sid = stem if named else self.state.line_sid or stem
            self.state.sid = sid
        return sid

    def flush(self) -> ParsedChunk:
        """The chunk accumulated so far; starts a new one."""
        state = self.state
        sid = self.native_id()
        parent = self.folder_parent if self.folder_parent else None
        if self.is_agent and parent is None:
            parent = state.line_sid
        if parent == sid:
            parent = None
        version = state.version
        meta = SessionMeta(
            native_id=sid,
            parent_native_id=parent,
            relation="subagent" if self.is_agent else None,
            cwd=state.cwd,
            git_branch=state.branch,
            models=self.models,
            started_at=self.start,
            ended_at=self.end,
            title=self.title,
            title_rank=self.title_rank if self.title else 0,
            entrypoint=state.entrypoint,
            originator=f"claude-code/{version}" if version else None,
        )
        chunk = ParsedChunk(meta=meta, messages=self.messages, usage=self.usage.take())
        self.messages, self.models = [], set()
        self.start = self.end = None
        self.title, self.title_rank = None, 0
        return chunk

    def _seen_time(self, at: datetime | None) -> None:
        if at is None:
            return
        if self.start is None or at < self.start:
            self.start = at
        if self.end is None or at > self.end:
            self.end = at

    def _offer_title(self, rank: int, text: Any, latest_wins: bool) -> None:
        title = one_line(text) if isinstance(text, str) else ""
        if not title:
            return
        best = self.state.title_rank
        if rank > best or (rank == best and latest_wins):
            self.state.title_rank = rank
            self.title, self.title_rank = title, rank

    def _take_firsts(self, obj: dict[str, Any]) -> None:
        """Keep the first non-empty value of each line field not known yet."""
        for name, field in self.firsts:
            value = obj.get(field)
            if isinstance(value, str) and value.strip():
                setattr(self.state, name, value)
        self.firsts = [(n, f) for n, f in self.firsts if getattr(self.state, n) is None]

    # -- records --------------------------------------------------------
    def feed(self, record: Record) -> None:
        """Turn one decoded line into messages, usage and metadata."""
        obj: Any = record.obj
        offset_key = f"{self.name}:{record.offset}"
        if not isinstance(obj, dict):
            self._event(offset_key, None, "non-object", {"value": obj}, False)
            return
        at = parse_timestamp(obj.get("timestamp"))
        self._seen_time(at)
        if self.firsts:
            self._take_firsts(obj)
        key = as_str(obj.get("uuid")) or offset_key
        sidechain = obj.get("isSidechain") is True and not self.is_agent
        kind = obj.get("type")
        msg = obj.get("message")
        if kind is None and isinstance(msg, dict) and msg.get("role") in ("user", "assistant"):
            kind = msg["role"]
        if kind in ("user", "assistant"):
            if not isinstance(msg, dict):
                self._event(offset_key, at, str(kind), obj, sidechain)
            elif kind == "user":
                self._user(obj, msg, key, at, sidechain)
            else:
                self._assistant(obj, msg, key, offset_key, at, sidechain)
        elif kind == "system":
            content = obj.get("content")
            self._add(
                Message(
                    key=key,
                    role="system",
                    text=content if isinstance(content, str) else "",
                    at=at,
                    sidechain=sidechain,
                    synthetic=obj.get("isMeta") is True,
                    kind=as_str(obj.get("subtype")) or "system",
                    raw=obj,
                )
            )
        elif kind == "summary":
            summary = obj.get("summary")
            self._offer_title(TITLE_RANK_SUMMARY, summary, latest_wins=False)
            text = summary if isinstance(summary, str) else ""
            self._add(
                Message(key=key, role="summary", text=text, at=at, synthetic=True, kind="summary")
            )
        elif kind == "tool_use":  # legacy top-level tool lines
            self._add(
                Message(
                    key=key,
                    role="assistant",
                    at=at,
                    tool=as_str(obj.get("name")),
                    tool_input=tool_input_line(obj.get("input")),
                    sidechain=sidechain,
                    kind="tool_use",
                )
            )
        elif kind == "tool_result":
            output = obj.get("output", obj.get("content"))
            result = blocks_text(output) if output is not None else ""
            if not result and output is not None and not isinstance(output, str | list):
                result = json_text(output)
            self._add(
                Message(
                    key=key,
                    role="tool",
                    at=at,
                    tool=as_str(obj.get("name")),
                    tool_result=result,
                    sidechain=sidechain,
                    kind="tool_result",
                )
            )
        else:
            if isinstance(kind, str) and kind in _TITLE_LINES:
                field, rank = _TITLE_LINES[kind]
                self._offer_title(rank, obj.get(field), latest_wins=True)
            self._event(key, at, kind if isinstance(kind, str) else "unknown", obj, sidechain)

    def _add(self, message: Message) -> None:
        self.messages.append(message)

    def _event(
        self, key: str, at: datetime | None, kind: str, raw: dict[str, Any], sidechain: bool
    ) -> None:
        self._add(Message(key=key, role="event", at=at, sidechain=sidechain, kind=kind, raw=raw))

    def _user(
        self, obj: dict[str, Any], msg: dict[str, Any], key: str, at: datetime | None, sc: bool
    ) -> None:
        content = msg.get("content")
        if obj.get("isCompactSummary") is True:
            text = blocks_text(content)
            self._add(
                Message(
                    key=key,
                    role="summary",
                    text=text,
                    at=at,
                    sidechain=sc,
                    synthetic=True,
                    kind="compact_summary",
                )
            )
            return
        if isinstance(content, str):
            content = [content]
        if not isinstance(content, list):
            self._event(key, at, "user", obj, sc)
            return
        texts = [b for b in content if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        results = [b for b in content if isinstance(b, dict) and b.get("type") == "tool_result"]
        keys = message_keys(key)
        text = blocks_text(texts)
        if text or not results:
            origin = as_dict(obj.get("origin")).get("kind")
            synthetic = (
                obj.get("isMeta") is True
                or (isinstance(origin, str) and origin in _INJECTED_ORIGINS)
                or is_injected(text)
            )
            if text and not synthetic and not sc:
                self._offer_title(TITLE_RANK_FIRST_PROMPT, text, latest_wins=False)
            elif text and not sc and obj.get("isMeta") is not True:
                command = slash_command(text)
                if command:
                    self._offer_title(_TITLE_RANK_COMMAND, command, latest_wins=False)
            self._add(
                Message(
                    key=next(keys), role="user", text=text, at=at, sidechain=sc, synthetic=synthetic
                )
            )
        for block in results:
            tool_id = as_str(block.get("tool_use_id"))
            self._add(
                Message(
                    key=next(keys),
                    role="tool",
                    at=at,
                    tool=self.state.tools.get(tool_id) if tool_id else None,
                    tool_result=blocks_text(block.get("content")),
                    sidechain=sc,
                    kind="tool_error" if block.get("is_error") is True else "tool_result",
                )
            )

    def _assistant(
        self,
        obj: dict[str, Any],
        msg: dict[str, Any],
        key: str,
        offset_key: str,
        at: datetime | None,
        sc: bool,
    ) -> None:
        raw_model = as_str(msg.get("model"))
        synthetic = raw_model == "<synthetic>" or obj.get("isApiErrorMessage") is True
        model = None if synthetic else raw_model
        if model:
            self.models.add(model)
        content = msg.get("content")
        if content is None and not isinstance(msg.get("usage"), dict):
            self._event(key, at, "assistant", obj, sc)
            return
        if isinstance(content, str):
            content = [content]
        elif content is not None and not isinstance(content, list):
            self._event(key, at, "assistant", obj, sc)
            return
        keys = message_keys(key)
        texts: list[str] = []

        def add(**fields: Any) -> None:
            self._add(
                Message(
                    key=next(keys),
                    role="assistant",
                    at=at,
                    sidechain=sc,
                    synthetic=synthetic,
                    model=model,
                    **fields,
                )
            )

        def flush_text() -> None:
            if texts:
                add(text=join_text(texts), kind="text")
                texts.clear()

        for block in content or []:
            if isinstance(block, str):
                texts.append(block)
                continue
            block = as_dict(block)
            btype = block.get("type")
            if btype == "text":
                texts.append(as_str(block.get("text")) or "")
            elif btype == "thinking":
                flush_text()
                add(text=as_str(block.get("thinking")) or "", kind="thinking")
            elif btype in ("tool_use", "server_tool_use"):
                flush_text()
                name = as_str(block.get("name"))
                tool_id = as_str(block.get("id"))
                if tool_id and name:
                    remember(self.state.tools, tool_id, name, _TOOLS_CAP)
                add(tool=name, tool_input=tool_input_line(block.get("input")), kind="tool_use")
            elif isinstance(btype, str) and btype.endswith("tool_result"):
                flush_text()
                add(tool_result=blocks_text(block.get("content")), kind=btype)
        flush_text()
        if not synthetic:
            self.usage.offer(obj, msg, offset_key, model)
