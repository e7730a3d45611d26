"""The triage table's columns: all of them when the pane is wide, the essentials when not."""

from __future__ import annotations

COLUMNS = (
    ("mark", " ", 1),
    ("harness", "harness", 11),
    ("project", "project", 20),
    ("started", "started", 16),
    ("title", "title", 44),
    ("msgs", "msgs", 4),
    ("suggested", "suggested", 15),
)
