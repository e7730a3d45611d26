"""Shared helpers for the redaction tests: example secrets are built at run time."""

from __future__ import annotations

from typing import Any

from viva_store.redact import Rule


def secret_of(rule: Rule) -> str:
    """The secret part of ``rule``'s true-positive example, as the rule itself finds it."""
    text = rule.tp_example
    spans = list(rule.spans(text))
    assert spans, f"{rule.id}: its own pattern misses its true-positive example"
    start, end = spans[0]
    return text[start:end]


def survivors(secret: str, text: str, width: int = 16) -> list[str]:
    """Pieces of ``secret`` (``width`` long, overlapping) that still occur in ``text``."""
    if len(secret) <= width:
        return [secret] if secret in text else []
    pieces = {secret[i : i + width] for i in range(0, len(secret) - width + 1, width // 2)}
    pieces.add(secret[-width:])
    return sorted(p for p in pieces if p in text)


def transcript_line(text: str) -> dict[str, Any]:
    """A Claude Code tool-result line whose result text is ``text``."""
    return {
        "type": "user",
        "uuid": "d78d1de2-52bd-4e64-ad0f-affcbcc1dabf",
        "message": {
            "role": "user",
            "content": [{"type": "tool_result", "tool_use_id": "toolu_01", "content": text}],
        },
    }


def strings_in(obj: Any) -> list[str]:
    """Every string value inside decoded JSON."""
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in strings_in(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in strings_in(v)]
    return []
