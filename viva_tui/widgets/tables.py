"""A row table whose Enter belongs to the pane (so the pane's remappable binding wins)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.coordinate import Coordinate
from textual.widgets import DataTable, OptionList
from textual.widgets.data_table import CellDoesNotExist
from textual.widgets.option_list import Option

Column = tuple[str, str, int]
"""A table column: key, label, width in cells."""
CELL_PADDING = 2
"""What a table draws around each column's cells (one space each side)."""


def leading_columns(columns: Sequence[Column], width: int) -> tuple[Column, ...]:
    """The leading ``columns`` that fit whole in ``width`` cells (the first one at least):
    a narrow table leaves the last columns out rather than cut one at its edge."""
    shown: list[Column] = []
    used = 0
    for column in columns:
        used += column[2] + CELL_PADDING
        if used > width and shown:
            break
        shown.append(column)
    return tuple(shown)


class RowTable(DataTable[object], inherit_bindings=False):
    """A row-cursor :class:`DataTable` without its own Enter binding, plus j/k."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *[b for b in DataTable.BINDINGS if isinstance(b, Binding) and b.key != "enter"],
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, *, id: str | None = None, zebra_stripes: bool = False) -> None:
        super().__init__(id=id, cursor_type="row", zebra_stripes=zebra_stripes)

    def add_fixed_columns(self, columns: Sequence[Column]) -> None:
        """``(key, label, width)`` columns: widths known up front, never measured late
        (the table otherwise sizes columns when idle, after the rows are drawn)."""
        for key, label, width in columns:
            self.add_column(label, key=key, width=width)

    def show_columns(self, columns: Sequence[Column]) -> bool:
        """Have exactly ``columns`` (its rows cleared when they change); whether they did."""
        if tuple((str(k.value), c.label.plain, c.width) for k, c in self.columns.items()) == (
            tuple(columns)
        ):
            return False
        self.clear(columns=True)
        self.add_fixed_columns(columns)
        return True

    def rows_added(self) -> None:
        """Have the new rows measured now: the table sizes its columns when idle, and a
        table that receives no further message would otherwise keep header-wide ones."""
        self.check_idle()

    @property
    def current_key(self) -> str | None:
        """The key of the row under the cursor (None when empty)."""
        if not self.row_count or self.cursor_row < 0:
            return None
        try:
            key = self.coordinate_to_cell_key(Coordinate(self.cursor_row, 0)).row_key.value
        except CellDoesNotExist:  # the cursor can sit past a row just removed
            return None
        return None if key is None else str(key)


class RowList(OptionList, inherit_bindings=False):
    """An :class:`OptionList` without its own Enter binding, plus j/k; one line a row.

    A row wider than the list ends with `…` instead of wrapping onto a second line, where
    it read as a row of its own (Knowledge's reasons at any width, Timeline's sessions
    and Principles' candidates at 80 columns).
    """

    DEFAULT_CSS = """
    RowList { text-wrap: nowrap; text-overflow: ellipsis; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        *[b for b in OptionList.BINDINGS if isinstance(b, Binding) and b.key != "enter"],
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def refill(self, options: Sequence[Option]) -> bool:
        """Show ``options`` instead, keeping the highlighted row when it is still there
        (else the first that can be chosen); False when none can be."""
        keep = self.highlighted_option.id if self.highlighted_option else None
        self.clear_options()
        self.add_options(options)
        ids = [o.id for o in options if o.id and not o.disabled]
        if ids:
            self.highlighted = self.get_option_index(keep if keep in ids else ids[0])
        return bool(ids)
