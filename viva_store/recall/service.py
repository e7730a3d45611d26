"""Recall: a member's experience searched by relevance, recency and importance (DESIGN §5).

:func:`recall` returns the best hit per session the caller may see, with its provenance
and a snippet, narrowed if asked by a :class:`RecallFilter` (harness, project, since);
:func:`mark_importance` records the owner's judgement of a session's importance, the
third factor of the ranking.
"""

from __future__ import annotations

from viva_store.recall.marks import Marked, mark_importance
from viva_store.recall.records import RecallFilter, RecallHit
from viva_store.recall.search import recall

__all__ = ["Marked", "RecallFilter", "RecallHit", "mark_importance", "recall"]
