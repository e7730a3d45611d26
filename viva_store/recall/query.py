"""Turning what a user typed into a full-text query that can never be a syntax error.

Both engines get the same tokens: runs of letters, digits and private-use
characters (the default token characters of SQLite's ``unicode61``
tokenizer); everything else separates tokens. Every token is passed to the
engine as a quoted literal (FTS5) or a bound parameter (PostgreSQL), so
``"*():^`` and friends in user input mean nothing to the engine.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from viva_store.errors import InvalidInput

MAX_QUERY_CHARS = 512
MAX_TOKENS = 32
_TOKEN = re.compile(r"(?:[^\W_]|[\ue000-\uf8ff])+")


@dataclass(frozen=True, slots=True)
class ParsedQuery:
    """A query as recall runs it.

    ``tokens`` are what the engine searches for (as typed, at most
    ``MAX_TOKENS``, duplicates removed); ``terms`` their normalized forms,
    used to highlight snippets.
    """

    text: str
    tokens: tuple[str, ...]
    terms: frozenset[str]
    truncated: bool
    dropped_tokens: int


def normalize(token: str) -> str:
    """Case-folded, without diacritics: how the index compares tokens."""
    decomposed = unicodedata.normalize("NFKD", token.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def tokens_of(text: str) -> list[str]:
    """The tokens of ``text``, in order."""
    return _TOKEN.findall(text)


def truncate(text: str, limit: int) -> tuple[str, bool]:
    """``text`` cut to ``limit`` characters, without a token split in two.

    Cutting never raises: a query of any length is accepted. A token that the
    cut would split is dropped, unless it is the only one.
    """
    if len(text) <= limit:
        return text, False
    cut = text[:limit]
    if _TOKEN.fullmatch(text[limit - 1 : limit + 1]):
        shorter = re.sub(r"(?:[^\W_]|[\ue000-\uf8ff])+$", "", cut)
        if tokens_of(shorter):
            cut = shorter
    return cut, True


def parse_query(
    text: str, max_chars: int = MAX_QUERY_CHARS, max_tokens: int = MAX_TOKENS
) -> ParsedQuery:
    """Parse a recall query; an empty or punctuation-only query is :class:`InvalidInput`."""
    cut, truncated = truncate(text, max_chars)
    seen: dict[str, str] = {}
    for token in tokens_of(cut):
        seen.setdefault(normalize(token), token)
    if not seen:
        raise InvalidInput(
            "recall needs at least one word or number to search for "
            "(the query is empty or only punctuation)"
        )
    kept = list(seen.items())[:max_tokens]
    return ParsedQuery(
        text=cut,
        tokens=tuple(token for _, token in kept),
        terms=frozenset(term for term, _ in kept),
        truncated=truncated,
        dropped_tokens=len(seen) - len(kept),
    )


def conservative_tokens(tokens: tuple[str, ...]) -> tuple[str, ...]:
    """Tokens split wherever an old Unicode version (3.2) sees no letter or digit.

    The fallback when the engine's tokenizer, built on an older Unicode table,
    would split a token in two: those pieces are searched instead.
    """
    old = unicodedata.ucd_3_2_0
    out: list[str] = []
    for token in tokens:
        piece = ""
        for ch in token:
            if old.category(ch)[0] in "LN" or old.category(ch) == "Co":
                piece += ch
            elif piece:
                out.append(piece)
                piece = ""
        if piece:
            out.append(piece)
    return tuple(dict.fromkeys(out))


def fts5_expression(tokens: tuple[str, ...], any_token: bool = False) -> str:
    """An FTS5 MATCH expression: every token a quoted string, all (or any) required.

    Tokens hold only token characters (no quotes), so quoting is exact.
    """
    quoted = [f'"{token}"' for token in tokens]
    return (" OR " if any_token else " ").join(quoted)
