"""The rule record and the regex pieces every rule table shares.

A :class:`Rule` knows how to find its own secrets in a text (:meth:`Rule.spans`);
the engine decides *when* to ask (keyword prefilter) and merges what the rules
report. Nothing here does I/O.

Example secrets are never written out in this package: each of Viva's rules
keeps its true-positive example as *parts* (a prefix plus a generated run of
characters, see :func:`fill`), joined only at run time, so no file holds a
token-shaped string; the generated gitleaks rules get theirs from their
patterns, in the tests.
"""

from __future__ import annotations

import re
import string
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


def token(head: str, body: str, *, tail: str = r"A-Za-z0-9_\-") -> str:
    """The regex of a token rule: ``head`` (a fixed-width regex starting with a literal) + ``body``.

    The left-boundary check is placed *after* the literal head so that the regex
    engine keeps its fast literal-prefix search; the match must not be followed
    by a character of ``tail``.
    """
    escaped = "".join(f"|(?<={e}{head})" for e in _ESCAPES)
    left = rf"(?:(?<![{_LEFT}]{head}){escaped})"
    return rf"{head}{left}(?:{body})(?![{tail}])"


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
Locate = Callable[[re.Match[str]], "tuple[int, int] | None"]
"""Where the secret of a match is (``None`` drops the match); replaces groups and ``accept``."""


def ascii_lower(text: str) -> str:
    """``text`` with ASCII letters lower-cased and every other character kept, same length.

    The last text and its copy are remembered: the rules tried on one text ask for it
    one after another."""
    if _last[0] is text:
        return _last[1]
    low = text.lower()
    if len(low) != len(text):
        low = text.translate(_ASCII_LOWER)
    _last[:] = [text, low]
    return low


_last: list[str] = ["", ""]


_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}
_WORD_CHARS = frozenset(string.ascii_letters + string.digits + "_")
_ESCAPE_BEFORE = re.compile(r"(?:\\[nrtbf]|\\u[0-9a-fA-F]{4}|[\[;][0-9]{1,2}m)\Z")


def at_boundary(text: str, start: int) -> bool:
    """Whether a word may start at ``start``: the text's start, a non-word character
    before it, or a JSON escape (``\\n``, ``\\u001b``) or colour code (``ESC[1m``)."""
    if start == 0 or text[start - 1] not in _WORD_CHARS:
        return True
    return _ESCAPE_BEFORE.search(text, max(0, start - 6), start) is not None


def _positions(text: str, exact: tuple[str, ...], caseless: tuple[str, ...]) -> list[int]:
    """Where each literal starts in ``text``: ``exact`` as written, ``caseless`` in any
    ASCII case."""
    found: list[int] = []
    low = ascii_lower(text) if caseless else text
    for literal, folded in [(k, False) for k in exact] + [(k, True) for k in caseless]:
        hay = low if folded else text
        i = hay.find(literal)
        while i >= 0:
            if not folded or text[i : i + len(literal)].isascii():
                found.append(i)
            i = hay.find(literal, i + 1)
    return found


@dataclass(frozen=True, slots=True)
class Rule:
    """One kind of secret: how to find it, and the evidence that the finder is right.

    ``pattern`` is the regex of the secret, compiled with ``flags`` when the rule is
    first tried: a process compiles only the rules whose keywords its texts hold. When
    context is part of the match (a header name, ``KEY=``), the secret itself is the
    named group ``secret`` (or ``secret2``/``secret3`` for alternative shapes) and only
    that is replaced.
    ``keywords`` (exact) and ``caseless`` (lower case, matched in any ASCII case)
    are literals of which at least one occurs in every text the rule can find a
    secret in: text without any of them is never searched with ``pattern``. An
    ``anchored`` rule's pattern starts *at* a keyword and is tried only at each
    keyword occurrence; a rule with ``starts`` is tried only where one of those
    literals occurs.

    Viva's own rules carry their examples (``tp_example_parts`` joined at run
    time, ``fp_example``); rules generated from gitleaks have their examples
    built from the pattern by the tests.
    """

    id: str
    pattern: str
    description: str
    source: str
    tp_example_parts: tuple[str, ...] = ()
    fp_example: str = ""
    keywords: tuple[str, ...] = ()
    caseless: tuple[str, ...] = ()
    anchored: bool = False
    accept: Accept | None = None
    locate: Locate | None = None
    flags: int = 0
    starts: tuple[str, ...] = ()  # literals every match starts with, when not the keywords
    starts_caseless: tuple[str, ...] = ()
    bounded: bool = False  # keywords count only where a word may start (at_boundary)
    _cache: list[tuple[re.Pattern[str], tuple[str, ...]]] = field(
        init=False, repr=False, compare=False, default_factory=list
    )

    def __post_init__(self) -> None:
        if not self.keywords and not self.caseless:
            raise ValueError(f"rule {self.id} needs at least one keyword")
        if any(k != ascii_lower(k) for k in self.caseless):
            raise ValueError(f"rule {self.id}: caseless keywords are written in lower case")

    def _compile(self) -> tuple[re.Pattern[str], tuple[str, ...]]:
        if not self._cache:
            pattern = re.compile(self.pattern, self.flags)
            groups = tuple(g for g in _SECRET_GROUPS if g in pattern.groupindex)
            self._cache.append((pattern, groups))
        return self._cache[0]

    @property
    def compiled(self) -> re.Pattern[str]:
        """The rule's pattern, compiled (once, when first needed)."""
        return self._compile()[0]

    @property
    def tp_example(self) -> str:
        """The true-positive example, assembled from its parts."""
        return "".join(self.tp_example_parts)

    def _span(self, m: re.Match[str]) -> tuple[int, int] | None:
        if self.locate is not None:
            return self.locate(m)
        if self.accept is not None and not self.accept(m):
            return None
        for g in self._compile()[1]:
            start, end = m.span(g)
            if start >= 0:
                return start, end
        return m.span()

    def keyword_starts(self, text: str) -> list[int]:
        """Every position in ``text`` where one of the rule's keywords starts (at a word
        boundary, for a ``bounded`` rule)."""
        found = _positions(text, self.keywords, self.caseless)
        return [i for i in found if at_boundary(text, i)] if self.bounded else found

    @property
    def needs_start(self) -> bool:
        """Whether the rule is tried only where one of its ``starts`` occurs, besides
        needing a keyword: then it can find nothing in a text without both."""
        return not self.anchored and bool(self.starts or self.starts_caseless)

    def start_positions(self, text: str) -> list[int]:
        """Every position in ``text`` where one of the rule's ``starts`` literals starts."""
        return _positions(text, self.starts, self.starts_caseless)

    def spans(self, text: str) -> Iterator[tuple[int, int]]:
        """Yield ``(start, end)`` of each secret this rule finds in ``text``."""
        if self.anchored:
            yield from self.spans_at(text, self.keyword_starts(text))
        elif self.needs_start:
            yield from self.spans_at(text, self.start_positions(text))
        else:
            for m in self.compiled.finditer(text):
                span = self._span(m)
                if span is not None and span[1] > span[0]:
                    yield span

    def spans_at(self, text: str, starts: list[int]) -> Iterator[tuple[int, int]]:
        """Like :meth:`spans` for an anchored rule whose keyword positions are known."""
        match = self.compiled.match
        done = 0  # like finditer: no match starts inside the previous one
        for i in sorted(set(starts)):
            if i < done:
                continue
            m = match(text, i)
            if m is not None:
                span = self._span(m)
                if span is not None and span[1] > span[0]:
                    done = m.end()
                    yield span
