"""The weekly report, week by week (the report service renders it as Markdown)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, timedelta
from typing import ClassVar

from textual.binding import Binding, BindingType
from textual.message import Message

from viva_tui.dialogs.document import DocumentDialog


def shift_week(week: str, weeks: int) -> str:
    """``YYYY-Www`` moved by ``weeks`` (ISO weeks: 2026-W01 minus one is 2025-W52)."""
    year, number = week.split("-W")
    monday = date.fromisocalendar(int(year), int(number), 1) + timedelta(weeks=weeks)
    iso = monday.isocalendar()
    return f"{iso.year}-W{iso.week:02d}"


class ReportDialog(DocumentDialog):
    """One week's report; ← and → (or p and n) move between weeks."""

    BINDINGS: ClassVar[list[BindingType]] = [
        *DocumentDialog.BINDINGS,
        Binding("left,p", "week(-1)", "Previous week", id="report.previous", tooltip="A week back"),
        Binding("right,n", "week(1)", "Next week", id="report.next", tooltip="A week on"),
    ]
    HINT = "← previous week · → next week · esc closes"

    @dataclass(eq=False, repr=False)
    class WeekRequested(Message):
        """Show the report of ``week`` in this dialog."""

        week: str

    def __init__(self, week: str, markdown: str) -> None:
        super().__init__(f"Weekly report — {week}", markdown)
        self.week = week

    def show_week(self, week: str, markdown: str) -> None:
        """Show ``week``'s report."""
        self.week = week
        self.show(f"Weekly report — {week}", markdown)

    def action_week(self, step: int) -> None:
        # The main screen under the dialog loads it (dialogs do not call the store).
        self.app.screen_stack[0].post_message(self.WeekRequested(shift_week(self.week, step)))
