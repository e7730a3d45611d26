"""The sidebar: the six panes with their keys, what waits in each, and the member.

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
    ("knowledge", "Knowledge"),
)
WIDE_ENOUGH = 14
"""Below this width the sidebar shows only the pane keys and their badges."""
BADGE_STYLE = {
    "triage": "bold $triage-pending",
    "principles": "bold $approval-needed",
    "knowledge": "bold $approval-needed",
}


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
        compact = 0 < self.size.width < WIDE_ENOUGH  # a narrow terminal: keys and badges
        lines = [Content.styled("V\n\n" if compact else "Viva\n\n", "bold $primary")]
        for pane, title in PANES:
            key = self._keys.get(pane, " ")
            style = "bold reverse" if pane == self.active else ""
            if compact:
                line = Content.styled(f" {key} ", style or "$text-muted")
            else:
                line = Content.assemble((f" {key} ", "$text-muted"), (f"{title:<11}", style))
            badge = self.badges.get(pane)
            if badge:
                shown = badge if not compact or len(badge) < 4 else "+"
                line = line + Content.styled(f" {shown}", BADGE_STYLE.get(pane, "bold"))
            lines.append(line.stylize(f"@click=screen.show_pane('{pane}')") + Content("\n"))
        if self.member and not compact:
            lines.append(Content.assemble(("\nmember\n", "$text-muted"), (self.member, "bold")))
        return Content("").join(lines)

    def set_badge(self, pane: str, badge: str) -> None:
        """Show ``badge`` beside ``pane``; empty hides it."""
        self.badges = {**self.badges, pane: badge}
