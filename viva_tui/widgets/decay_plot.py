"""A skill's decay curve drawn with textual-plotext, in the theme's semantic colours.

The history, the projected decay, the forgetting threshold, where the skill would be
forgotten and each use are drawn from a :class:`viva_store.skills.curve.Curve`; every
colour is a theme variable (``$decay-curve``, ``$decay-projection``,
``$decay-threshold``, ``$decay-forget``, ``$decay-use``), re-read when the theme changes.
"""

from __future__ import annotations

from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme
from textual_plotext import PlotextPlot

from viva_tui.themes import SEMANTIC_DEFAULTS

ENTER_KINDS = ("enter", "added", "synced", "reclaimed")


def theme_rgb(variables: dict[str, str], name: str) -> tuple[int, int, int]:
    """A semantic colour of the current theme as plotext's RGB triple."""
    value = variables.get(name) or SEMANTIC_DEFAULTS[name]
    try:
        return Color.parse(value).rgb
    except ColorParseError:  # a CSS value such as "auto 90%": fall back
        return Color.parse(SEMANTIC_DEFAULTS[name]).rgb


def date_ticks(lo: float, hi: float, count: int = 5) -> list[tuple[float, str]]:
    """Up to ``count`` evenly spaced ticks between two day positions of the time track,
    labelled with their calendar dates (the axis counts days since 1970; people read
    dates). The year appears when the span crosses one."""
    from viva_store.skills.service import instant_of_day

    if hi <= lo:
        return [(lo, instant_of_day(lo).strftime("%Y-%m-%d"))]
    days = [lo + (hi - lo) * i / (count - 1) for i in range(count)]
    instants = [instant_of_day(day) for day in days]
    form = "%b %d" if instants[0].year == instants[-1].year else "%Y-%m-%d"
    return [(day, at.strftime(form)) for day, at in zip(days, instants, strict=True)]


class DecayPlot(PlotextPlot):
    """Plots one skill's curve; :meth:`show_curve` replaces it, None clears it."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._curve: Any = None
        self._title = ""
        self._threshold = 0.1

    def on_mount(self) -> None:
        super().on_mount()
        self.app.theme_changed_signal.subscribe(self, self._theme_changed)
        self._draw()

    def _theme_changed(self, theme: Theme) -> None:
        self._draw()

    def show_curve(self, curve: Any, title: str, threshold: float = 0.1) -> None:
        """Draw ``curve`` (a ``Curve``) under ``title``; ``None`` shows an empty frame."""
        self._curve, self._title, self._threshold = curve, title, threshold
        self._draw()

    def _draw(self) -> None:
        plt = self.plt
        plt.clear_data()
        plt.clear_figure()
        variables = self.app.theme_variables
        curve = self._curve
        plt.title(self._title)
        if curve is None:
            self.refresh()
            return
        axis = "sessions (this member's)" if curve.track == "session" else "date"
        plt.xlabel(axis)
        plt.ylabel("weight")
        if curve.points:
            xs, ys = zip(*curve.points, strict=True)
            plt.plot(
                list(xs),
                list(ys),
                color=theme_rgb(variables, "decay-curve"),
                label="weight",
                marker="braille",
            )
        if len(curve.projection) > 1:
            px, py = zip(*curve.projection, strict=True)
            plt.plot(
                list(px),
                list(py),
                color=theme_rgb(variables, "decay-projection"),
                label="projected, no further use",
                marker="dot",
            )
        plt.hline(self._threshold, color=theme_rgb(variables, "decay-threshold"))
        due = curve.forget_due_at
        if due is not None:
            plt.vline(due, color=theme_rgb(variables, "decay-forget"))
        uses = [(a, self._weight_at(a)) for a, kind, _ in curve.marks if kind == "use"]
        if uses:
            ux, uy = zip(*uses, strict=True)
            plt.scatter(
                list(ux),
                list(uy),
                color=theme_rgb(variables, "decay-use"),
                marker="●",
                label="uses",
            )
        top = max([w for _, w in curve.points] + [w for _, w in curve.projection] + [1.0])
        plt.ylim(0, top * 1.05)
        xs_all = [a for a, _ in curve.points] + [a for a, _ in curve.projection]
        if due is not None:
            xs_all.append(due)
        if xs_all:
            lo, hi = min(xs_all), max(xs_all)
            hi += max((hi - lo) * 0.04, 1.0)  # the forget line off the frame
            plt.xlim(lo, hi)
            if curve.track == "time":
                ticks = date_ticks(lo, hi)
                plt.xticks([day for day, _ in ticks], [label for _, label in ticks])
        self.refresh()

    def _weight_at(self, a: float) -> float:
        """The plotted weight at ``a`` (the first history point at or after it)."""
        for x, w in self._curve.points:
            if x >= a:
                return float(w)
        return float(self._curve.weight_now)
