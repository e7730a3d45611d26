"""One Gemini session being assembled, from a JSON record or JSONL lines.

Gemini re-appends a message under the same id each time it changes (tool
status, results, tokens): within one parse the last write wins and each id
is emitted once, at its first position.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from viva_store.importing.harness.common import (
    TITLE_RANK_FIRST_PROMPT,
    TITLE_RANK_SUMMARY,
    as_str,
    one_line,
    parse_timestamp,
)
from viva_store.importing.harness.gemini.convert import convert_message
from viva_store.importing.harness.gemini.state import GeminiState
from viva_store.importing.harness.model import (
    Message,
    ParsedChunk,
    SessionMeta,
    SourceFile,
    Usage,
)


class GeminiSession:
    """Accumulates one Gemini session: metadata, messages upserted by key, usage."""

    def __init__(self, source: SourceFile, state: GeminiState) -> None:
        self.source = source
        self.state = state
        state.place(source.path)
        if state.sid is None:
            state.sid = source.path.stem
        self.messages: dict[str, Message] = {}
        self.usage: dict[str, Usage] = {}
        self.models: set[str] = set()
        self.start: datetime | None = None
        self.end: datetime | None = None
        self.title: str | None = None
        self.header = False

    @property
    def sid(self) -> str:
        return self.state.sid or self.source.path.stem

    def apply_meta(self, meta: dict[str, Any]) -> None:
        """Take a metadata line, a ``$set`` update or a whole record's header fields."""
        state = self.state
        sid = as_str(meta.get("sessionId"))
        if sid and not state.sid_fixed:
            state.sid, state.sid_fixed = sid, True
        kind = as_str(meta.get("kind"))
        if kind:
            state.kind = kind
        project = as_str(meta.get("projectHash"))
        if not state.project and project:
            state.project = project
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
        """One ``MessageRecord`` (empty ones are nothing)."""
        if not record:
            return
        converted = convert_message(record, as_str(record.get("id")) or key, self.sid)
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
        file offered one: the state keeps the best rank, so that the prompt of an
        appended chunk never replaces the first)."""
        state = self.state
        if self.title:
            state.title_rank = max(state.title_rank, TITLE_RANK_SUMMARY)
            return self.title, TITLE_RANK_SUMMARY
        if state.title_rank >= TITLE_RANK_FIRST_PROMPT:
            return None, 0
        for message in self.messages.values():
            prompt = one_line(message.text) if message.role == "user" else ""
            if prompt and not message.synthetic:
                state.title_rank = TITLE_RANK_FIRST_PROMPT
                return prompt, TITLE_RANK_FIRST_PROMPT
        return None, 0

    def chunk(self) -> ParsedChunk:
        state = self.state
        title, rank = self._title()
        meta = SessionMeta(
            native_id=self.sid,
            parent_native_id=state.parent,
            relation="subagent" if state.parent else None,
            project=state.project,
            cwd=state.cwd,
            models=self.models,
            started_at=self.start,
            ended_at=self.end,
            title=title,
            title_rank=rank,
            entrypoint=state.kind,
        )
        return ParsedChunk(
            meta=meta, messages=list(self.messages.values()), usage=list(self.usage.values())
        )
