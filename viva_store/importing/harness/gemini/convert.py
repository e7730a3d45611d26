"""Gemini CLI record → normalized message conversion (shared by the JSON and JSONL paths).

A ``MessageRecord`` (``{id, timestamp, type, content, thoughts?, toolCalls?,
tokens?, model?}``) becomes:

* ``<id>:thinking`` — the ``thoughts`` (``**subject** description`` lines) as an
  assistant message of kind ``thinking``, when there are any;
* ``<id>`` — the message itself: ``user`` → user, ``gemini``/``model`` →
  assistant, ``info``/``error``/``warning`` → system (kind = the type),
  anything else → event with the record kept as ``raw``. Text parts are
  joined; ``inlineData`` becomes ``[image]`` (or ``[file: <mime>]``) and its
  base64 payload is never kept;
* ``<id>:tool:<call id>`` — one ``tool`` message per ``toolCalls`` entry (call
  and result are one record in Gemini: name, argument summary, result text);
  ``functionCall`` / ``functionResponse`` parts inside ``content`` (the
  ``/chat save`` checkpoint shape) become tool-call / tool-result messages.

Tokens: Gemini's ``input`` counts the cached prompt too; to match the
Anthropic meaning used across Viva, ``input_tokens = input + tool - cached``
(the uncached prompt), ``cache_read_tokens = cached``,
``reasoning_tokens = thoughts``, ``output_tokens = output``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from viva_store.importing.harness.common import (
    as_dict,
    as_int,
    as_list,
    as_str,
    compact_json,
    join_text,
    json_of,
    parse_timestamp,
    tool_input_line,
)
from viva_store.importing.harness.model import Message, Usage

_ROLES = {
    "user": "user",
    "gemini": "assistant",
    "model": "assistant",
    "assistant": "assistant",
    "info": "system",
    "error": "system",
    "warning": "system",
    "system": "system",
}
_FAILED_STATUSES = {"error", "cancelled", "canceled"}


@dataclass(slots=True)
class Converted:
    """The messages, usage and models one Gemini record yields."""

    messages: list[Message] = field(default_factory=list)
    usage: Usage | None = None
    models: set[str] = field(default_factory=set)


def convert_message(record: dict[str, Any], key: str, session_id: str) -> Converted:
    """Normalize one Gemini ``MessageRecord`` (or ``{role, parts}`` Content item)."""
    out = Converted()
    mtype = record.get("type", record.get("role"))
    role = _ROLES.get(mtype) if isinstance(mtype, str) else None
    at = parse_timestamp(record.get("timestamp", record.get("ts")))
    model = as_str(record.get("model"))
    if model:
        out.models.add(model)
    if role is None:
        out.messages.append(
            Message(key=key, role="event", at=at, kind=str(mtype or "unknown"), raw=record)
        )
        return out
    thoughts = _thoughts_text(record.get("thoughts"))
    content = record["content"] if "content" in record else record.get("parts")
    texts, thought_parts, calls, responses = _split_parts(content)
    thoughts = join_text([thoughts, *thought_parts])
    if thoughts:
        out.messages.append(
            Message(
                key=f"{key}:thinking",
                role="assistant",
                text=thoughts,
                at=at,
                model=model,
                kind="thinking",
            )
        )
    kind = str(mtype) if role == "system" else ""
    text = join_text(texts)
    # A turn that only thought, called tools or returned tool output has no text of its own.
    if text or not (out.messages or calls or responses or as_list(record.get("toolCalls"))):
        out.messages.append(
            Message(
                key=key,
                role=role,
                text=text,
                at=at,
                model=model if role == "assistant" else None,
                kind=kind,
            )
        )
    for index, call in enumerate(calls):
        out.messages.append(
            Message(
                key=f"{key}:call:{as_str(call.get('id')) or index}",
                role="assistant",
                at=at,
                model=model,
                tool=as_str(call.get("name")),
                tool_input=tool_input_line(call.get("args")),
                tool_args=json_of(call.get("args")),
                kind="tool_call",
            )
        )
    for index, response in enumerate(responses):
        out.messages.append(
            Message(
                key=f"{key}:response:{as_str(response.get('id')) or index}",
                role="tool",
                at=at,
                tool=as_str(response.get("name")),
                tool_result=_response_text(response.get("response")),
                kind="tool_result",
            )
        )
    for index, call in enumerate(as_list(record.get("toolCalls"))):
        out.messages.append(_tool_call(as_dict(call), key, index, at))
    out.usage = _usage(record.get("tokens"), f"gemini:{session_id}:{key}", model)
    return out


def _tool_call(call: dict[str, Any], key: str, index: int, at: datetime | None) -> Message:
    result = _result_text(call.get("result"))
    if not result and isinstance(call.get("resultDisplay"), str):
        result = call["resultDisplay"]
    status = as_str(call.get("status"))
    return Message(
        key=f"{key}:tool:{as_str(call.get('id')) or index}",
        role="tool",
        at=parse_timestamp(call.get("timestamp")) or at,
        tool=as_str(call.get("name")) or as_str(call.get("displayName")),
        tool_input=tool_input_line(call.get("args")),
        tool_args=json_of(call.get("args")),
        tool_result=result or None,
        kind="tool_error" if status in _FAILED_STATUSES else "tool_result",
    )


def _split_parts(
    content: Any,
) -> tuple[list[str], list[str], list[dict[str, Any]], list[dict[str, Any]]]:
    """(texts, thought texts, functionCalls, functionResponses) of a PartListUnion."""
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[dict[str, Any]] = []
    responses: list[dict[str, Any]] = []
    items = content if isinstance(content, list) else [content]
    for item in items:
        if isinstance(item, str):
            texts.append(item)
            continue
        part = as_dict(item)
        if isinstance(part.get("text"), str):
            (thoughts if part.get("thought") is True else texts).append(part["text"])
        elif "inlineData" in part:
            texts.append(_media_placeholder(as_dict(part["inlineData"]).get("mimeType")))
        elif "fileData" in part:
            texts.append(_media_placeholder(as_dict(part["fileData"]).get("mimeType")))
        elif "functionCall" in part:
            calls.append(as_dict(part["functionCall"]))
        elif "functionResponse" in part:
            responses.append(as_dict(part["functionResponse"]))
    return texts, thoughts, calls, responses


def _media_placeholder(mime: Any) -> str:
    if isinstance(mime, str) and mime.startswith("image/"):
        return "[image]"
    return f"[file: {mime}]" if isinstance(mime, str) and mime else "[image]"


def _thoughts_text(thoughts: Any) -> str:
    lines: list[str] = []
    for thought in as_list(thoughts):
        thought = as_dict(thought)
        subject = as_str(thought.get("subject"))
        description = as_str(thought.get("description")) or ""
        lines.append(f"**{subject}** {description}".strip() if subject else description)
    return "\n".join(line for line in lines if line)


def _result_text(result: Any) -> str:
    """Text of a tool call's ``result`` (a list of functionResponse parts, or a string)."""
    if isinstance(result, str):
        return result
    texts: list[str] = []
    for item in result if isinstance(result, list) else [result]:
        part = as_dict(item)
        if "functionResponse" in part:
            texts.append(_response_text(as_dict(part["functionResponse"]).get("response")))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif "inlineData" in part:
            texts.append(_media_placeholder(as_dict(part["inlineData"]).get("mimeType")))
    return join_text(texts)


def _response_text(response: Any) -> str:
    if isinstance(response, str):
        return response
    if isinstance(response, dict):
        for field_name in ("output", "error", "content", "result"):
            value = response.get(field_name)
            if isinstance(value, str):
                return value
    return compact_json(response) if response is not None else ""


def _usage(tokens: Any, usage_key: str, model: str | None) -> Usage | None:
    if not isinstance(tokens, dict):
        return None
    cached = as_int(tokens.get("cached"))
    prompt = as_int(tokens.get("input")) + as_int(tokens.get("tool"))
    usage = Usage(
        usage_key=usage_key,
        input_tokens=max(prompt - cached, 0),
        output_tokens=as_int(tokens.get("output")),
        cache_read_tokens=cached,
        reasoning_tokens=as_int(tokens.get("thoughts")),
        model=model,
    )
    if usage.input_tokens or usage.output_tokens or cached or usage.reasoning_tokens:
        return usage
    return None
