"""Triage: filing recovered sessions into members' experience (DESIGN job 1, I6).

The owner classifies (append-only events; undo is an event too); Viva suggests a member
with a calibrated confidence and never applies a suggestion unless the owner asks.
"""

from __future__ import annotations

from viva_store.triage.classify import (
    Classified,
    Expectation,
    Expected,
    SessionChanged,
    classify,
    classify_nobody,
    queue_size,
    unclassify,
)
from viva_store.triage.launched import finish_launched
from viva_store.triage.suggest import Accepted, Suggestion, accept_suggestions, suggest

__all__ = [
    "Accepted",
    "Classified",
    "Expectation",
    "Expected",
    "SessionChanged",
    "Suggestion",
    "accept_suggestions",
    "classify",
    "classify_nobody",
    "finish_launched",
    "queue_size",
    "suggest",
    "unclassify",
]
