"""The decay plot's axis: sessions on the session track, calendar dates on the time track."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta

from textual.app import App, ComposeResult

from viva_store.skills.curve import Curve
from viva_tui.widgets.decay_plot import DecayPlot, date_ticks

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _day(at: datetime) -> float:
    return (at - datetime(1970, 1, 1, tzinfo=UTC)).total_seconds() / 86400


def _curve(track: str, start: float, stop: float) -> Curve:
    return Curve(
        track=track,  # type: ignore[arg-type]
        points=[(start, 1.0), (stop, 0.7)],
        marks=[(start, "enter", 1.0)],
        projection=[(stop, 0.7), (stop + 30, 0.4)],
        weight_now=0.7,
        crosses_at=None,
        forget_due_at=None,
        protected_until_pos=None,
    )


class _PlotApp(App[None]):
    def compose(self) -> ComposeResult:
        yield DecayPlot()


def _drawn(curve: Curve) -> str:
    """The plot as plotext draws it in a 100×30 app, without colours."""

    async def main() -> str:
        app = _PlotApp()
        async with app.run_test(size=(100, 30)) as pilot:
            app.query_one(DecayPlot).show_curve(curve, "a skill")
            await pilot.pause()
            return ANSI.sub("", app.query_one(DecayPlot).plt.build())

    return asyncio.run(main())


def test_ticks_are_dates_spanning_the_range() -> None:
    start = _day(datetime(2026, 10, 22, tzinfo=UTC))
    ticks = date_ticks(start, start + 52)
    assert [label for _, label in ticks] == ["Oct 22", "Nov 04", "Nov 17", "Nov 30", "Dec 13"]
    across = date_ticks(
        _day(datetime(2026, 12, 20, tzinfo=UTC)), _day(datetime(2027, 1, 20, tzinfo=UTC))
    )
    assert across[0][1] == "2026-12-20" and across[-1][1] == "2027-01-20"


def test_the_time_track_axis_reads_as_dates_not_day_numbers() -> None:
    start = _day(datetime(2026, 10, 22, 12, tzinfo=UTC))
    text = _drawn(_curve("time", start, start + 20))
    assert "Oct 22" in text and "date" in text
    assert not re.search(r"\b2\d{4}(\.\d)?\b", text), "no day-since-1970 numbers on the axis"
    first = (datetime(1970, 1, 1, tzinfo=UTC) + timedelta(days=start)).date()
    assert first.isoformat() == "2026-10-22"


def test_the_session_track_axis_counts_sessions() -> None:
    text = _drawn(_curve("session", 0, 12))
    assert "sessions (this member's)" in text and "Oct" not in text
