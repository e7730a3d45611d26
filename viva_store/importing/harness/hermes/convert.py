"""Hermes message / session → normalized shape (shared by ``state.db`` and legacy JSON).

Messages are OpenAI chat messages (a ``messages`` row carries the same fields
as columns). One message becomes:

* ``<key>:thinking`` — ``reasoning`` / ``reasoning_content`` (or the summaries
  in ``codex_reasoning_items``) as an assistant message of kind ``thinking``;
* ``<key>`` — the message: role ``user`` / ``assistant`` / ``system``; ``tool``
  is a tool result (``tool_name``, content as the result; ``finish_reason``
  ``error`` → kind ``tool_error``); any other role (e.g. the legacy
  ``session_meta`` bookkeeping row) is an ``event`` with the message as ``raw``.
  Content may be a string, a list of parts, or a string with the
  ``"\\0json:"`` sentinel holding JSON parts; images become ``[image]``. An
  assistant message with no text but tool calls has no message of its own;
* ``<key>:call:<tool call id>`` — one per ``tool_calls`` entry (its
  ``function.arguments`` is JSON inside a string) with tool and input summary.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from viva_store.importing.harness.common import (
    TITLE_RANK_AI,
    TITLE_RANK_CUSTOM,
    TITLE_RANK_FIRST_PROMPT,
    as_dict,
    as_list,
    as_str,
    join_text,
    json_of,
    loads_or_none,
    parse_timestamp,
    tool_input_line,
)
from viva_store.importing.harness.model import Message

JSON_SENTINEL = "\x00json:"
_ROLES = ("user", "assistant", "system", "developer")
_TITLE_RANKS = {
    "user": TITLE_RANK_CUSTOM,
    "llm": TITLE_RANK_AI,
    "branch": TITLE_RANK_AI,
    "branch_fallback": TITLE_RANK_FIRST_PROMPT,
    "derived": TITLE_RANK_FIRST_PROMPT,
}
_LINEAGE_MARKERS = (("_branched_from", "branch"), ("_delegate_from", "subagent"))


def title_rank(title: str | None, source: Any) -> int:
    """Rank of a Hermes title by its ``title_source`` (a user-set title wins)."""
    if not title:
        return 0
    return _TITLE_RANKS.get(source, TITLE_RANK_AI) if isinstance(source, str) else TITLE_RANK_AI


def relation(model_config: dict[str, Any]) -> str:
    """How a child session relates to ``parent_session_id``.

    ``model_config`` markers name a ``/branch`` child or a delegated sub-agent
    run; anything else (compression continuations, resets) is a continuation.
    """
    for marker, name in _LINEAGE_MARKERS:
        if model_config.get(marker):
            return name
    return "continuation"


def content_text(content: Any) -> str:
    """Text of a Hermes ``content`` value (string, parts, or ``\\0json:`` sentinel string)."""
    if isinstance(content, str):
        if not content.startswith(JSON_SENTINEL):
            return content
        decoded = loads_or_none(content[len(JSON_SENTINEL) :])
        if decoded is None:
            return content[len(JSON_SENTINEL) :]
        content = decoded
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        content = [content]
    texts: list[str] = []
    for part in as_list(content):
        if isinstance(part, str):
            texts.append(part)
            continue
        part = as_dict(part)
        ptype = part.get("type")
        if isinstance(part.get("text"), str) and ptype in (
            None,
            "text",
            "input_text",
            "output_text",
        ):
            texts.append(part["text"])
        elif ptype in ("image_url", "image", "input_image") or "image_url" in part:
            texts.append("[image]")
        elif ptype in ("file", "input_file"):
            texts.append("[file]")
    return join_text(texts)


def _reasoning(message: dict[str, Any]) -> str:
    texts: list[str] = []
    for field in ("reasoning", "reasoning_content"):
        text = as_str(message.get(field))
        if text and text not in texts:
            texts.append(text)
    if not texts:
        items = message.get("codex_reasoning_items")
        if isinstance(items, str):
            items = loads_or_none(items)
        for item in as_list(items):
            text = as_str(as_dict(item).get("text"))
            if text:
                texts.append(text)
    return join_text(texts)


def _tool_calls(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, str):
        value = loads_or_none(value)
    return [as_dict(call) for call in as_list(value)]


def convert_message(
    message: dict[str, Any], key: str, at: datetime | None, model: str | None
) -> list[Message]:
    """Normalize one Hermes chat message (legacy JSON item or ``messages`` row as a dict)."""
    role = message.get("role")
    at = at or parse_timestamp(message.get("timestamp"))
    if role == "tool":
        failed = message.get("finish_reason") == "error"
        return [
            Message(
                key=key,
                role="tool",
                at=at,
                tool=as_str(message.get("tool_name")) or as_str(message.get("name")),
                tool_result=content_text(message.get("content")),
                kind="tool_error" if failed else "tool_result",
            )
        ]
    if role not in _ROLES:
        return [Message(key=key, role="event", at=at, kind=str(role or "unknown"), raw=message)]
    out: list[Message] = []
    thinking = _reasoning(message) if role == "assistant" else ""
    if thinking:
        out.append(
            Message(
                key=f"{key}:thinking",
                role="assistant",
                text=thinking,
                at=at,
                model=model,
                kind="thinking",
            )
        )
    calls = _tool_calls(message.get("tool_calls")) if role == "assistant" else []
    text = content_text(message.get("content"))
    if text or not calls:
        out.append(
            Message(
                key=key,
                role="system" if role == "developer" else str(role),
                text=text,
                at=at,
                model=model if role == "assistant" else None,
            )
        )
    for index, call in enumerate(calls):
        function = as_dict(call.get("function"))
        arguments = function.get("arguments", call.get("arguments"))
        call_id = as_str(call.get("id")) or as_str(call.get("call_id")) or str(index)
        out.append(
            Message(
                key=f"{key}:call:{call_id}",
                role="assistant",
                at=at,
                model=model,
                tool=as_str(function.get("name")) or as_str(call.get("name")),
                tool_input=tool_input_line(arguments),
                tool_args=json_of(arguments),
                kind="tool_call",
            )
        )
    return out


def model_config(value: Any) -> dict[str, Any]:
    """``model_config`` as a dict (a JSON string in the DB, an object in legacy JSON)."""
    if isinstance(value, str):
        value = loads_or_none(value)
    return as_dict(value)
