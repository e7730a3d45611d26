"""Tables as the CLI prints them: Rich on a terminal, tab-separated rows in a pipe.

On a terminal a column marked ``keep`` (ids, names, dates: what a user copies into the
next command) is never wrapped or cut; other columns wrap, or with ``line`` stay on one
line and end with ``…`` when cut. When stdout is not a terminal every row is one line of
tab-separated cells, nothing cut, no title and no header (as ``gh`` prints), so
``cut -f1`` and ``awk -F'\\t'`` read it.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from datetime import datetime

    from rich.table import Table
    from rich.text import Text

MIN_WIDTH = 6
"""The narrowest a wrapping or cut column is made before the table grows past the screen."""


@dataclass(frozen=True, slots=True)
class Col:
    """One column: its header, and how a terminal may fit it to the width.

    ``keep``: never wrapped or cut. ``line``: one line, cut with ``…`` (at ``max_width``
    at most, when given). Otherwise the text wraps.
    """

    header: str
    keep: bool = False
    line: bool = False
    max_width: int | None = None


def key(header: str) -> Col:
    """A column of ids or names: a terminal never wraps or cuts it."""
    return Col(header, keep=True)


def line(header: str, max_width: int | None = None) -> Col:
    """A column of free text kept to one line (cut with ``…`` on a terminal)."""
    return Col(header, line=True, max_width=max_width)


def when(at: datetime | None, fmt: str = "%Y-%m-%d %H:%M") -> str:
    """An instant in the user's local time, as tables show it (JSON keeps UTC)."""
    return "" if at is None else at.astimezone().strftime(fmt)


def is_terminal() -> bool:
    """Whether stdout is a terminal (tables are drawn) or a pipe (rows are printed)."""
    isatty = getattr(sys.stdout, "isatty", None)
    return bool(isatty and isatty())


def table(title: str | None, columns: Iterable[str | Col], rows: Iterable[Sequence[Any]]) -> None:
    """Print rows under ``columns``: a Rich table on a terminal, else tab-separated lines.

    A cell is a string (never read as Rich markup), a ``rich.text.Text`` (its styles are
    kept on a terminal), a number, or None (empty).
    """
    cols = [c if isinstance(c, Col) else Col(c) for c in columns]
    if not is_terminal():
        out = sys.stdout
        for row in rows:
            out.write("\t".join(_plain(cell) for cell in row) + "\n")
        return
    from rich.console import Console

    cells = [[_text(cell) for cell in row] for row in rows]
    screen = Console(highlight=False)
    widths, needed = _fit(cols, cells, screen.width)
    console = screen if needed <= screen.width else Console(highlight=False, width=needed)
    console.print(_build(title, cols, cells, widths))


def _plain(cell: Any) -> str:
    """A cell as one tab-free line (a pipe's reader splits on tabs and newlines)."""
    text = "" if cell is None else getattr(cell, "plain", None) or str(cell)
    return " ".join(text.split())


def _text(cell: Any) -> Text:
    from rich.text import Text

    if isinstance(cell, Text):
        return cell
    return Text("" if cell is None else str(cell))


def _natural(header: str, cells: list[Text]) -> int:
    """The width a column needs to show every cell and its header without wrapping."""
    from rich.cells import cell_len

    lines = [header, *(part for cell in cells for part in cell.plain.splitlines())]
    return max((cell_len(part) for part in lines), default=1)


def _fit(cols: list[Col], cells: list[list[Text]], width: int) -> tuple[list[int | None], int]:
    """Each column's width (None: Rich's own choice) and the screen width the table needs.

    Kept columns take their full width; the rest share what is left, the narrowest
    first served, none under :data:`MIN_WIDTH`. When even that does not fit, the table is
    drawn wider than the screen rather than cutting an id.
    """
    natural = []
    for index, col in enumerate(cols):
        full = _natural(col.header, [row[index] for row in cells if index < len(row)])
        natural.append(min(full, col.max_width) if col.line and col.max_width else full)
    frame = 3 * len(cols) + 1  # a border and two spaces of padding per column, one edge
    if sum(natural) + frame <= width:
        return [None if not col.line else n for col, n in zip(cols, natural, strict=True)], width
    widths: list[int | None] = [
        n if col.keep else None for col, n in zip(cols, natural, strict=True)
    ]
    budget = width - frame - sum(n for col, n in zip(cols, natural, strict=True) if col.keep)
    flexible = sorted(
        (n, i) for i, (col, n) in enumerate(zip(cols, natural, strict=True)) if not col.keep
    )
    for place, (n, i) in enumerate(flexible):
        share = budget // (len(flexible) - place)
        widths[i] = max(MIN_WIDTH, min(n, share))
        budget -= widths[i] or 0
    needed = frame + sum(w or 0 for w in widths)
    return widths, max(width, needed)


def _build(
    title: str | None, cols: list[Col], cells: list[list[Text]], widths: list[int | None]
) -> Table:
    from rich.table import Table

    tab = Table(title=title, title_justify="left", header_style="bold")
    for col, width in zip(cols, widths, strict=True):
        tab.add_column(
            col.header,
            width=width,
            no_wrap=col.keep or col.line,
            overflow="ellipsis" if col.line else "fold",
        )
    for row in cells:
        tab.add_row(*row)
    return tab
