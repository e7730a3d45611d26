"""What a source transcript holds, read straight from its lines, to compare with what
``viva session show --json`` gives back: every block's text, tool name, whole input and
result, in source order, and the deduplicated token totals."""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path
from typing import Any

from tests.conftest import FIXTURES

WHOLE = FIXTURES / "whole"
ORIGINAL = "5e1f3a20-0000-4000-8000-0000000000a1"
"""The session whose last line has no newline."""
COPY = "9a2c4b30-0000-4000-8000-0000000000b2"
"""A resumed copy of it: its first four lines under a rewritten ``sessionId``, then its own."""
SHOP = "-home-dev-shop"
TOKEN_FIELDS = {
    "input_tokens": "input",
    "output_tokens": "output",
    "cache_read_input_tokens": "cache_read",
    "cache_creation_input_tokens": "cache_write",
}


def lay_out(dest: Path, copy_folder: str | None = SHOP, quiet: bool = True) -> Path:
    """The corpus as a Claude Code projects folder under ``dest``; the copy in
    ``copy_folder`` (None: left out), every file last written an hour ago if ``quiet``."""
    src = WHOLE / "claude-code" / SHOP
    (dest / SHOP).mkdir(parents=True)
    shutil.copy(src / f"{ORIGINAL}.jsonl", dest / SHOP)
    if copy_folder is not None:
        (dest / copy_folder).mkdir(exist_ok=True)
        shutil.copy(src / f"{COPY}.jsonl", dest / copy_folder)
    if quiet:
        old = time.time() - 3600
        for path in dest.rglob("*.jsonl"):
            os.utime(path, (old, old))
    return dest


def source_lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def _result_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(b.get("text", "") for b in content if isinstance(b, dict))


def blocks(path: Path) -> list[tuple[Any, ...]]:
    """Every block of every line, in source order: ``(kind, name or None, value)``."""
    out: list[tuple[Any, ...]] = []
    for line in source_lines(path):
        content = line["message"]["content"]
        if isinstance(content, str):
            out.append(("text", None, content))
            continue
        for block in content:
            kind = block["type"]
            if kind == "text":
                out.append(("text", None, block["text"]))
            elif kind == "thinking":
                out.append(("thinking", None, block["thinking"]))
            elif kind == "tool_use":
                out.append(("tool_use", block["name"], block["input"]))
            elif kind == "tool_result":
                out.append(("tool_result", None, _result_text(block["content"])))
    return out


def shown_blocks(messages: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    """The same view of ``viva session show --json``'s messages."""
    out: list[tuple[Any, ...]] = []
    for m in messages:
        if m["role"] == "tool":
            out.append(("tool_result", None, m["tool_result"]))
        elif m["kind"] == "tool_use":
            out.append(("tool_use", m["tool"], m["tool_args"]))
        elif m["kind"] == "thinking":
            out.append(("thinking", None, m["text"]))
        else:
            out.append(("text", None, m["text"]))
    return out


def usage_by_response(path: Path) -> dict[str, dict[str, int]]:
    """Each response's token figures, by ``message.id`` + ``requestId``."""
    out: dict[str, dict[str, int]] = {}
    for line in source_lines(path):
        usage = line["message"].get("usage")
        if usage:
            key = f"{line['message']['id']}:{line['requestId']}"
            out[key] = {name: usage.get(field, 0) for field, name in TOKEN_FIELDS.items()}
    return out


def totals(responses: list[dict[str, int]]) -> dict[str, int]:
    return {name: sum(r[name] for r in responses) for name in TOKEN_FIELDS.values()}
