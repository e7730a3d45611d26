"""A JSON-escaped text read as its decoded characters, with the way back to raw positions.

Undecoded JSON (a quarantined line, a tool printing a ``.jsonl`` file) writes
``"key": "value"`` as ``\\"key\\": \\"value\\"`` and line breaks as ``\\n``. Most
rules understand the escapes; for the rest the redactor also scans this view,
where every escape stands for its character, and maps what it finds back to
the raw text, escapes included.
"""

from __future__ import annotations

import bisect
import re

_ESCAPE = re.compile(r'\\(?:u[0-9a-fA-F]{4}|["\'\\/bfnrt])')
_SIMPLE = {
    '"': '"',
    "'": "'",  # not JSON: a shell's or Python's quoted string (a command printing a secret)
    "\\": "\\",
    "/": "/",
    "b": "\b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
}
HINTS = ('\\"', "\\'", "\\t")
"""Escapes that hide what some rules look for (escaped line breaks alone every rule reads)."""


def escaped_views(text: str, depth: int = 2) -> list[EscapedView]:
    """``text`` decoded once, and again while the decoded text still holds such escapes
    (JSON inside a quoted command inside JSON): each view reads the one before it."""
    views: list[EscapedView] = []
    current = text
    while len(views) < depth and any(h in current for h in HINTS):
        view = EscapedView(current)
        if not view.escaped:
            break
        views.append(view)
        current = view.view
    return views


class EscapedView:
    """``text`` with its JSON escapes decoded (``view``), and the map back to ``text``."""

    def __init__(self, text: str) -> None:
        parts: list[str] = []
        # One entry per escape: where it starts in the view, where in the raw text, how long.
        self._view_at: list[int] = []
        self._raw_at: list[int] = []
        self._size: list[int] = []
        pos = size = 0
        for m in _ESCAPE.finditer(text):
            parts.append(text[pos : m.start()])
            size += m.start() - pos
            esc = m.group()
            parts.append(chr(int(esc[2:], 16)) if esc[1] == "u" else _SIMPLE[esc[1]])
            self._view_at.append(size)
            self._raw_at.append(m.start())
            self._size.append(len(esc))
            size += 1
            pos = m.end()
        parts.append(text[pos:])
        self.view = "".join(parts)
        self.escaped = bool(self._view_at)

    def _raw(self, v: int, *, end: bool) -> int:
        """The raw position of view position ``v`` (as a start, or just past a character)."""
        k = bisect.bisect_right(self._view_at, v - 1 if end else v) - 1
        if k < 0:
            return v
        at, raw, size = self._view_at[k], self._raw_at[k], self._size[k]
        if v - (1 if end else 0) == at:  # the escape itself
            return raw + size if end else raw
        return raw + size + (v - at - 1)

    def to_raw(self, start: int, end: int) -> tuple[int, int]:
        """The raw span of the view span ``[start, end)``, whole escapes included."""
        return self._raw(start, end=False), self._raw(end, end=True)
