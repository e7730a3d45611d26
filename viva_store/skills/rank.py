"""Ranking skills for a task: BM25 over name, description and tags, then weight (pure).

``bm25`` scores each skill against the task text. It is BM25 with field weights (a
match in the name counts 3 times, in a tag twice, in the description once: "BM25F
lite", the fields summed into one weighted term frequency and length). The idf comes
from the whole collection given (the team library), so a word every skill shares
scores little.

``choose`` orders the candidates — relevance first, weight second, then name so the
order is total — takes at most ``limit``, and explains each pick and why the next ones
were left out. Nothing here reads a clock or a database.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

K1 = 1.2
B = 0.75
FIELD_WEIGHTS: Mapping[str, float] = {"name": 3.0, "tags": 2.0, "description": 1.0}
_WORD = re.compile(r"[a-z0-9]+")
STOPWORDS = frozenset(
    (
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "has",
        "have",
        "how",
        "in",
        "into",
        "is",
        "it",
        "its",
        "of",
        "on",
        "or",
        "that",
        "the",
        "this",
        "to",
        "was",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "with",
        "you",
        "your",
    )
)


def stem(word: str) -> str:
    """A light, deterministic suffix strip so "tests", "testing" and "test" meet."""
    for suffix, keep in (("ies", "y"), ("ing", ""), ("ed", ""), ("es", ""), ("s", "")):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3 and not word.endswith("ss"):
            return word[: -len(suffix)] + keep
    return word


def tokenize(text: str) -> list[str]:
    """Lower-cased word stems of ``text`` without stop words ("code-review" → code, review)."""
    return [stem(w) for w in _WORD.findall(text.lower()) if w not in STOPWORDS]


@dataclass(frozen=True, slots=True)
class Doc:
    """What a skill offers to be matched on."""

    name: str
    description: str
    tags: tuple[str, ...] = ()


@lru_cache(maxsize=8192)
def _weighted_terms(doc: Doc) -> dict[str, float]:
    # Cached per document: a library changes rarely, a projection ranks it every time.
    terms: dict[str, float] = {}
    fields = (("name", doc.name), ("tags", " ".join(doc.tags)), ("description", doc.description))
    for field, text in fields:
        weight = FIELD_WEIGHTS[field]
        for term in tokenize(text):
            terms[term] = terms.get(term, 0.0) + weight
    return terms


def bm25(query: str, docs: Sequence[Doc], k1: float = K1, b: float = B) -> dict[str, float]:
    """Each document's BM25 score for ``query`` (0.0 when no query term occurs in it).

    Query terms count once each however often the task repeats them.
    """
    names = [d.name for d in docs]
    if len(set(names)) != len(names):
        raise ValueError("docs: each name may appear once")
    if not docs:
        return {}
    terms = set(tokenize(query))
    bags = {d.name: _weighted_terms(d) for d in docs}
    lengths = {name: sum(bag.values()) for name, bag in bags.items()}
    average = sum(lengths.values()) / len(docs) or 1.0
    df = {t: sum(1 for bag in bags.values() if bag.get(t)) for t in terms}
    n = len(docs)
    scores: dict[str, float] = {}
    for name, bag in bags.items():
        norm = k1 * (1.0 - b + b * lengths[name] / average)
        score = 0.0
        for t in terms:
            tf = float(bag.get(t, 0.0))
            if tf:
                idf = math.log(1.0 + (n - df[t] + 0.5) / (df[t] + 0.5))
                score += idf * tf * (k1 + 1.0) / (tf + norm)
        scores[name] = score
    return scores


@dataclass(frozen=True, slots=True)
class Candidate:
    """A skill that could be projected: its relevance to the task and its weight now."""

    name: str
    relevance: float
    weight: float


@dataclass(frozen=True, slots=True)
class Choice:
    """One ranked candidate: picked or not, with the reason in words."""

    name: str
    rank: int
    relevance: float
    weight: float
    picked: bool
    reason: str


def _order(c: Candidate) -> tuple[float, float, str]:
    return (-c.relevance, -c.weight, c.name)


def choose(
    candidates: Iterable[Candidate], limit: int, explain_next: int = 3
) -> tuple[list[Choice], list[Choice]]:
    """The picks (at most ``limit``) and the next ``explain_next`` left out, explained."""
    ranked = sorted(candidates, key=_order)
    picks: list[Choice] = []
    for rank, c in enumerate(ranked[:limit], start=1):
        if c.relevance > 0:
            why = f"relevance {c.relevance:.3f} to the task (rank {rank}); weight {c.weight:.3f}"
        else:
            why = f"no word of the task matches; picked on weight {c.weight:.3f} (rank {rank})"
        picks.append(Choice(c.name, rank, c.relevance, c.weight, True, why))
    left: list[Choice] = []
    last = ranked[limit - 1] if 0 < limit <= len(ranked) else None
    for rank, c in enumerate(ranked[limit : limit + explain_next], start=limit + 1):
        if last is None:
            why = "the projection limit is 0"
        elif c.relevance < last.relevance:
            why = (
                f"relevance {c.relevance:.3f} is below the last pick's "
                f"({last.name}, {last.relevance:.3f}); at most {limit} are projected"
            )
        elif c.weight < last.weight:
            why = (
                f"as relevant as the last pick ({last.name}) but weight {c.weight:.3f} "
                f"< {last.weight:.3f}; at most {limit} are projected"
            )
        else:
            why = (
                f"ties the last pick ({last.name}); ordered by name; at most {limit} are projected"
            )
        left.append(Choice(c.name, rank, c.relevance, c.weight, False, why))
    return picks, left
