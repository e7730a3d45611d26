"""Claude Code usage, counted once per response however it was streamed.

A response is written as several lines sharing ``message.id`` + ``requestId``,
each repeating the ``usage`` object with ``output_tokens`` growing. Within a
chunk one :class:`Usage` per key holds the field-wise maximum of its lines;
a key emitted before (an earlier chunk or import, e.g. a file read while
Claude was still writing) that grows later emits only the growth, keyed
``f"{key}#{n}"`` — so summing usage never double counts.
"""

from __future__ import annotations

from typing import Any

from viva_store.importing.harness.claude_code.state import ClaudeState, SeenUsage
from viva_store.importing.harness.common import as_dict, as_int, as_str, remember
from viva_store.importing.harness.model import Usage

_USAGE_CAP = 64
_MAX_TOKENS = 2**53  # keeps state and rows 64-bit whatever a line says


class StreamedUsage:
    """The usage of one chunk, by response key."""

    def __init__(self, state: ClaudeState) -> None:
        self.state = state
        self.pending: dict[str, tuple[list[int], str | None]] = {}

    def offer(
        self, line: dict[str, Any], msg: dict[str, Any], fallback_key: str, model: str | None
    ) -> None:
        """Take the ``usage`` of one assistant line (nothing when it has none)."""
        usage = msg.get("usage")
        if not isinstance(usage, dict):
            return
        details = as_dict(usage.get("output_tokens_details"))
        figures = [
            min(as_int(value), _MAX_TOKENS)
            for value in (
                usage.get("input_tokens"),
                usage.get("output_tokens"),
                usage.get("cache_read_input_tokens"),
                usage.get("cache_creation_input_tokens"),
                details.get("thinking_tokens"),
            )
        ]
        if not any(figures):
            return
        message_id = as_str(msg.get("id"))
        if message_id:
            key = f"{message_id}:{as_str(line.get('requestId')) or ''}"
        else:
            key = as_str(line.get("uuid")) or fallback_key
        before = self.pending.get(key)
        if before is not None:
            figures = [max(a, b) for a, b in zip(figures, before[0], strict=True)]
        self.pending[key] = (figures, model)

    def take(self) -> list[Usage]:
        """This chunk's usage (one figure per key, a key emitted before gives only its
        growth); remembers what was emitted and starts the next chunk."""
        out: list[Usage] = []
        for key, (figures, model) in self.pending.items():
            seen = self.state.usage.get(key)
            if seen is not None:
                delta = [max(a - b, 0) for a, b in zip(figures, seen.figures, strict=True)]
                if not any(delta):
                    continue
                growths = seen.growths + 1
                out.append(_usage(f"{key}#{growths}", delta, model))
                figures = [max(a, b) for a, b in zip(figures, seen.figures, strict=True)]
            else:
                growths = 0
                out.append(_usage(key, figures, model))
            remember(self.state.usage, key, SeenUsage(figures, growths), _USAGE_CAP)
        self.pending = {}
        return out


def _usage(key: str, figures: list[int], model: str | None) -> Usage:
    return Usage(
        usage_key=key,
        input_tokens=figures[0],
        output_tokens=figures[1],
        cache_read_tokens=figures[2],
        cache_write_tokens=figures[3],
        reasoning_tokens=figures[4],
        model=model,
    )
