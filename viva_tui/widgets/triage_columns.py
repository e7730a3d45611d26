"""The triage table's columns for a given width: all of them when the pane is wide, and
the start, title and suggestion when it is not (the title takes what is left)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from viva_tui.widgets.format import clip, project_label, when

if TYPE_CHECKING:
    from rich.text import Text

    from viva_store.records import SessionRecord

Column = tuple[str, str, int]
"""``(key, label, width)``."""

PADDING = 2
"""Each cell's padding, left and right."""
SCROLLBAR = 2
MIN_TITLE = 24
SUGGESTED = ("suggested", "suggested", 28)
LAYOUTS: tuple[tuple[Column, ...], ...] = (
    (
        ("mark", " ", 1),
        ("harness", "harness", 11),
        ("project", "project", 18),
        ("started", "started", 16),
        ("title", "title", 0),
        ("msgs", "msgs", 4),
        SUGGESTED,
    ),
    (
        ("mark", " ", 1),
        ("project", "project", 14),
        ("started", "started", 11),
        ("title", "title", 0),
        SUGGESTED,
    ),
    (("mark", " ", 1), ("started", "started", 11), ("title", "title", 0), SUGGESTED),
)
"""From the widest to the narrowest; the title's width (0) is what remains."""
MAX_TITLE = 80


def columns_for(width: int) -> tuple[Column, ...]:
    """The widest layout whose title still gets ``MIN_TITLE`` cells (else the narrowest)."""
    for layout in LAYOUTS:
        used = sum(w + PADDING for _, _, w in layout) + SCROLLBAR
        if width - used >= MIN_TITLE or layout is LAYOUTS[-1]:
            title = min(max(width - used, 8), MAX_TITLE)
            return tuple((k, label, title if k == "title" else w) for k, label, w in layout)
    raise AssertionError("unreachable")  # pragma: no cover


def short_started(layout: tuple[Column, ...]) -> bool:
    """Whether this layout shows the start as ``MM-DD HH:MM`` (its column is narrow)."""
    return any(k == "started" and w < 16 for k, _, w in layout)


def row_cells(
    s: SessionRecord, layout: tuple[Column, ...], mark: Text, suggested: Text
) -> tuple[object, ...]:
    """One session's cells, in ``layout``'s order and widths."""
    width = {key: w for key, _, w in layout}
    started = when(s.started_at)
    cells = {
        "mark": mark,
        "harness": s.harness,
        "project": project_label(s.project, s.cwd, width.get("project", 0)),
        "started": started[5:] if short_started(layout) else started,
        "title": clip(s.title or "(untitled)", width.get("title", 0)),
        "msgs": str(s.message_count),
        "suggested": suggested,
    }
    return tuple(cells[key] for key in width)
