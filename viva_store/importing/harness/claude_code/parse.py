"""The line-by-line conversion behind :mod:`viva_store.importing.harness.claude_code.reader`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from viva_store.importing.harness.claude_code.blocks import (
    Group,
    block_key,
    groups,
    thinking_text,
)
from viva_store.importing.harness.claude_code.state import (
    FIRSTS,
    RECENT_LINES,
    SUMMARIES,
    ClaudeState,
)
from viva_store.importing.harness.claude_code.text import (
    UUID,
    blocks_text,
    is_injected,
    prompt_title,
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
    json_of,
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

    def _leaf_seen(self, uuid: str, line: int) -> None:
        """A line that may be a summary's leaf: the summary of the latest leaf titles."""
        state = self.state
        remember(state.recent_lines, uuid, line, RECENT_LINES)
        waiting = state.summaries.pop(uuid, None)
        if waiting is not None:
            self._leaf_summary(waiting, line)

    def _summary_of_leaf(self, leaf: str | None, text: str) -> None:
        if not leaf or not text:
            return
        line = self.state.recent_lines.get(leaf)
        if line is not None:
            self._leaf_summary(text, line)
        else:
            remember(self.state.summaries, leaf, text, SUMMARIES)

    def _leaf_summary(self, text: str, leaf_line: int) -> None:
        if leaf_line > self.state.summary_leaf_line:
            self.state.summary_leaf_line = leaf_line
            # Among several summary lines, the one whose leaf comes last titles it.
            self._offer_title(TITLE_RANK_SUMMARY, text, latest_wins=True)

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
        line_uuid = as_str(obj.get("uuid"))
        key = line_uuid or offset_key
        if line_uuid is not None:
            self._leaf_seen(line_uuid, record.line)
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
            self._summary_of_leaf(as_str(obj.get("leafUuid")), text)
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
                    tool_args=json_of(obj.get("input")),
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
        parts = list(groups(content))
        texts = [g.text for g in parts if g.kind == "text"]
        text = texts[0] if len(texts) == 1 else join_text(texts)
        has_results = any(g.kind == "tool_result" for g in parts)
        origin = as_dict(obj.get("origin")).get("kind")
        synthetic = (
            obj.get("isMeta") is True
            or (isinstance(origin, str) and origin in _INJECTED_ORIGINS)
            or (bool(text) and is_injected(text))
        )
        if text and not synthetic and not sc:
            self._offer_title(TITLE_RANK_FIRST_PROMPT, prompt_title(text), latest_wins=False)
        elif text and not sc and obj.get("isMeta") is not True:
            command = slash_command(text)
            if command:
                self._offer_title(_TITLE_RANK_COMMAND, command, latest_wins=False)
        if not parts:
            parts = [Group(0, "text")]
        for part in parts:
            if part.kind == "text" and (part.text or not has_results):
                self._add(
                    Message(
                        key=block_key(key, part.index),
                        role="user",
                        text=part.text,
                        at=at,
                        sidechain=sc,
                        synthetic=synthetic,
                    )
                )
            elif part.kind == "tool_result":
                block = part.block
                tool_id = as_str(block.get("tool_use_id"))
                self._add(
                    Message(
                        key=block_key(key, part.index),
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
        for part in groups(content or []):
            fields: dict[str, Any]
            if part.kind == "text":
                fields = {"text": part.text, "kind": "text"}
            elif part.kind == "thinking":
                fields = {"text": thinking_text(part), "kind": "thinking"}
            elif part.kind == "tool_use":
                block = part.block
                name = as_str(block.get("name"))
                tool_id = as_str(block.get("id"))
                if tool_id and name:
                    remember(self.state.tools, tool_id, name, _TOOLS_CAP)
                value = block.get("input")
                fields = {
                    "tool": name,
                    "tool_input": tool_input_line(value),
                    "tool_args": json_of(value),
                    "kind": "tool_use",
                }
            else:
                fields = {"tool_result": blocks_text(part.block.get("content")), "kind": part.kind}
            self._add(
                Message(
                    key=block_key(key, part.index),
                    role="assistant",
                    at=at,
                    sidechain=sc,
                    synthetic=synthetic,
                    model=model,
                    **fields,
                )
            )
        if not synthetic:
            self.usage.offer(obj, msg, offset_key, model)
