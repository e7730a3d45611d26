"""OpenCode session / message / part JSON → normalized shape (shared by DB and storage tree).

The same JSON lives in ``storage/**.json`` files (legacy) and in the ``data``
columns of ``opencode.db`` (where ``id``/``sessionID``/``messageID`` are columns
instead), so one converter serves both.

One OpenCode message becomes, in part order:

* ``<message id>`` — role from the message (``user`` / ``assistant``; an
  assistant message with ``summary: true`` is a compaction summary → role
  ``summary``, synthetic), text = its non-synthetic text parts joined, file
  parts as ``[file: <mime>]``, an error appended as ``[error] Name: message``.
  It is placed at its first text/file part and omitted when it would be empty
  while the message has other parts (a turn that only called tools);
* ``<message id>:<part id>`` — a ``synthetic`` text part (flagged synthetic),
  a ``reasoning`` part (assistant, kind ``thinking``), a ``tool`` part (role
  ``tool``: tool, input summary and output in one record, as OpenCode stores
  them), and every other part type (``step-start``, ``step-finish``,
  ``patch``, ``compaction``, ``agent``, ``subtask``, ``retry``, unknown ones) as
  an ``event`` with the part kept as ``raw``.

Usage: one per assistant message with ``tokens``:
``Usage(f"opencode:{session}:{message}", input, output, cache.read,
cache.write, reasoning)``. ``step-finish`` tokens are per-step copies of the
same figures and are not counted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from viva_store.importing.harness.common import (
    TITLE_RANK_AI,
    TITLE_RANK_FIRST_PROMPT,
    as_dict,
    as_int,
    as_str,
    compact_json,
    join_text,
    json_of,
    parse_timestamp,
    tool_input_line,
)
from viva_store.importing.harness.model import Message, SessionMeta, Usage

_PLACEHOLDER_TITLES = ("New session - ", "Child session - ")
_TOOL_FAILED = {"error"}


@dataclass(slots=True)
class Converted:
    """Messages, usage and models of one OpenCode message."""

    messages: list[Message] = field(default_factory=list)
    usage: Usage | None = None
    models: set[str] = field(default_factory=set)


def model_of(data: dict[str, Any]) -> str | None:
    """The model id of a message (top-level ``modelID`` or nested ``model.modelID``)."""
    return as_str(data.get("modelID")) or as_str(as_dict(data.get("model")).get("modelID"))


def session_meta(data: dict[str, Any], native_id: str) -> SessionMeta:
    """Session metadata from a session JSON object (legacy file or DB row as a dict)."""
    time = as_dict(data.get("time"))
    parent = as_str(data.get("parentID")) or as_str(data.get("parent_id"))
    fork = as_str(data.get("fork_session_id"))
    title = as_str(data.get("title"))
    rank = 0
    if title:
        title = title.strip()
        rank = TITLE_RANK_FIRST_PROMPT if title.startswith(_PLACEHOLDER_TITLES) else TITLE_RANK_AI
    models: set[str] = set()
    session_model = data.get("model")
    if isinstance(session_model, dict):
        model = as_str(session_model.get("id")) or as_str(session_model.get("modelID"))
        if model:
            models.add(model)
    return SessionMeta(
        native_id=native_id,
        parent_native_id=parent or fork,
        relation="subagent" if parent else ("fork" if fork else None),
        project=as_str(data.get("projectID")) or as_str(data.get("project_id")),
        cwd=as_str(data.get("directory")),
        models=models,
        started_at=parse_timestamp(time.get("created", data.get("time_created"))),
        ended_at=parse_timestamp(time.get("updated", data.get("time_updated"))),
        title=title or None,
        title_rank=rank if title else 0,
        entrypoint=as_str(data.get("agent")),
    )


def convert_message(
    session_id: str,
    message_id: str,
    data: dict[str, Any],
    parts: list[tuple[str, dict[str, Any]]],
) -> Converted:
    """Normalize one OpenCode message and its ordered ``(part id, part data)`` list."""
    out = Converted()
    role = data.get("role")
    time = as_dict(data.get("time"))
    at = parse_timestamp(time.get("created"))
    model = model_of(data)
    if model:
        out.models.add(model)
    is_summary = role == "assistant" and data.get("summary") is True
    main_role = "summary" if is_summary else role if role in ("user", "assistant") else None
    if main_role is None:
        out.messages.append(
            Message(key=message_id, role="event", at=at, kind=f"message:{role}", raw=data)
        )
        return out
    texts: list[str] = []
    others: list[Message] = []
    main_index: int | None = None
    for part_id, part in parts:
        kind = part.get("type")
        key = f"{message_id}:{part_id}"
        part_at = _part_time(part) or at
        if kind == "text" and part.get("synthetic") is not True:
            texts.append(as_str(part.get("text")) or "")
            main_index = len(others) if main_index is None else main_index
        elif kind == "file":
            texts.append(f"[file: {as_str(part.get('mime')) or 'unknown'}]")
            main_index = len(others) if main_index is None else main_index
        elif kind == "text":
            others.append(
                Message(
                    key=key,
                    role=main_role,
                    text=as_str(part.get("text")) or "",
                    at=part_at,
                    synthetic=True,
                    kind="synthetic",
                )
            )
        elif kind == "reasoning":
            others.append(
                Message(
                    key=key,
                    role="assistant",
                    text=as_str(part.get("text")) or "",
                    at=part_at,
                    model=model,
                    kind="thinking",
                )
            )
        elif kind == "tool":
            others.append(_tool_message(key, part, part_at))
        else:
            others.append(
                Message(key=key, role="event", at=part_at, kind=str(kind or "part"), raw=part)
            )
    error = as_dict(data.get("error"))
    if error:
        detail = as_str(as_dict(error.get("data")).get("message")) or ""
        texts.append(f"[error] {as_str(error.get('name')) or 'error'}: {detail}".rstrip(": "))
    text = join_text(texts)
    if text or not others:
        main = Message(
            key=message_id,
            role=main_role,
            text=text,
            at=at,
            model=model if main_role != "user" else None,
            synthetic=is_summary,
            kind="compaction" if is_summary else "",
        )
        others.insert(main_index if main_index is not None else 0, main)
    out.messages = others
    if role == "assistant":
        out.usage = _usage(data.get("tokens"), f"opencode:{session_id}:{message_id}", model)
    return out


def _part_time(part: dict[str, Any]) -> datetime | None:
    time = as_dict(part.get("time")) or as_dict(as_dict(part.get("state")).get("time"))
    return parse_timestamp(time.get("start"))


def _tool_message(key: str, part: dict[str, Any], at: datetime | None) -> Message:
    state = as_dict(part.get("state"))
    output = state.get("output")
    if not isinstance(output, str):
        output = state.get("error")
    if output is not None and not isinstance(output, str):
        output = compact_json(output)
    status = as_str(state.get("status"))
    return Message(
        key=key,
        role="tool",
        at=at,
        tool=as_str(part.get("tool")),
        tool_input=tool_input_line(state.get("input")),
        tool_args=json_of(state.get("input")),
        tool_result=output,
        kind="tool_error" if status in _TOOL_FAILED else "tool_result",
    )


def _usage(tokens: Any, usage_key: str, model: str | None) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    cache = as_dict(tokens.get("cache"))
    usage = Usage(
        usage_key=usage_key,
        input_tokens=as_int(tokens.get("input")),
        output_tokens=as_int(tokens.get("output")),
        cache_read_tokens=as_int(cache.get("read")),
        cache_write_tokens=as_int(cache.get("write")),
        reasoning_tokens=as_int(tokens.get("reasoning")),
        model=model,
    )
    figures = (
        usage.input_tokens,
        usage.output_tokens,
        usage.cache_read_tokens,
        usage.cache_write_tokens,
        usage.reasoning_tokens,
    )
    return usage if any(figures) else None
