"""Choose the member a session belongs to (or nobody)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.content import Content
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from viva_store.records import MemberRecord
from viva_tui.dialogs.base import Dialog

NOBODY = "\0nobody"


class MemberPicker(Dialog[str | None]):
    """A list of members (with their triage keys); dismisses with a name, NOBODY or None."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="picker.cancel", tooltip="Assign nothing"),
    ]

    def __init__(
        self,
        title: str,
        members: Sequence[MemberRecord],
        keys: Mapping[str, str],
        *,
        allow_nobody: bool = True,
    ) -> None:
        super().__init__(classes="dialog")
        self.title_text = title
        self.members = list(members)
        self.keys = dict(keys)
        self.allow_nobody = allow_nobody

    def compose(self) -> ComposeResult:
        options = [
            Option(
                Content.assemble(
                    (f"{self.keys.get(m.name, ' ')}  ", "$text-muted"),
                    (m.display_name, "bold"),
                    (f"  {m.role}", "$text-muted"),
                ),
                id=m.name,
            )
            for m in self.members
        ]
        if self.allow_nobody:
            options.append(
                Option(
                    Content.styled("   nobody's (recovered, belongs to no member)", "italic"),
                    id=NOBODY,
                )
            )
        with Vertical(classes="dialog-box"):
            yield Static(Content.styled(self.title_text, "bold"), classes="dialog-title")
            yield OptionList(*options, id="picker-list")
            yield Static(
                Content.styled("enter chooses · esc cancels", "$text-muted"), classes="dialog-hint"
            )

    def on_mount(self) -> None:
        self.query_one(OptionList).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
