"""The record-by-record conversion behind :mod:`viva_store.importing.harness.codex.reader`."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from viva_store.importing.harness.codex.items import (
    TOOL_CALLS,
    TOOL_OUTPUTS,
    content_text,
    epoch_ms,
    is_scaffolding,
    lineage,
    output_text,
    session_id_from_name,
    source_label,
    text_only,
    tool_call,
    tool_call_input,
)
from viva_store.importing.harness.codex.state import CodexState
from viva_store.importing.harness.codex.tokens import TokenCounter
from viva_store.importing.harness.common import (
    TITLE_RANK_CUSTOM,
    TITLE_RANK_FIRST_PROMPT,
    as_dict,
    as_str,
    one_line,
    parse_timestamp,
    remember,
    short_digest,
    without_keys_deep,
)
from viva_store.importing.harness.model import (
    Message,
    ParsedChunk,
    Record,
    SessionMeta,
    SourceFile,
    Usage,
)

_CALLS_CAP = 512
_MIRRORS_CAP = 16
_OPAQUE = frozenset({"encrypted_content"})
_MIRRORS = {"user_message": "user", "agent_message": "assistant", "agent_reasoning": "reasoning"}
_TASK_STARTS = ("task_started", "turn_started")


class CodexParser:
    """Stateful conversion of one rollout's records into chunks."""

    def __init__(self, source: SourceFile, state: CodexState) -> None:
        self.state = state
        self.base = source.path.name.removesuffix(".zst")
        self.tokens = TokenCounter(state, self.base)
        self.messages: list[Message] = []
        self.usage: list[Usage] = []
        self.models: set[str] = set()
        self.start: datetime | None = None
        self.end: datetime | None = None
        self.title: str | None = None
        self.title_rank = 0

    # -- chunk assembly -------------------------------------------------
    def flush(self) -> ParsedChunk:
        """The chunk accumulated so far; starts a new one."""
        state = self.state
        meta = SessionMeta(
            native_id=state.sid or session_id_from_name(self.base),
            parent_native_id=state.parent,
            relation=state.relation,
            cwd=state.cwd,
            git_branch=state.branch,
            models=self.models,
            started_at=self.start,
            ended_at=self.end,
            title=self.title,
            title_rank=self.title_rank if self.title else 0,
            entrypoint=state.entrypoint,
            originator=state.originator,
        )
        chunk = ParsedChunk(meta=meta, messages=self.messages, usage=self.usage)
        self.messages, self.usage, self.models = [], [], set()
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

    def _offer_title(self, rank: int, text: str, latest_wins: bool) -> None:
        title = one_line(text)
        best = self.state.title_rank
        if title and (rank > best or (rank == best and latest_wins)):
            self.state.title_rank = rank
            self.title, self.title_rank = title, rank

    def _set_first(self, name: str, value: Any) -> None:
        if getattr(self.state, name) is None and isinstance(value, str) and value.strip():
            setattr(self.state, name, value)

    def _add(self, key: str, role: str, at: datetime | None, **fields: Any) -> None:
        self.messages.append(Message(key=key, role=role, at=at, **fields))

    def _event(self, key: str, at: datetime | None, kind: str, obj: dict[str, Any]) -> None:
        self._add(key, "event", at, kind=kind, raw=without_keys_deep(obj, _OPAQUE))

    # -- records --------------------------------------------------------
    def feed(self, record: Record) -> None:
        """Turn one decoded line into messages, usage and metadata."""
        obj: Any = record.obj
        key = f"{self.base}:{record.offset}"
        state = self.state
        if not isinstance(obj, dict):
            if state.sid is None:
                state.sid = session_id_from_name(self.base)
            self._add(key, "event", None, kind="non-object", raw={"value": obj})
            return
        rtype, payload = obj.get("type"), obj.get("payload")
        envelope = isinstance(rtype, str) and isinstance(payload, dict)
        at = parse_timestamp(obj.get("timestamp", obj.get("created_at")))
        first = state.sid is None
        if first:
            head = payload if envelope and rtype == "session_meta" else obj
            if (envelope and rtype == "session_meta") or _is_header(obj):
                sid = as_str(as_dict(head).get("id")) or as_str(as_dict(head).get("session_id"))
            else:
                sid = None
            state.sid = sid or session_id_from_name(self.base)
        if envelope and rtype == "session_meta":
            self._session_meta(as_dict(payload), at)
            return
        if first and _is_header(obj):
            self._own_meta(obj, at)
            return
        if state.replay and not self._replay_ends(rtype, as_dict(payload), at):
            if rtype == "event_msg" and as_dict(payload).get("type") == "token_count":
                self.tokens.replayed(as_dict(payload))
            return
        self._seen_time(at)
        if not envelope:
            if "record_type" not in obj:
                self._item(obj, key, at, obj)
        elif rtype == "response_item":
            self._item(as_dict(payload), key, at, obj)
        elif rtype == "event_msg":
            self._event_msg(as_dict(payload), key, at, obj, record.offset)
        elif rtype == "turn_context":
            model = as_str(as_dict(payload).get("model"))
            if model:
                state.model = model
                self.models.add(model)
            self._set_first("cwd", as_dict(payload).get("cwd"))
        elif rtype == "compacted":
            text = as_str(as_dict(payload).get("message")) or ""
            self._add(key, "summary", at, text=text, synthetic=True, kind="compacted")
        else:
            self._event(key, at, str(rtype), obj)

    # -- session metadata and the replay gate ----------------------------
    def _session_meta(self, meta: dict[str, Any], at: datetime | None) -> None:
        state = self.state
        if not state.meta_seen:
            self._own_meta(meta, at)
            return
        sid = as_str(meta.get("id"))
        if sid and sid != state.sid:
            # A copy of the parent's session_meta: a sub-agent's replay starts here.
            if state.child_start is not None and not state.replay_opened:
                state.replay = state.replay_opened = True
            return
        self._seen_time(at)
        self._describe(meta)

    def _own_meta(self, meta: dict[str, Any], at: datetime | None) -> None:
        state = self.state
        state.meta_seen = True
        created = parse_timestamp(meta.get("timestamp")) or at
        self._seen_time(at)
        self._seen_time(created)
        self._describe(meta)
        parent, relation, child = lineage(meta)
        if parent and parent != state.sid:
            state.parent, state.relation = parent, relation
        # Without a creation time the replay could never be closed: fail open.
        if child and created is not None:
            state.child = True
            state.child_start = int(created.timestamp() * 1000)
            if as_str(meta.get("forked_from_id")):
                state.replay = state.replay_opened = True

    def _describe(self, meta: dict[str, Any]) -> None:
        self._set_first("cwd", meta.get("cwd"))
        self._set_first("branch", as_dict(meta.get("git")).get("branch"))
        self._set_first("entrypoint", source_label(meta.get("source")))
        client, version = as_str(meta.get("originator")), as_str(meta.get("cli_version"))
        if version:
            self._set_first("originator", f"{client or 'codex'}/{version}")
        self._set_first("originator", client)
        model = as_str(meta.get("model"))
        if model:
            self.models.add(model)

    def _replay_ends(self, rtype: Any, payload: dict[str, Any], at: datetime | None) -> bool:
        state = self.state
        start = state.child_start
        if start is None:
            return False
        if rtype == "event_msg" and payload.get("type") in _TASK_STARTS:
            started = epoch_ms(payload.get("started_at"))
            if started is not None and started >= start - start % 1000:
                state.replay = False
                return True
        if at is not None:
            if at.timestamp() * 1000 < start:
                state.replay_old = True
            elif state.replay_old:
                state.replay = False
                return True
        return False

    # -- response items ----------------------------------------------------
    def _item(
        self, item: dict[str, Any], key: str, at: datetime | None, obj: dict[str, Any]
    ) -> None:
        itype = item.get("type")
        model = self.state.model
        if itype == "message" or (itype is None and isinstance(item.get("role"), str)):
            self._message(item, key, at, model)
        elif itype == "reasoning":
            self.state.ri_reasoning = True
            text = content_text(item.get("summary"))  # summaries only, never raw reasoning
            if text and not self._matches_mirror("reasoning", text):
                self._add(key, "assistant", at, text=text, model=model, kind="reasoning")
        elif isinstance(itype, str) and itype in TOOL_CALLS:
            name, summary = tool_call(item)
            call_id = as_str(item.get("call_id"))
            if call_id and name:
                remember(self.state.calls, call_id, name, _CALLS_CAP)
            self._add(
                key,
                "assistant",
                at,
                tool=name,
                tool_input=summary,
                tool_args=tool_call_input(item),
                model=model,
                kind=itype,
            )
        elif isinstance(itype, str) and itype in TOOL_OUTPUTS:
            call_id = as_str(item.get("call_id"))
            name = self.state.calls.get(call_id) if call_id else None
            output = item.get("output", item.get("result", item.get("tools")))
            self._add(
                key,
                "tool",
                at,
                tool=name or as_str(item.get("name")),
                tool_result=output_text(output),
                kind=str(itype),
            )
        else:
            self._event(key, at, str(itype) if itype else "unknown", obj)

    def _message(
        self, item: dict[str, Any], key: str, at: datetime | None, model: str | None
    ) -> None:
        role = item.get("role")
        content = item.get("content", item.get("message"))
        text = content_text(content)
        extra_model = as_str(item.get("model"))
        if extra_model:
            self.models.add(extra_model)
        if role in ("developer", "system"):
            self._add(key, "system", at, text=text, synthetic=True, kind=str(role))
            return
        if role not in ("user", "assistant"):
            self._event(key, at, "message", item)
            return
        self.state.ri_message = True
        if self._matches_mirror(str(role), text_only(content)):
            return
        self._text(str(role), text, key, at, model, "message")

    def _text(
        self, role: str, text: str, key: str, at: datetime | None, model: str | None, kind: str
    ) -> None:
        if role == "user":
            synthetic = is_scaffolding(text)
            if not synthetic:
                self._offer_title(TITLE_RANK_FIRST_PROMPT, text, latest_wins=False)
            self._add(key, "user", at, text=text, synthetic=synthetic, kind=kind)
        else:
            self._add(key, "assistant", at, text=text, model=model, kind=kind)

    def _matches_mirror(self, role: str, text: str) -> bool:
        mark = f"{role}:{short_digest(' '.join(text.split()))}"
        if mark in self.state.mirrors:
            self.state.mirrors.remove(mark)
            return True
        return False

    # -- events ------------------------------------------------------------
    def _event_msg(
        self,
        payload: dict[str, Any],
        key: str,
        at: datetime | None,
        obj: dict[str, Any],
        offset: int,
    ) -> None:
        etype = payload.get("type")
        state = self.state
        if etype == "token_count":
            usage, model = self.tokens.token_count(payload, offset)
            if model:
                self.models.add(model)
            if usage is not None:
                self.usage.append(usage)
        elif isinstance(etype, str) and etype in _MIRRORS:
            role = _MIRRORS[etype]
            if state.ri_reasoning if role == "reasoning" else state.ri_message:
                return
            text = as_str(payload.get("message")) or as_str(payload.get("text")) or ""
            state.mirrors.append(f"{role}:{short_digest(' '.join(text.split()))}")
            del state.mirrors[:-_MIRRORS_CAP]
            model = state.model
            if role == "reasoning":
                self._add(key, "assistant", at, text=text, model=model, kind="agent_reasoning")
            else:
                self._text(role, text, key, at, model, etype)
        elif etype == "tool_call":  # an early shape with no response_item twin
            self._item(payload, key, at, obj)
        elif etype == "turn.completed" and isinstance(payload.get("usage"), dict):
            usage = self.tokens.turn_completed(payload["usage"], offset)
            if usage is not None:
                self.usage.append(usage)
            self._event(key, at, etype, obj)
        else:
            if etype == "thread_name_updated":
                name = as_str(payload.get("thread_name")) or as_str(payload.get("name"))
                if name:
                    self._offer_title(TITLE_RANK_CUSTOM, name, latest_wins=True)
            self._event(key, at, str(etype) if etype else "event_msg", obj)


def _is_header(obj: dict[str, Any]) -> bool:
    """An early-Rust header line: ``{"id", "timestamp", ...}`` with no item ``type``."""
    return isinstance(obj.get("id"), str) and "type" not in obj and "role" not in obj
