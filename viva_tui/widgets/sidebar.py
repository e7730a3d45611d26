"""The sidebar: the five panes with their keys, what waits in each, and the member.

One :class:`Static` of clickable lines (no list widget): it is on the first frame, so
it is kept as light as possible.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import Static

PANES = (
    ("members", "Members"),
    ("triage", "Triage"),
    ("timeline", "Timeline"),
    ("skills", "Skills"),
    ("principles", "Principles"),
)
BADGE_STYLE = {"triage": "bold $triage-pending", "principles": "bold $approval-needed"}


class Sidebar(Static):
    """Pane list (click or press its key), badges for waiting work, the current member."""

    def __init__(self, keys: dict[str, str]) -> None:
        super().__init__(id="sidebar")
        self._keys = keys
        self._badges: dict[str, str] = {}
        self._active = "members"
        self._member = ""

    def on_mount(self) -> None:
        self._draw()

    def _draw(self) -> None:
        lines = [Content.styled("Viva\n\n", "bold $primary")]
        for pane, title in PANES:
            key = self._keys.get(pane, " ")
            style = "bold reverse" if pane == self._active else ""
            line = Content.assemble((f" {key} ", "$text-muted"), (f"{title:<11}", style))
            badge = self._badges.get(pane)
            if badge:
                line = line + Content.styled(f" {badge}", BADGE_STYLE.get(pane, "bold"))
            lines.append(line.stylize(f"@click=screen.show_pane('{pane}')") + Content("\n"))
        if self._member:
            lines.append(Content.assemble(("\nmember\n", "$text-muted"), (self._member, "bold")))
        self.update(Content("").join(lines))

    def set_badge(self, pane: str, badge: str) -> None:
        """Show ``badge`` (e.g. a count) beside ``pane``; empty hides it."""
        if self._badges.get(pane) != badge:
            self._badges[pane] = badge
            self._draw()

    def set_active(self, pane: str) -> None:
        """Highlight the pane on screen."""
        self._active = pane
        self._draw()

    def set_member(self, name: str) -> None:
        """Name the member the Timeline and Skills panes show."""
        self._member = name
        self._draw()
