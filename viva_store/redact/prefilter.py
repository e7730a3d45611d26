"""Keyword prefilter without Hyperscan: where keywords occur in a text, by one regex.

Checking hundreds of keywords with ``in`` costs as many scans of the text.
Instead all keywords go into one alternation. Each keyword is written to start at one of
a few *rare* "anchor" characters (chosen by a weighted set cover over
character frequencies; the part of the keyword before the anchor is checked
by a look-behind), so the regex engine's first-character filter skips most
of an ordinary text and only stops at the rare anchors. At each stop every
keyword anchored at that character is checked, so overlapping keywords are all
reported, as Hyperscan reports them.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterator

# Occurrences per 100,000 characters in agent transcripts, Python code and
# English docs (the harness fixtures, the CPython stdlib, Vim's help files).
_FREQ = {
    " ": 17115, "e": 7516, "t": 6053, "n": 4382, "s": 4119, "o": 4106, "i": 3953, "a": 3876,
    "r": 3687, "l": 2682, '"': 2477, "d": 2258, "c": 2142, "m": 1829, "u": 1776, "p": 1738,
    "h": 1727, "f": 1653, "\\": 1364, ":": 1250, ".": 1243, "g": 1094, ",": 1094, "=": 874,
    "_": 803, "b": 764, "-": 752, "y": 701, "w": 676, "'": 627, "0": 623, "(": 621, ")": 621,
    "x": 541, "1": 470, "v": 458, "k": 430, "T": 412, "/": 385, "2": 377, "{": 299, "}": 293,
    "*": 288, "E": 275, "|": 266, "5": 260, "C": 258, "3": 249, "S": 247, "I": 242, "N": 228,
    "4": 219, "R": 215, "A": 209, "9": 204, "[": 193, "8": 191, "]": 188, "6": 185, "L": 182,
    "7": 167, ";": 167, "M": 157, ">": 149, "#": 139, "O": 135, "D": 133, "F": 128, "P": 126,
    "U": 120, "`": 110, "W": 107, "<": 94, "B": 93, "+": 92, "V": 91, "j": 90, "z": 86,
    "q": 82, "G": 67, "H": 63, "Z": 48, "%": 44, "X": 41, "K": 41, "Y": 38, "@": 36, "!": 29,
    "J": 24, "&": 24, "Q": 23, "?": 22, "$": 21, "~": 14, "^": 14,
}  # fmt: skip
_RARE = 10
# Every anchor character adds an alternative the engine tries at each stop.
_GROUP_COST = 120


def frequency(c: str) -> int:
    """How often ``c`` occurs per 100,000 characters of ordinary transcript text (an estimate)."""
    return _FREQ.get(c, _RARE)


_freq = frequency


def choose_anchors(keywords: list[str]) -> dict[str, int]:
    """Map each keyword to the index of its anchor character.

    Greedy weighted set cover: repeatedly take the character with the lowest
    (frequency + group cost) per keyword it newly covers; then anchor each
    keyword at its rarest chosen character.
    """
    uncovered = set(keywords)
    chosen: set[str] = set()
    while uncovered:
        counts: dict[str, int] = defaultdict(int)
        for kw in uncovered:
            for c in set(kw):
                counts[c] += 1
        best = min(counts, key=lambda c: ((_freq(c) + _GROUP_COST) / counts[c], c))
        chosen.add(best)
        uncovered = {kw for kw in uncovered if best not in kw}
    # Improve the greedy pick: replace a frequent anchor by the rarest
    # characters of the keywords only it covers, when that is cheaper.
    for c in sorted(chosen, key=_freq, reverse=True):
        rest = chosen - {c}
        orphans = [kw for kw in keywords if not any(x in rest for x in kw)]
        swap = {min((x for x in kw if x != c), key=_freq, default=c) for kw in orphans}
        if sum(_freq(x) + _GROUP_COST for x in swap - rest) < _freq(c) + _GROUP_COST:
            chosen = rest | swap
    return {
        kw: min((j for j, c in enumerate(kw) if c in chosen), key=lambda j: (_freq(kw[j]), j))
        for kw in keywords
    }


def _group(anchor: str, entries: list[tuple[str, int]]) -> str:
    """Regex for the keywords anchored at ``anchor``: forward parts, then look-behinds."""
    alts = [
        re.escape(kw[i + 1 :]) + (f"(?<={re.escape(kw)})" if i else "")
        for kw, i in entries
        if i + 1 < len(kw)
    ]
    backward = [kw for kw, i in entries if i + 1 == len(kw)]
    if len(backward) == 1:
        alts.append(f"(?<={re.escape(backward[0])})")
    elif backward:
        # One cheap test of the character before the anchor rejects most stops.
        before = "".join(sorted({re.escape(kw[-2]) for kw in backward}))
        inner = "|".join(f"(?<={re.escape(kw)})" for kw in backward)
        alts.append(f"(?<=[{before}]{re.escape(anchor)})(?:{inner})")
    return f"{re.escape(anchor)}(?:{'|'.join(alts)})"


class Prefilter:
    """Find where keywords occur in a text: every occurrence, overlapping ones too."""

    def __init__(self, keywords: set[str]) -> None:
        if any(len(kw) < 2 for kw in keywords):
            raise ValueError("keywords need at least two characters")
        anchors = choose_anchors(sorted(keywords))
        groups: dict[str, list[tuple[str, int]]] = defaultdict(list)
        # At a stop of the alternation every keyword anchored at that character is
        # checked, so that keywords overlapping the one the regex reports count too.
        self._at: dict[str, list[tuple[str, int]]] = defaultdict(list)
        for kw in sorted(keywords, key=lambda k: (-len(k), k)):
            i = anchors[kw]
            groups[kw[i]].append((kw, i))
            self._at[kw[i]].append((kw, i))
        order = sorted(groups, key=_freq, reverse=True)
        self.pattern = re.compile("|".join(_group(c, groups[c]) for c in order))

    def occurrences(self, text: str, original: str | None = None) -> Iterator[tuple[int, str]]:
        """``(start, keyword)`` of every keyword occurrence, in order of anchor position.

        With ``original`` (``text`` is then its ASCII-lower-cased copy), a keyword
        counts only where ``original`` holds ASCII: matching ignores ASCII case and
        nothing else.
        """
        search = self.pattern.search
        m = search(text)
        while m is not None:
            p = m.start()
            for kw, i in self._at[text[p]]:
                start = p - i
                if (
                    start >= 0
                    and text.startswith(kw, start)
                    and (original is None or original[start : start + len(kw)].isascii())
                ):
                    yield start, kw
            m = search(text, p + 1)
