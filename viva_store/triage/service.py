"""Triage: filing recovered sessions into members' experience (DESIGN job 1, I6).

The owner classifies (append-only events; undo is an event too); Viva suggests a member
with a calibrated confidence and never applies a suggestion unless the owner asks.
"""

from __future__ import annotations

from viva_store.triage.classify import Classified, classify, classify_nobody, unclassify
from viva_store.triage.suggest import Accepted, Suggestion, accept_suggestions, suggest

__all__ = [
    "Accepted",
    "Classified",
    "Suggestion",
    "accept_suggestions",
    "classify",
    "classify_nobody",
    "suggest",
    "unclassify",
]
