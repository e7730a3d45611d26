"""Where a rule table's keywords occur: which rules to try on a text, and where.

Exact keywords match as written; caseless ones (written in lower case) in any
ASCII case. With Hyperscan (Linux x86-64 wheels) one pass of a multi-literal
automaton over the UTF-8 text reports every occurrence of every keyword; the
same question is answered without it by the regex prefilter
(:mod:`viva_store.redact.prefilter`), over the text and over its ASCII-lower-
cased copy. Both give the same answer, exactly (a property test holds them to
it); Hyperscan is an order of magnitude faster.
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import Any

from viva_store.redact.prefilter import Prefilter
from viva_store.redact.rule import ascii_lower

_hs: Any
try:  # pragma: no cover - which branch runs depends on the platform
    import hyperscan as _hs
except ImportError:  # pragma: no cover
    _hs = None

# No keyword holds a newline, so no match can span two texts joined by one.
_SEP = b"\n"


def _literal(keyword: str) -> bytes:
    """A Hyperscan expression matching exactly ``keyword`` (every byte hex-escaped)."""
    return "".join(f"\\x{b:02x}" for b in keyword.encode()).encode()


class KeywordIndex:
    """The keywords of one rule table, ready to search for."""

    def __init__(
        self, exact: dict[str, frozenset[int]], caseless: dict[str, frozenset[int]]
    ) -> None:
        if any("\n" in kw or not kw.isascii() for kw in (*exact, *caseless)):
            raise ValueError("keywords are ASCII and hold no newline")
        self.exact = dict(exact)
        self.caseless = dict(caseless)
        self._keywords = [(kw, False) for kw in sorted(exact)] + [
            (kw, True) for kw in sorted(caseless)
        ]
        self._rules = [tuple(sorted((caseless if c else exact)[kw])) for kw, c in self._keywords]
        self._exact_re = Prefilter(exact) if exact else None
        self._caseless_re = Prefilter(caseless) if caseless else None
        self._lock = threading.Lock()
        self._local = threading.local()
        self._database: Any = None

    # -- Hyperscan ------------------------------------------------------------

    def _scanner(self) -> tuple[Any, Any] | None:
        """The compiled database and this thread's scratch space (None without Hyperscan)."""
        if _hs is None or not self._keywords:
            return None
        if self._database is None:
            with self._lock:
                if self._database is None:
                    db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
                    db.compile(
                        expressions=[_literal(kw) for kw, _ in self._keywords],
                        ids=list(range(len(self._keywords))),
                        elements=len(self._keywords),
                        flags=[_hs.HS_FLAG_CASELESS if c else 0 for _, c in self._keywords],
                    )
                    self._database = db
        scratch = getattr(self._local, "scratch", None)
        if scratch is None:
            scratch = self._local.scratch = _hs.Scratch(self._database)
        return self._database, scratch

    def accelerated(self) -> bool:
        """Whether searches run on Hyperscan here."""
        return self._scanner() is not None

    def _find_fast(self, text: str, scanner: tuple[Any, Any]) -> dict[int, list[int]]:
        data = text.encode("utf-8", "surrogatepass")
        ends: list[tuple[int, int]] = []

        def on_match(kid: int, _from: int, to: int, _flags: int, _ctx: Any) -> None:
            ends.append((to, kid))

        database, scratch = scanner
        database.scan(data, match_event_handler=on_match, scratch=scratch)
        if not ends:
            return {}
        if len(data) != len(text):  # byte offsets to character offsets, in one walk
            ends.sort()
            chars = pos = 0
            converted: list[tuple[int, int]] = []
            for to, kid in ends:
                chars += len(data[pos:to].decode("utf-8", "surrogatepass"))
                pos = to
                converted.append((chars, kid))
            ends = converted
        found: dict[int, list[int]] = {}
        for to, kid in ends:
            start = to - len(self._keywords[kid][0])
            for rule in self._rules[kid]:
                found.setdefault(rule, []).append(start)
        return found

    # -- the regex prefilter --------------------------------------------------

    def _find_regex(self, text: str) -> dict[int, list[int]]:
        found = self._exact_re.find(text) if self._exact_re is not None else {}
        if self._caseless_re is not None:
            for rule, positions in self._caseless_re.find(ascii_lower(text), text).items():
                found.setdefault(rule, []).extend(positions)
        return found

    def _occurs_regex(self, text: str) -> bool:
        if self._exact_re is not None and self._exact_re.occurs(text):
            return True
        return self._caseless_re is not None and self._caseless_re.occurs(ascii_lower(text), text)

    # -- the questions --------------------------------------------------------

    def find(self, text: str, *, fast: bool = True) -> dict[int, list[int]]:
        """Map each rule whose keywords occur in ``text`` to the keyword start positions
        (in any order, perhaps repeated). ``fast=False`` forces the regex prefilter."""
        scanner = self._scanner() if fast else None
        return self._find_fast(text, scanner) if scanner else self._find_regex(text)

    def occurs(self, text: str) -> bool:
        """Whether any keyword occurs in ``text`` (the regex prefilter: one short text)."""
        return self._occurs_regex(text)

    def flagged(self, texts: Sequence[str], *, fast: bool = True) -> set[int]:
        """Indices of the ``texts`` in which some keyword occurs: one Hyperscan pass over
        all of them joined, or one regex check per text (``fast=False`` or no Hyperscan)."""
        scanner = self._scanner() if fast else None
        if scanner is None or not texts:
            return {i for i, text in enumerate(texts) if self._occurs_regex(text)}
        parts = [text.encode("utf-8", "surrogatepass") for text in texts]
        ends: list[int] = []
        pos = 0
        for part in parts:
            pos += len(part) + 1
            ends.append(pos)
        found: set[int] = set()

        def on_match(_id: int, _from: int, end: int, _flags: int, _ctx: Any) -> None:
            found.add(bisect.bisect_right(ends, end - 1))

        database, scratch = scanner
        database.scan(_SEP.join(parts), match_event_handler=on_match, scratch=scratch)
        return found
