"""The rule record and the regex pieces every rule table shares.

A :class:`Rule` knows how to find its own secrets in a text (:meth:`Rule.spans`);
the engine decides *when* to ask (keyword prefilter) and merges what the rules
report. Nothing here does I/O.

Example secrets are never written out in this package: each rule keeps its
true-positive example as *parts* (a prefix plus a generated run of characters,
see :func:`fill`), joined only at run time, so no file holds a token-shaped
string.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

Accept = Callable[[re.Match[str]], bool]
"""A check run on each regex match; ``False`` drops the match (e.g. a placeholder)."""

# Character sets used by the rule tables.
ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
B64URL = ALNUM + "_-"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
DIGITS = "0123456789"

# A token must not continue a longer run of token characters on its left: that
# keeps prefixes such as ``AIza`` from firing inside base64 blobs. A JSON escape
# (``\n``, ``\u001b``...) right before the token counts as a boundary, because
# raw, undecoded lines are scanned too, and so does a terminal colour code
# (``ESC[1m``), which tool output is full of.
_LEFT = r"A-Za-z0-9_\-"
_ESCAPES = (r"\\[nrtbf]", r"\\u[0-9a-fA-F]{4}", r"[\[;][0-9]m", r"[\[;][0-9]{2}m")


def token(head: str, body: str, *, tail: str = r"A-Za-z0-9_\-") -> re.Pattern[str]:
    """Compile a token rule: ``head`` (a fixed-width regex starting with a literal) + ``body``.

    The left-boundary check is placed *after* the literal head so that the regex
    engine keeps its fast literal-prefix search; the match must not be followed
    by a character of ``tail``.
    """
    escaped = "".join(f"|(?<={e}{head})" for e in _ESCAPES)
    left = rf"(?:(?<![{_LEFT}]{head}){escaped})"
    return re.compile(rf"{head}{left}(?:{body})(?![{tail}])")


def fill(n: int, alphabet: str = ALNUM, seed: int = 7) -> str:
    """Return ``n`` deterministic pseudo-random characters of ``alphabet``.

    Used to build example secrets at run time; the output is test material,
    never a real credential.
    """
    out: list[str] = []
    x = seed
    for _ in range(n):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(alphabet[(x >> 11) % len(alphabet)])
    return "".join(out)


def cases(*words: str) -> tuple[str, ...]:
    """Each word in lower, Capitalized and UPPER case (keywords are case-sensitive)."""
    out: dict[str, None] = {}
    for w in words:
        for v in (w, w.lower(), w[:1].upper() + w[1:], w.upper()):
            out[v] = None
    return tuple(out)


_SECRET_GROUPS = ("secret", "secret2", "secret3")


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of secret: how to find it, and the evidence that the finder is right.

    ``pattern`` matches the secret; when context is part of the match (a header
    name, ``KEY=``), the secret itself is the named group ``secret`` (or
    ``secret2``/``secret3`` for alternative shapes) and only that is replaced.
    ``keywords`` are literal substrings of which at least one occurs in every
    match: text without any of them is never searched with ``pattern``. An
    ``anchored`` rule's pattern starts *at* a keyword and is tried only at
    each keyword occurrence (for case-varying words such as ``password``).
    """

    id: str
    pattern: re.Pattern[str]
    description: str
    source: str
    tp_example_parts: tuple[str, ...]
    fp_example: str
    keywords: tuple[str, ...]
    anchored: bool = False
    accept: Accept | None = None
    _groups: tuple[str, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        groups = tuple(g for g in _SECRET_GROUPS if g in self.pattern.groupindex)
        object.__setattr__(self, "_groups", groups)
        if not self.keywords:
            raise ValueError(f"rule {self.id} needs at least one keyword")

    @property
    def tp_example(self) -> str:
        """The true-positive example, assembled from its parts."""
        return "".join(self.tp_example_parts)

    def _span(self, m: re.Match[str]) -> tuple[int, int]:
        for g in self._groups:
            start, end = m.span(g)
            if start >= 0:
                return start, end
        return m.span()

    def _ok(self, m: re.Match[str]) -> bool:
        return self.accept is None or self.accept(m)

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Yield ``(start, end)`` of each secret this rule finds in ``text``."""
        if not self.anchored:
            for m in self.pattern.finditer(text):
                if self._ok(m):
                    start, end = self._span(m)
                    if end > start:
                        yield start, end
            return
        starts: list[int] = []
        for kw in self.keywords:
            i = text.find(kw)
            while i >= 0:
                starts.append(i)
                i = text.find(kw, i + 1)
        yield from self.spans_at(text, starts)

    def spans_at(self, text: str, starts: list[int]) -> Iterator[tuple[int, int]]:
        """Like :meth:`spans` for an anchored rule whose keyword positions are known."""
        match = self.pattern.match
        done = 0  # like finditer: no match starts inside the previous one
        for i in sorted(set(starts)):
            if i < done:
                continue
            m = match(text, i)
            if m is not None and self._ok(m):
                start, end = self._span(m)
                if end > start:
                    done = m.end()
                    yield start, end
