"""Recall: a member's experience searched by relevance, recency and importance (DESIGN §5).

:func:`recall` returns the best hit per session the caller may see, with its provenance
and a snippet; :func:`mark_importance` records the owner's or a member's judgement of a
session's importance, the third factor of the ranking.
"""

from __future__ import annotations

from viva_store.recall.records import RecallHit
from viva_store.recall.search import Marked, mark_importance, recall

__all__ = ["Marked", "RecallHit", "mark_importance", "recall"]
