"""Pure helpers for Codex rollout items: text, tool calls, outputs, token counts."""

from __future__ import annotations

import re
from typing import Any

from viva_store.importing.harness.common import (
    as_dict,
    as_int,
    as_list,
    as_str,
    join_text,
    json_of,
    json_text,
    loads_or_none,
    tool_input_line,
)

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
# User-role text Codex injects (context, instructions), not typed by the human.
_SCAFFOLDING = (
    "<environment_context",
    "<user_instructions",
    "<permissions instructions",
    "<permissions_instructions",
    "<INSTRUCTIONS>",
    "# AGENTS.md instructions",
    "<turn_aborted",
    "<collaboration_mode",
    "<subagent_notification",
)
TOOL_CALLS = frozenset(
    {
        "function_call",
        "custom_tool_call",
        "local_shell_call",
        "web_search_call",
        "tool_search_call",
        "tool_call",
    }
)
TOOL_OUTPUTS = frozenset(
    {
        "function_call_output",
        "custom_tool_call_output",
        "tool_search_output",
        "tool_result",
        "function_result",
    }
)
MAX_TOKENS = 2**53
CUMULATIVE_FIELDS = 6  # input, cached, cache write, output, reasoning, total


def session_id_from_name(name: str) -> str:
    """The UUID in a rollout file name, else the name without its extensions."""
    found = _UUID.findall(name)
    if found:
        return str(found[-1])
    for suffix in (".zst", ".jsonl", ".json"):
        name = name.removesuffix(suffix)
    return name


def is_scaffolding(text: str) -> bool:
    """Whether user-role ``text`` is injected context rather than a human prompt."""
    return text.lstrip().startswith(_SCAFFOLDING)


def content_text(content: Any) -> str:
    """Text of a message ``content``: a string or ``input_text``/``output_text`` blocks."""
    if isinstance(content, str):
        return content
    parts: list[str] = []
    for block in as_list(content):
        if isinstance(block, str):
            parts.append(block)
            continue
        block = as_dict(block)
        btype = block.get("type")
        if btype in ("input_text", "output_text", "text", "summary_text", "reasoning_text"):
            parts.append(as_str(block.get("text")) or "")
        elif btype in ("input_image", "image"):
            parts.append("[image]")
    return join_text(parts)


def text_only(content: Any) -> str:
    """Like :func:`content_text` without image markers (to compare with an event mirror)."""
    if isinstance(content, str):
        return content
    parts = [as_str(as_dict(b).get("text")) or "" for b in as_list(content) if isinstance(b, dict)]
    return join_text(parts)


def tool_call(item: dict[str, Any]) -> tuple[str | None, str | None]:
    """Tool name and one-line input summary of a call item."""
    itype = item.get("type")
    name = as_str(item.get("name")) or as_str(as_dict(item.get("function")).get("name"))
    action = as_dict(item.get("action"))
    if itype == "local_shell_call":
        return name or "local_shell", tool_input_line(action.get("command"))
    if itype == "web_search_call":
        query = action.get("query") or action.get("queries") or action.get("url")
        return name or "web_search", tool_input_line(query)
    if itype == "tool_search_call":
        return name or "tool_search", tool_input_line(item.get("arguments"))
    args = item.get("arguments")
    if args is None:
        args = item.get("input")
    if args is None:
        args = item.get("summary")
    return name, tool_input_line(args)


def tool_call_input(item: dict[str, Any]) -> str | None:
    """A call item's whole input as JSON text: the ``arguments`` (JSON inside a string,
    kept as it is), a custom tool's ``input``, or a shell or search call's ``action``."""
    if item.get("type") in ("local_shell_call", "web_search_call"):
        return json_of(item.get("action"))
    for name in ("arguments", "input", "summary"):
        if item.get(name) is not None:
            return json_of(item[name])
    return None


def output_text(output: Any, depth: int = 0) -> str:
    """Readable text of a tool output: plain, JSON inside a string, or content blocks."""
    if output is None or depth > 8:
        return ""
    if isinstance(output, str):
        if output.lstrip()[:1] == "{":
            decoded = loads_or_none(output)
            if isinstance(decoded, dict) and "output" in decoded:
                return output_text(decoded["output"], depth + 1)
        return output
    if isinstance(output, list):
        return join_text(output_text(part, depth + 1) for part in output)
    if isinstance(output, dict):
        for key in ("output", "content"):
            if key in output:
                return output_text(output[key], depth + 1)
        if isinstance(output.get("text"), str):
            return str(output["text"])
        if output.get("type") in ("input_image", "image"):
            return "[image]"
        if isinstance(output.get("stdout"), str):
            return join_text([output["stdout"], as_str(output.get("stderr")) or ""])
    return json_text(output)


def cumulative(payload: dict[str, Any]) -> list[int] | None:
    """A ``token_count`` payload as ``[input, cached, cache_write, output, reasoning, total]``.

    Reads ``info.total_token_usage``, the legacy 0.50 ``info{prompt, completion}``
    and the flat ``{input_tokens, output_tokens}`` shape; ``None`` when the
    record carries no usage (``info: null``: rate limits only).
    """
    info = payload.get("info")
    usage: dict[str, Any]
    if isinstance(info, dict):
        total = info.get("total_token_usage")
        if isinstance(total, dict):
            usage = total
        elif "prompt" in info or "completion" in info:
            usage = {"input_tokens": info.get("prompt"), "output_tokens": info.get("completion")}
        elif "input_tokens" in info or "output_tokens" in info:
            usage = info
        else:
            return None
    elif info is None and ("input_tokens" in payload or "output_tokens" in payload):
        usage = payload
    else:
        return None
    return usage_vector(usage)


def usage_vector(usage: dict[str, Any]) -> list[int]:
    """``[input, cached, cache_write, output, reasoning, total]`` of a Codex usage object."""
    fields = (
        "input_tokens",
        "cached_input_tokens",
        "cache_write_input_tokens",
        "output_tokens",
        "reasoning_output_tokens",
        "total_tokens",
    )
    # Capped so reader state and usage rows stay 64-bit integers whatever a line says.
    figures = [min(as_int(usage.get(name)), MAX_TOKENS) for name in fields]
    if not figures[5]:
        figures[5] = figures[0] + figures[3]
    return figures


def epoch_ms(value: Any) -> int | None:
    """Milliseconds from an epoch number in seconds or milliseconds (``None`` otherwise)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value < 0 or value > 1e16:
        return None
    return int(value * 1000) if value < 100_000_000_000 else int(value)


def source_label(source: Any) -> str | None:
    """``session_meta.source`` as a label: ``cli``, ``exec``, ``subagent:review``..."""
    if isinstance(source, str):
        return source or None
    sub = as_dict(source).get("subagent")
    if isinstance(sub, str):
        return f"subagent:{sub}"
    if isinstance(sub, dict) and sub:
        return f"subagent:{next(iter(sub))}"
    return None


def lineage(meta: dict[str, Any]) -> tuple[str | None, str | None, bool]:
    """``(parent id, relation, is a child rollout)`` of a ``session_meta`` payload.

    A child is a fork (``forked_from_id``) or any sub-agent rollout; a
    relation is only given with a known parent.
    """
    forked = as_str(meta.get("forked_from_id"))
    sub = as_dict(meta.get("source")).get("subagent")
    is_sub = sub is not None or meta.get("thread_source") == "subagent"
    spawn = as_str(as_dict(as_dict(sub).get("thread_spawn")).get("parent_thread_id"))
    if spawn is None and is_sub:
        spawn = as_str(meta.get("parent_thread_id"))
    if is_sub and (spawn or forked):
        return spawn or forked, "subagent", True
    if forked:
        return forked, "fork", True
    return None, None, is_sub
