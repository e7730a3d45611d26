"""Which texts of a batch may hold a secret: one keyword scan for all of them.

Every rule is gated by keywords (a text without any of them is returned
unchanged by the redactor), and most messages of a transcript hold none. So
the importer asks, for a whole batch of messages at once, which of them
contain a keyword, and sends only those through the redactor. A rule tried
only where its start literals occur counts only when one of those occurs too
(:meth:`~viva_store.redact.ruleset.RuleSet.flagged`).

With Hyperscan (Linux x86-64 wheels; an optional accelerator) each text is
scanned by a multi-literal automaton up to its first keyword, an order of
magnitude faster than the regex prefilter. Without it, each text is checked by
:func:`viva_store.redact.engine.may_hold_secret`. Both answer the same
question exactly: does any keyword of the active rule set occur in the text
(exact keywords as written, caseless ones in any ASCII case), with a start
literal beside it for the rules that need one.
"""

from __future__ import annotations

from collections.abc import Sequence

from viva_store.redact.ruleset import BUILTIN, active

KEYWORDS: tuple[str, ...] = tuple(sorted(BUILTIN.index.exact))
"""The built-in rules' exact keywords."""
CASELESS: tuple[str, ...] = tuple(sorted(BUILTIN.index.caseless))
"""The built-in rules' caseless keywords (lower case; they match in any ASCII case)."""


def accelerated() -> bool:
    """Whether the one-pass scanner is available on this machine."""
    return active().index.accelerated()


def flagged(texts: Sequence[str], *, fast: bool = True) -> set[int]:
    """Indices of the ``texts`` in which some rule may find a secret (its keyword, and
    its start where it needs one, occur).

    ``fast=False`` forces the per-text regex path (what runs without Hyperscan).
    """
    return active().flagged(texts, fast=fast)
