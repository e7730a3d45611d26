"""Small pure formatters shared by the panes (no widgets here)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from rich.text import Text

if TYPE_CHECKING:
    from viva_store.triage.service import Suggestion

BLOCKS = "▁▂▃▄▅▆▇█"


def local(at: datetime) -> datetime:
    """``at`` in the terminal's local time zone."""
    return at.astimezone()


def when(at: datetime | None) -> str:
    """A compact local date and time, ``—`` when unknown."""
    return "—" if at is None else f"{local(at):%Y-%m-%d %H:%M}"


def project_label(project: str | None, cwd: str | None = None, width: int = 24) -> str:
    """A session's project as the filter takes it: its name, else the end of its folder."""
    text = project or cwd or "—"
    if "/" in text.strip("/"):
        text = "/".join(text.rstrip("/").split("/")[-2:])
    return clip(text, width)


def day(at: datetime | None) -> str:
    """The local day, e.g. ``Mon 2026-11-30``."""
    return "undated" if at is None else f"{local(at):%a %Y-%m-%d}"


def clip(text: str | None, width: int) -> str:
    """One line of at most ``width`` characters."""
    flat = " ".join((text or "").split())
    return flat if len(flat) <= width else flat[: max(width - 1, 0)] + "…"


def sparkline(values: Sequence[float], width: int = 12, top: float | None = None) -> str:
    """``values`` squeezed into ``width`` block characters (the last value on the right)."""
    if not values:
        return ""
    if len(values) > width:
        step = len(values) / width
        values = [values[min(int((i + 1) * step) - 1, len(values) - 1)] for i in range(width)]
    high = top if top is not None else max(values)
    if high <= 0:
        return BLOCKS[0] * len(values)
    return "".join(
        BLOCKS[min(int(v / high * (len(BLOCKS) - 1) + 0.5), len(BLOCKS) - 1)] for v in values
    )


def plural(count: int, word: str) -> str:
    """``1 session`` / ``3 sessions``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def suggestion_cell(s: Suggestion | None) -> Text:
    """Triage's "suggested" cell: the member with its confidence, a muted guess below the
    threshold (not offered), or — when there is none."""
    if s is not None and s.member is not None:
        return Text(f"{s.member} {s.confidence:.2f}", style="bold")
    if s is not None and s.best_guess:
        return Text(f"({s.best_guess} {s.confidence:.2f})", style="dim italic")
    return Text("—", style="dim")
