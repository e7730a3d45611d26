"""The sidebar: the five panes with their keys, what waits in each, and the member.

One widget that renders clickable lines (no list widget): it is on the first frame, so
it is kept as light as possible. It repaints itself when what it shows changes.
"""

from __future__ import annotations

from textual.content import Content
from textual.reactive import reactive
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

    active: reactive[str] = reactive("members")
    """The pane on screen (highlighted)."""
    member: reactive[str] = reactive("")
    """The member the Timeline and Skills panes show."""
    badges: reactive[dict[str, str]] = reactive(dict)
    """What waits in a pane (e.g. a count), by pane id."""

    def __init__(self, keys: dict[str, str]) -> None:
        super().__init__(id="sidebar")
        self._keys = keys

    def render(self) -> Content:
        lines = [Content.styled("Viva\n\n", "bold $primary")]
        for pane, title in PANES:
            key = self._keys.get(pane, " ")
            style = "bold reverse" if pane == self.active else ""
            line = Content.assemble((f" {key} ", "$text-muted"), (f"{title:<11}", style))
            badge = self.badges.get(pane)
            if badge:
                line = line + Content.styled(f" {badge}", BADGE_STYLE.get(pane, "bold"))
            lines.append(line.stylize(f"@click=screen.show_pane('{pane}')") + Content("\n"))
        if self.member:
            lines.append(Content.assemble(("\nmember\n", "$text-muted"), (self.member, "bold")))
        return Content("").join(lines)

    def set_badge(self, pane: str, badge: str) -> None:
        """Show ``badge`` beside ``pane``; empty hides it."""
        self.badges = {**self.badges, pane: badge}
