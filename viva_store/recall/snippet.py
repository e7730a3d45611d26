"""Snippets: a short window of a hit's text around the first matching token, highlighted.

One implementation for both engines (FTS5's ``snippet()`` needs token
positions, which a ``detail=none`` index does not keep). Highlights are
``(start, end)`` character offsets into the snippet, for the faces to style.
"""

from __future__ import annotations

import json
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


LABEL_CHARS = 60


def _values(args: str) -> list[str] | None:
    """A tool input's JSON as its string values in order (what a reader recognises);
    None when it is not JSON."""
    try:
        value = json.loads(args)
    except ValueError:
        return None
    out: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, dict):
            stack.extend(reversed(list(item.values())))
        elif isinstance(item, list):
            stack.extend(reversed(item))
    return out


def _is_summary(value: str, summary: str) -> bool:
    """Whether the one-line summary of a tool input is this value (folded, maybe cut)."""
    folded = " ".join(value.split())
    return folded == summary or (summary.endswith(ELLIPSIS) and folded.startswith(summary[:-1]))


def _labelled(label: str, snippet: Snippet) -> Snippet:
    shift = len(label)
    spans = tuple((start + shift, end + shift) for start, end in snippet.highlights)
    return Snippet(label + snippet.text, spans)


def _input_snippet(
    tool: str, summary: str, args: str, terms: tuple[str, ...], width: int
) -> Snippet:
    """``"Edit viva_store/x.py: …"``: the tool and its summary, then a window of the rest of
    the input's values around the match; the summary itself when only it matches; the
    JSON text when only it does (a key)."""
    short = summary if len(summary) <= LABEL_CHARS else summary[: LABEL_CHARS - 1] + ELLIPSIS
    label = f"{tool} {short}: " if short else f"{tool}: "
    values = _values(args)
    if values is None:
        return _labelled(label, make_snippet(args, terms, width))
    rest = list(values)
    for n, value in enumerate(rest):
        if summary and _is_summary(value, summary):
            del rest[n]
            break
    body = " ".join(rest)
    found = make_snippet(body, terms, width)
    if found.highlights:
        return _labelled(label, found)
    head = f"{tool} {summary}" if summary else tool
    whole = make_snippet(f"{head}: {body}" if body else head, terms, width)
    if whole.highlights:  # cut at its start: the tool's name stays in front
        return _labelled(f"{tool}: ", whole) if whole.text.startswith(ELLIPSIS) else whole
    raw = _labelled(label, make_snippet(args, terms, width))
    return raw if raw.highlights else _labelled(label, found)


def message_snippet(
    text: str,
    tool: str | None,
    tool_input: str | None,
    tool_args: str | None,
    tool_result: str | None,
    terms: Iterable[str],
    width: int = 160,
) -> Snippet:
    """The snippet of a message hit, from the field that matched: its text, else its tool
    input (:func:`_input_snippet`), else its tool output (``"Bash output: …"``), so a
    reader sees why it matched. No field with a match (a word the index split
    otherwise): the first non-empty one."""
    terms = tuple(terms)
    name = tool or "tool"
    shown: list[Snippet] = []
    if text:
        shown.append(make_snippet(text, terms, width))
    if tool_args:
        shown.append(_input_snippet(name, tool_input or "", tool_args, terms, width))
    if tool_result:
        shown.append(_labelled(f"{name} output: ", make_snippet(tool_result, terms, width)))
    for snippet in shown:
        if snippet.highlights:
            return snippet
    return shown[0] if shown else Snippet("", ())
