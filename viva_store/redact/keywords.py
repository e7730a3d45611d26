"""Where a rule table's keywords occur: which rules to try on a text, and where.

A keyword is exact (matched as written) or caseless (written in lower case,
matched in any ASCII case), and perhaps *bounded*: it counts only at the start
of a word (after a character that is no ASCII letter, digit or ``_``, or after
a JSON escape or a terminal colour code), because the rules it gates match
only there; the boundary is checked where such a keyword is found.

With Hyperscan (Linux x86-64 wheels) one pass of a multi-literal automaton over
the text (a byte a character) reports every occurrence of every keyword; without it the regex
prefilter (:mod:`viva_store.redact.prefilter`) answers the same question. Both
give the same answer exactly (a property test holds them to it); Hyperscan is an
order of magnitude faster. Each automaton is built when first searched with, and
costs milliseconds to build: the first texts a process searches, while they are
few and short, are searched directly, keyword by keyword at each position, which
gives the same answer again and builds nothing.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from viva_store.redact.prefilter import Prefilter
from viva_store.redact.rule import ascii_lower, at_boundary

Entry = tuple[str, bool, bool]
"""A keyword, whether it is caseless, whether it is bounded."""

_WORD_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")
_ESCAPE_BEFORE = re.compile(rb"(?:\\[nrtbf]|\\u[0-9a-fA-F]{4}|[\[;][0-9]{1,2}m)\Z")


def _at_boundary(data: bytes, start: int) -> bool:
    """:func:`~viva_store.redact.rule.at_boundary` over the bytes Hyperscan searched (a
    non-ASCII character is ``?`` there: no word character, as it should be)."""
    if start == 0 or data[start - 1] not in _WORD_BYTES:
        return True
    return _ESCAPE_BEFORE.search(data, max(0, start - 6), start) is not None


@functools.cache
def _hyperscan() -> Any:
    """The Hyperscan module (imported when first searched with), or None where it is
    not installed."""
    try:  # pragma: no cover - which branch runs depends on the platform
        import hyperscan
    except ImportError:  # pragma: no cover
        return None
    return hyperscan


_DIRECT_CHARS = 20_000
"""How many characters an index searches directly before it builds an automaton: about
what building one costs (milliseconds) at the pace of the direct search, so a process
that redacts a few typed strings builds none."""


def _expression(keyword: str) -> bytes:
    """A Hyperscan expression matching exactly ``keyword`` (every byte hex-escaped)."""
    return "".join(f"\\x{b:02x}" for b in keyword.encode()).encode()


class KeywordIndex:
    """The keywords of one rule table, ready to search for."""

    def __init__(
        self, entries: dict[Entry, frozenset[int]], partial: frozenset[int] = frozenset()
    ) -> None:
        """``partial``: the rules that need more than a keyword (the caller checks the rest);
        a keyword only they have does not alone flag a text."""
        if any("\n" in kw or "?" in kw or not kw.isascii() or len(kw) < 2 for kw, _, _ in entries):
            raise ValueError("keywords are ASCII, two characters or more, without a newline or ?")
        self._entries = sorted(entries)
        self._rules = [tuple(sorted(entries[e])) for e in self._entries]
        self._partial = [set(rules) <= partial for rules in self._rules]
        self._sizes = [len(kw) for kw, _, _ in self._entries]
        self._bounded = [b for _, _, b in self._entries]
        self.exact = _union(entries, caseless=False)
        self.caseless = _union(entries, caseless=True)
        # keyword -> (entry index, bounded) for the regex prefilter
        self._by_keyword: dict[tuple[str, bool], list[tuple[int, bool]]] = {}
        for n, (kw, caseless, bounded) in enumerate(self._entries):
            self._by_keyword.setdefault((kw, caseless), []).append((n, bounded))
        # first two characters (lower case for a caseless keyword) -> entry indices,
        # exact keywords then caseless ones, for the direct search
        self._heads: tuple[dict[str, list[int]], dict[str, list[int]]] = ({}, {})
        for n, (kw, caseless, _) in enumerate(self._entries):
            self._heads[caseless].setdefault(kw[:2], []).append(n)
        self._direct_left = _DIRECT_CHARS
        self._regexes: list[tuple[bool, Prefilter]] | None = None
        self._lock = threading.Lock()
        self._local = threading.local()
        self._database: Any = None

    # -- the direct search ----------------------------------------------------

    def _direct(self, texts: Sequence[str]) -> bool:
        """Whether to search ``texts`` directly: while no automaton is built and, with
        them, fewer than :data:`_DIRECT_CHARS` characters have been searched."""
        size = sum(map(len, texts))
        if self._database is not None or self._regexes is not None or size > self._direct_left:
            self._direct_left = 0
            return False
        self._direct_left -= size
        return True

    def _hits_direct(self, text: str) -> Iterator[tuple[int, int]]:
        """``(start, entry index)`` of every keyword occurrence, by looking up the two
        characters at each position: nothing to build, a few microseconds a short text."""
        entries = self._entries
        for caseless, heads in enumerate(self._heads):
            hay = ascii_lower(text) if caseless else text
            for i in range(len(hay) - 1):
                for n in heads.get(hay[i : i + 2], ()):
                    kw, _, bounded = entries[n]
                    if (
                        hay.startswith(kw, i)
                        and (not caseless or text[i : i + len(kw)].isascii())
                        and (not bounded or at_boundary(text, i))
                    ):
                        yield i, n

    # -- Hyperscan ------------------------------------------------------------

    def _scanner(self) -> tuple[Any, Any] | None:
        """The compiled database and this thread's scratch space (None without Hyperscan),
        built when first searched with."""
        hs = _hyperscan()
        if hs is None or not self._entries:
            return None
        if self._database is None:
            with self._lock:
                if self._database is None:
                    db = hs.Database(mode=hs.HS_MODE_BLOCK)
                    # Plain literals compile in milliseconds; a word boundary is checked
                    # where a bounded keyword is found, in the match callback.
                    db.compile(
                        expressions=[_expression(kw) for kw, _, _ in self._entries],
                        ids=list(range(len(self._entries))),
                        elements=len(self._entries),
                        flags=[hs.HS_FLAG_CASELESS if c else 0 for _, c, _ in self._entries],
                    )
                    self._database = db
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = hs.Scratch(self._database)
        return self._database, scratch

    def accelerated(self) -> bool:
        """Whether searches run on Hyperscan here."""
        return self._scanner() is not None

    def _find_fast(self, text: str, scanner: tuple[Any, Any]) -> dict[int, list[int]]:
        data = _one_byte_each(text)
        hits: list[tuple[int, int]] = []  # (end, entry), in order of end: Hyperscan's order
        sizes, bounded = self._sizes, self._bounded

        def on_match(entry: int, _from: int, to: int, _flags: int, _ctx: Any) -> None:
            if not bounded[entry] or _at_boundary(data, to - sizes[entry]):
                hits.append((to, entry))

        database, scratch = scanner
        database.scan(data, match_event_handler=on_match, scratch=scratch)
        if not hits:
            return {}
        found: dict[int, list[int]] = {}
        entries, rules = self._entries, self._rules
        for to, entry in hits:
            start = to - len(entries[entry][0])
            for rule in rules[entry]:
                found.setdefault(rule, []).append(start)
        return found

    # -- the regex prefilter --------------------------------------------------

    def _prefilters(self) -> list[tuple[bool, Prefilter]]:
        """The regex prefilter of the exact keywords and that of the caseless ones, built
        when first searched with."""
        if self._regexes is None:
            regexes = []
            for caseless in (False, True):
                keywords = {kw for kw, c in self._by_keyword if c == caseless}
                if keywords:
                    regexes.append((caseless, Prefilter(keywords)))
            self._regexes = regexes
        return self._regexes

    def _hits_regex(self, text: str) -> Iterator[tuple[int, int]]:
        """``(start, entry index)`` of every keyword occurrence (regex prefilter)."""
        for caseless, prefilter in self._prefilters():
            if caseless:
                occurrences = prefilter.occurrences(ascii_lower(text), text)
            else:
                occurrences = prefilter.occurrences(text)
            for start, kw in occurrences:
                for n, bounded in self._by_keyword[(kw, caseless)]:
                    if not bounded or at_boundary(text, start):
                        yield start, n

    # -- either search: what its hits mean -----------------------------------

    def _found(self, hits: Iterator[tuple[int, int]]) -> dict[int, list[int]]:
        found: dict[int, list[int]] = {}
        for start, n in hits:
            for rule in self._rules[n]:
                found.setdefault(rule, []).append(start)
        return found

    def _screened(self, hits: Iterator[tuple[int, int]]) -> tuple[bool, set[int]]:
        seen: set[int] = set()
        for _, entry in hits:
            if not self._partial[entry]:
                return True, set()
            seen.update(self._rules[entry])
        return False, seen

    # -- the questions --------------------------------------------------------

    def find(self, text: str, *, fast: bool = True) -> dict[int, list[int]]:
        """Map each rule whose keywords occur in ``text`` to the keyword start positions
        (in any order, perhaps repeated). ``fast=False`` forces the regex prefilter."""
        if fast and self._direct([text]):
            return self._found(self._hits_direct(text))
        scanner = self._scanner() if fast else None
        return self._find_fast(text, scanner) if scanner else self._found(self._hits_regex(text))

    def screen(
        self, texts: Sequence[str], *, fast: bool = True
    ) -> tuple[set[int], dict[int, set[int]]]:
        """Indices of the ``texts`` in which a keyword occurs that suffices on its own, and
        for each other text the partial rules whose keywords occur in it: a Hyperscan pass
        over each text that stops at its first sufficient keyword (a long text that holds
        one mostly holds many), or one regex check (or direct search) per text
        (``fast=False`` or no Hyperscan)."""
        found: set[int] = set()
        maybe: dict[int, set[int]] = {}
        direct = fast and self._direct(texts)
        scanner = self._scanner() if fast and not direct else None
        if scanner is None or not texts:
            search = self._hits_direct if direct else self._hits_regex
            for n, text in enumerate(texts):
                whole, partly = self._screened(search(text))
                if whole:
                    found.add(n)
                elif partly:
                    maybe[n] = partly
            return found, maybe
        sizes, bounded, partial, rules = self._sizes, self._bounded, self._partial, self._rules
        database, scratch = scanner
        terminated = _hyperscan().ScanTerminated
        for n, text in enumerate(texts):
            data = _one_byte_each(text)
            seen: set[int] = set()

            def on_match(entry: int, _from: int, end: int, _flags: int, _ctx: Any) -> bool:
                if bounded[entry] and not _at_boundary(data, end - sizes[entry]):  # noqa: B023
                    return False
                if partial[entry]:
                    seen.update(rules[entry])  # noqa: B023
                    return False
                return True

            try:
                database.scan(data, match_event_handler=on_match, scratch=scratch)
            except terminated:  # a callback said True: a sufficient keyword occurs
                found.add(n)
            else:
                if seen:
                    maybe[n] = seen
        return found, maybe


def _union(entries: dict[Entry, frozenset[int]], *, caseless: bool) -> dict[str, frozenset[int]]:
    out: dict[str, set[int]] = {}
    for (kw, c, _), rules in entries.items():
        if c == caseless:
            out.setdefault(kw, set()).update(rules)
    return {kw: frozenset(rules) for kw, rules in out.items()}


def _one_byte_each(text: str) -> bytes:
    """``text`` for Hyperscan, one byte a character, so that a match's byte offsets are
    character offsets: every non-ASCII character becomes ``?``, which no keyword holds and
    which is no word character, as the character it stands for is none."""
    return text.encode("ascii", "replace")
