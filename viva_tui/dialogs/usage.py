"""The Usage view: tokens by day as a bar chart, and a table by project or model.

Drawn from the usage service's reports (the screen under the dialog loads them); the bars
and the table's figures use the theme's colours, re-read when the theme changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.color import Color
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.theme import Theme
from textual.widgets import DataTable, Static
from textual_plotext import PlotextPlot

from viva_store.usage.service import UsageReport, UsageRow
from viva_tui.dialogs.base import Dialog
from viva_tui.views import CHART_DAYS, UsageData
from viva_tui.widgets.tables import leading_columns

TABLE_GROUPINGS = ("project", "model")
TICK_EVERY = 3
"""A date under every third bar (plotext's own choice of ticks varies from run to run)."""
COLUMNS = ("sessions", "input", "output", "cache read", "cache write", "reasoning", "cost")


def short(n: int) -> str:
    """A token count in a few characters: 950, 12.3k, 4.56M, 1.2B."""
    for size, unit in ((1_000_000_000, "B"), (1_000_000, "M"), (1_000, "k")):
        if n >= size:
            value = n / size
            return f"{value:.3g}{unit}"
    return str(n)


def cells(row: UsageRow) -> list[str]:
    t = row.tokens
    cost = "" if row.cost is None else f"{row.cost:,.2f}"
    counts = (t.input, t.output, t.cache_read, t.cache_write, t.reasoning)
    return [str(row.sessions), *(short(n) for n in counts), cost]


class UsagePlot(PlotextPlot):
    """Tokens per day (every kind, cache reads and writes included), one bar a day."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._report: UsageReport | None = None

    def on_mount(self) -> None:
        super().on_mount()
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._draw()

    def _theme_changed(self, theme: Theme) -> None:
        self._draw()

    def show(self, report: UsageReport) -> None:
        self._report = report
        self._draw()

    def _colour(self, name: str) -> tuple[int, int, int]:
        return Color.parse(self.app.theme_variables[name]).rgb

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        report = self._report
        if report is None or report.since is None:
            plt.title("tokens per day")
            self.refresh()
            return
        by_day = {r.key: r.tokens.total for r in report.rows}
        first = report.since.astimezone().date()
        days = [(first + timedelta(days=n)).isoformat() for n in range(CHART_DAYS)]
        totals = [by_day.get(d, 0) for d in days]
        scale, unit = next(
            ((s, u) for s, u in ((1e9, "billions"), (1e6, "millions"), (1e3, "thousands"))
             if max(totals) >= s),
            (1.0, "tokens"),
        )  # fmt: skip
        plt.title(f"tokens per day, cache included ({unit})")
        at = [float(n) for n in range(len(days))]
        plt.bar(at, [t / scale for t in totals], color=self._colour("primary"))
        plt.xticks(at[::TICK_EVERY], [d[5:] for d in days[::TICK_EVERY]])  # MM-DD
        plt.ylim(0, max(max(totals) / scale, 1e-9) * 1.05)
        self.refresh()


class UsageDialog(Dialog[None]):
    """Usage of every session; t switches the table between projects and models."""

    DEFAULT_CSS = """
    UsageDialog UsagePlot { height: 1fr; min-height: 12; }
    UsageDialog #usage-table { height: 1fr; min-height: 4; margin-top: 1; }
    UsageDialog #usage-total {
        height: 1; margin-top: 1; text-wrap: nowrap; text-overflow: ellipsis;
    }
    /* 24 rows: a smaller chart, so the table and the total stay in view. */
    UsageDialog.-short UsagePlot { min-height: 8; }
    UsageDialog.-short .dialog-title, UsageDialog.-short #usage-table { margin: 0; }
    UsageDialog.-short #usage-total, UsageDialog.-short .dialog-hint { margin-top: 0; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape,q", "dismiss", "Close", id="usage.close", tooltip="Back to the pane"),
        Binding("t", "switch", "Project/model", id="usage.switch", tooltip="Group the table"),
    ]

    @dataclass(eq=False, repr=False)
    class Requested(Message):
        """Load the usage with the table grouped ``by``."""

        by: str

    def __init__(self, data: UsageData) -> None:
        super().__init__(classes="dialog")
        self.data = data

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog-box full"):
            yield Static(Content.styled("Usage", "bold"), classes="dialog-title")
            yield UsagePlot(id="usage-plot")
            yield DataTable(id="usage-table", cursor_type="row", zebra_stripes=True)
            yield Static("", id="usage-total")
            yield Static(
                Content.styled("t groups by project or model · esc closes", "$text-muted"),
                classes="dialog-hint",
            )

    def on_mount(self) -> None:
        self.query_one(DataTable).focus()

    def on_resize(self) -> None:
        self.call_after_refresh(self.show, self.data)  # the table's width decides its columns

    def show(self, data: UsageData) -> None:
        """Draw ``data``: the chart of recent days and the table."""
        self.data = data
        self.query_one(UsagePlot).show(data.days)
        table = self.query_one(DataTable)
        table.clear(columns=True)
        rows = [[row.key, *cells(row)] for row in data.table.rows]
        labels = [data.table.by, *COLUMNS]
        widths = [max([len(label), *(len(r[n]) for r in rows)]) for n, label in enumerate(labels)]
        # A narrow box leaves the last columns out whole (the total below names them all).
        shown = leading_columns(
            list(zip(labels, labels, widths, strict=True)), table.scrollable_content_region.width
        )
        for label, _, width in shown:
            table.add_column(label, width=width)
        for r in rows:
            table.add_row(*r[: len(shown)], key=r[0])
        total = data.table.total
        figures = ", ".join(f"{c} {v}" for c, v in zip(COLUMNS, cells(total), strict=True) if v)
        self.query_one("#usage-total", Static).update(
            Content.assemble(("total: ", "bold"), (figures, "$text-muted"))
        )

    def action_switch(self) -> None:
        now = self.data.table.by
        by = (
            TABLE_GROUPINGS[(TABLE_GROUPINGS.index(now) + 1) % 2]
            if now in TABLE_GROUPINGS
            else "project"
        )
        self.app.screen_stack[0].post_message(self.Requested(by))

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(result)
