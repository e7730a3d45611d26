"""Strings built from a regular expression at test time, so that no example is committed.

:func:`sample` walks the pattern's syntax tree and picks, with a seeded
random source, one way through it: a branch, a repetition count, a character
of each class (letters under ``(?i)`` in either case). Assertions (``\\b``,
look-arounds) are not planned for, so a caller keeps the samples its pattern
really matches. ``short`` takes every repetition below its minimum: the
same shape, too short to be the secret.
"""

from __future__ import annotations

import random
import re
import re._constants as sre_c
import re._parser as sre_parse
from typing import Any

_ALPHABET = [chr(c) for c in range(33, 127)] + [" ", "\t", "\n"]
_PREFERRED = [c for c in _ALPHABET if c.isalnum()]
_CATEGORIES = {
    sre_c.CATEGORY_DIGIT: str.isdigit,
    sre_c.CATEGORY_NOT_DIGIT: lambda c: not c.isdigit(),
    sre_c.CATEGORY_WORD: lambda c: c.isalnum() or c == "_",
    sre_c.CATEGORY_NOT_WORD: lambda c: not (c.isalnum() or c == "_"),
    sre_c.CATEGORY_SPACE: str.isspace,
    sre_c.CATEGORY_NOT_SPACE: lambda c: not c.isspace(),
}


def _in(items: list[Any], c: str, ci: bool) -> bool:
    negate = False
    hit = False
    for op, av in items:
        if op is sre_c.NEGATE:
            negate = True
        elif op is sre_c.LITERAL:
            hit |= c == chr(av) or (ci and c.lower() == chr(av).lower())
        elif op is sre_c.RANGE:
            lo, hi = av
            hit |= lo <= ord(c) <= hi or (
                ci and (lo <= ord(c.lower()) <= hi or lo <= ord(c.upper()) <= hi)
            )
        elif op is sre_c.CATEGORY:
            hit |= _CATEGORIES[av](c)
    return hit != negate


class _Walk:
    def __init__(self, rng: random.Random, short: bool) -> None:
        self.rng = rng
        self.short = short
        self.groups: dict[int, str] = {}
        self.classes: dict[tuple[int, bool], tuple[list[str], list[str]]] = {}

    def char_of(self, items: list[Any], ci: bool) -> str:
        key = (id(items), ci)
        if key not in self.classes:
            allowed = [c for c in _ALPHABET if _in(items, c, ci)]
            # A line break only where nothing else will do: samples stay on one line.
            allowed = [c for c in allowed if c != "\n"] or allowed
            self.classes[key] = (allowed, [c for c in allowed if c in _PREFERRED])
        allowed, preferred = self.classes[key]
        pool = preferred if preferred and self.rng.random() < 0.9 else allowed
        return self.rng.choice(pool) if pool else ""

    def count(self, lo: int, hi: int) -> int:
        if self.short:
            return lo // 2
        top = lo + 6 if hi == sre_c.MAXREPEAT else min(hi, lo + 6)
        return self.rng.randint(lo, top)

    def items(self, items: Any, ci: bool) -> str:
        return "".join(self.node(op, av, ci) for op, av in items)

    def node(self, op: Any, av: Any, ci: bool) -> str:
        if op is sre_c.LITERAL:
            ch = chr(av)
            return ch.swapcase() if ci and self.rng.random() < 0.5 else ch
        if op is sre_c.NOT_LITERAL:
            return self.rng.choice([c for c in _PREFERRED if c != chr(av)])
        if op is sre_c.ANY:  # often a space: filler between words keeps \b boundaries
            return " " if self.rng.random() < 0.3 else self.rng.choice(_PREFERRED)
        if op is sre_c.IN:
            return self.char_of(av, ci)
        if op is sre_c.BRANCH:
            return self.items(self.rng.choice(av[1]), ci)
        if op is sre_c.SUBPATTERN:
            group, add, remove, sub = av
            inner = (ci or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE
            text = self.items(sub, inner)
            if group:
                self.groups[group] = text
            return text
        if op in (sre_c.MAX_REPEAT, sre_c.MIN_REPEAT, sre_c.POSSESSIVE_REPEAT):
            lo, hi, item = av
            return "".join(self.items(item, ci) for _ in range(self.count(lo, hi)))
        if op is sre_c.GROUPREF:
            return self.groups.get(av, "")
        return ""  # AT, ASSERT, ASSERT_NOT: nothing to write


def sample(pattern: re.Pattern[str], seed: int, *, short: bool = False) -> str:
    """One string shaped by ``pattern`` (seeded; ``short``: repetitions below their minimum)."""
    parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    walk = _Walk(random.Random(seed), short)
    return walk.items(parsed, bool(pattern.flags & re.IGNORECASE))
