"""A Claude Code line's content blocks, in source order, as the messages they become.

A line's blocks are kept in the order the line gives them, each message keyed by the
index of its first block (``uuid`` for block 0, ``uuid:<index>`` after): a user line
``[tool_result, text]`` is its result, then its text. Consecutive text blocks (and
image markers among them) make one message, keyed by the first of them.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from viva_store.importing.harness.claude_code.text import blocks_text
from viva_store.importing.harness.common import as_dict, as_str

_TEXT_LIKE = frozenset({"text", "image", "document"})


def block_key(key: str, index: int) -> str:
    """The key of the message a line's block ``index`` starts."""
    return key if index == 0 else f"{key}:{index}"


@dataclass(slots=True)
class Group:
    """One message's worth of a line: a run of text blocks, or one other block."""

    index: int
    kind: str  # text | thinking | tool_use | tool_result | <other>_tool_result
    blocks: list[Any] = field(default_factory=list)

    @property
    def text(self) -> str:
        return blocks_text(self.blocks)

    @property
    def block(self) -> dict[str, Any]:
        return as_dict(self.blocks[0]) if self.blocks else {}


def _kind(block: Any) -> str | None:
    """What a block becomes: ``text`` (merged with its neighbours), a kind of its own,
    or ``None`` for a block kept out of the transcript (e.g. redacted thinking)."""
    if isinstance(block, str):
        return "text"
    btype = as_dict(block).get("type")
    if not isinstance(btype, str) or btype in _TEXT_LIKE:
        return "text" if btype in _TEXT_LIKE else None
    if btype in ("thinking", "tool_use", "server_tool_use") or btype.endswith("tool_result"):
        return "tool_use" if btype == "server_tool_use" else btype
    return None


def groups(content: list[Any]) -> Iterator[Group]:
    """The line's blocks grouped into messages, in source order."""
    current: Group | None = None
    for index, block in enumerate(content):
        kind = _kind(block)
        if kind is None:
            continue
        if kind == "text" and current is not None and current.kind == "text":
            current.blocks.append(block)
            continue
        if current is not None:
            yield current
        current = Group(index, kind, [block])
    if current is not None:
        yield current


def thinking_text(group: Group) -> str:
    return as_str(group.block.get("thinking")) or ""
