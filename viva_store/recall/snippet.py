"""Snippets: a short window of a hit's text around the first matching token, highlighted.

One implementation for both engines (FTS5's ``snippet()`` needs token
positions, which a ``detail=none`` index does not keep). Highlights are
``(start, end)`` character offsets into the snippet, for the faces to style.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from viva_store.recall.query import normalize

_TOKEN = re.compile(r"(?:[^\W_]|[\ue000-\uf8ff])+")
_SPACE = re.compile(r"\s+")
ELLIPSIS = "…"
SCAN_LIMIT = 200_000  # characters searched for a match; enough for any message


@dataclass(frozen=True, slots=True)
class Snippet:
    """A window of text and where the matched tokens are in it."""

    text: str
    highlights: tuple[tuple[int, int], ...]

    def marked(self, before: str = "[", after: str = "]") -> str:
        """The snippet with each highlight wrapped in ``before`` / ``after``."""
        out, at = [], 0
        for start, end in self.highlights:
            out += [self.text[at:start], before, self.text[start:end], after]
            at = end
        out.append(self.text[at:])
        return "".join(out)


@lru_cache(maxsize=256)
def _ascii_pattern(terms: frozenset[str]) -> re.Pattern[str] | None:
    """For ASCII text and terms: the terms as whole tokens, case-blind (one regex scan)."""
    if not terms or not all(t.isascii() for t in terms):
        return None
    words = "|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9])(?:{words})(?![A-Za-z0-9])", re.IGNORECASE | re.ASCII)


def _matches(text: str, terms: frozenset[str]) -> Iterable[re.Match[str]]:
    if text.isascii():
        pattern = _ascii_pattern(terms)
        if pattern is not None:
            yield from pattern.finditer(text)
            return
    for match in _TOKEN.finditer(text):
        token = match.group()
        # ASCII needs only lower-casing; the full normalization is for everything else.
        if (token.lower() if token.isascii() else normalize(token)) in terms:
            yield match


@lru_cache(maxsize=256)
def _wanted(terms: tuple[str, ...]) -> frozenset[str]:
    return frozenset(normalize(t) for t in terms)


def make_snippet(text: str, terms: Iterable[str], width: int = 160) -> Snippet:
    """About ``width`` characters of ``text`` around its first token in ``terms``."""
    wanted = _wanted(tuple(terms))
    scanned = text[:SCAN_LIMIT]
    first = next(iter(_matches(scanned, wanted)), None)
    if first is None:
        start = 0
    else:
        start = max(0, first.start() - width // 3)
        if start:  # begin at a word boundary
            space = scanned.find(" ", start, first.start())
            start = space + 1 if space != -1 else start
    end = min(len(scanned), start + width)
    if end < len(scanned):
        space = scanned.rfind(" ", start + width // 2, end)
        end = space if space != -1 else end
    window = _SPACE.sub(" ", scanned[start:end]).strip()
    prefix = ELLIPSIS if start > 0 else ""
    suffix = ELLIPSIS if end < len(text) else ""
    body = prefix + window + suffix
    offset = len(prefix)
    highlights = tuple((m.start() + offset, m.end() + offset) for m in _matches(window, wanted))
    return Snippet(body, highlights)
