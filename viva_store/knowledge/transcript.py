"""Which knowledge items a recovered transcript shows being read (pure).

A read of an item's body in a session Viva launched is a use, as for skills. In a
transcript it shows as a shell call of ``viva knowledge show ID`` or a call of the MCP
tool ``knowledge_show`` (whatever prefix the harness gives MCP tools) naming the item.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_SHOW = re.compile(r"\bknowledge\s+show\s+(?:--\S+\s+\S+\s+)*['\"]?(k[0-9a-f]{8})\b")
_ID = re.compile(r"\b(k[0-9a-f]{8})\b")


def items_read(calls: Iterable[tuple[int, str | None, str | None]]) -> dict[str, list[int]]:
    """Item ids read by these tool calls ``(seq, tool, tool_input)``, with the seqs."""
    found: dict[str, list[int]] = {}
    for seq, tool, text in calls:
        if not text:
            continue
        if tool is not None and tool.lower().endswith("knowledge_show"):
            ids = set(_ID.findall(text))
        else:
            ids = set(_SHOW.findall(text))
        for item_id in sorted(ids):
            found.setdefault(item_id, []).append(seq)
    return found
