"""The sidebar: the five panes with their keys, what waits in each, and the member."""

from __future__ import annotations

from dataclasses import dataclass

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

PANES = (
    ("members", "Members"),
    ("triage", "Triage"),
    ("timeline", "Timeline"),
    ("skills", "Skills"),
    ("principles", "Principles"),
)
BADGE_STYLE = {"triage": "bold $triage-pending", "principles": "bold $approval-needed"}


class Sidebar(Vertical):
    """Pane list (click or press its key), badges for waiting work, the current member."""

    @dataclass
    class PaneClicked(Message):
        """The owner clicked a pane in the sidebar."""

        pane: str

    def __init__(self, keys: dict[str, str]) -> None:
        super().__init__(id="sidebar")
        self._keys = keys
        self._badges: dict[str, str] = {}

    def compose(self) -> ComposeResult:
        yield Static("Viva", id="brand")
        options = OptionList(*[self._option(pid, title) for pid, title in PANES], id="pane-list")
        options.can_focus = False
        yield options
        yield Static("", id="sidebar-member")

    def _option(self, pane: str, title: str) -> Option:
        key = self._keys.get(pane, "")
        prompt = Content.assemble((f"{key} ", "$text-muted"), title)
        badge = self._badges.get(pane)
        if badge:
            prompt = prompt + Content.styled(f" {badge}", BADGE_STYLE.get(pane, "bold"))
        return Option(prompt, id=pane)

    def set_badge(self, pane: str, badge: str) -> None:
        """Show ``badge`` (e.g. a count) beside ``pane``; empty hides it."""
        if self._badges.get(pane) == badge:
            return
        self._badges[pane] = badge
        options = self.query_one(OptionList)
        title = dict(PANES)[pane]
        options.replace_option_prompt(pane, self._option(pane, title).prompt)

    def set_active(self, pane: str) -> None:
        """Highlight the pane on screen."""
        options = self.query_one(OptionList)
        options.highlighted = options.get_option_index(pane)

    def set_member(self, name: str) -> None:
        """Name the member the Timeline and Skills panes show."""
        self.query_one("#sidebar-member", Static).update(
            Content.assemble(("member\n", "$text-muted"), (name, "bold"))
        )

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option.id:
            self.post_message(self.PaneClicked(event.option.id))
