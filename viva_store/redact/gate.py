"""Which texts of a batch may hold a secret: one keyword scan for all of them.

Every rule is gated by keywords (a text without any of them is returned
unchanged by the redactor), and almost no message of a transcript holds one.
So the importer asks, for a whole batch of messages at once, which of them
contain a keyword, and sends only those through the redactor.

With Hyperscan (Linux x86-64 wheels; an optional accelerator) the texts are
joined and scanned in one pass by a multi-literal automaton, an order of
magnitude faster than the regex prefilter. Without it, each text is checked by
:func:`viva_store.redact.engine.may_hold_secret`. Both answer the same
question exactly: does any rule keyword occur in the text (case as written).
"""

from __future__ import annotations

import bisect
import threading
from collections.abc import Sequence
from typing import Any

from viva_store.redact.engine import may_hold_secret
from viva_store.redact.rules import RULES

KEYWORDS: tuple[str, ...] = tuple(sorted({kw for rule in RULES for kw in rule.keywords}))
# No keyword holds a newline, so no match can span two joined texts.
_SEP = b"\n"
if any("\n" in kw for kw in KEYWORDS):  # pragma: no cover - a guard on the rule table
    raise RuntimeError("a redaction keyword holds a newline: the batch scan cannot join texts")

_hs: Any
try:  # pragma: no cover - which branch runs depends on the platform
    import hyperscan as _hs
except ImportError:  # pragma: no cover
    _hs = None

_local = threading.local()
_database: Any = None
_lock = threading.Lock()


def accelerated() -> bool:
    """Whether the one-pass scanner is available on this machine."""
    return _scanner() is not None


def _scanner() -> tuple[Any, Any] | None:
    """The compiled keyword database and this thread's scratch space (or None)."""
    global _database
    if _hs is None:
        return None
    if _database is None:
        with _lock:
            if _database is None:
                db = _hs.Database(mode=_hs.HS_MODE_BLOCK)
                db.compile(
                    expressions=[_literal(kw) for kw in KEYWORDS],
                    ids=list(range(len(KEYWORDS))),
                    elements=len(KEYWORDS),
                    flags=[0] * len(KEYWORDS),
                )
                _database = db
    scratch = getattr(_local, "scratch", None)
    if scratch is None:
        scratch = _local.scratch = _hs.Scratch(_database)
    return _database, scratch


def _literal(keyword: str) -> bytes:
    """A Hyperscan expression matching exactly ``keyword`` (every byte hex-escaped)."""
    return "".join(f"\\x{b:02x}" for b in keyword.encode()).encode()


def flagged(texts: Sequence[str], *, fast: bool = True) -> set[int]:
    """Indices of the ``texts`` in which some rule keyword occurs.

    ``fast=False`` forces the per-text regex path (what runs without Hyperscan).
    """
    scanner = _scanner() if fast else None
    if scanner is None or not texts:
        return {i for i, text in enumerate(texts) if may_hold_secret(text)}
    database, scratch = scanner
    parts = [text.encode("utf-8", "surrogatepass") for text in texts]
    ends: list[int] = []
    pos = 0
    for part in parts:
        pos += len(part) + 1
        ends.append(pos)
    found: set[int] = set()

    def on_match(_id: int, _start: int, end: int, _flags: int, _context: Any) -> None:
        found.add(bisect.bisect_right(ends, end - 1))

    database.scan(_SEP.join(parts), match_event_handler=on_match, scratch=scratch)
    return found
