"""What every dialog shares: a centred box over a dimmed screen.

The styles live here (not in the app's stylesheet) so they are parsed only when a
dialog is first opened, never before the first frame.
"""

from __future__ import annotations

from typing import TypeVar

from textual.screen import ModalScreen

R = TypeVar("R")


class Dialog(ModalScreen[R]):
    """A modal dialog; subclasses compose a ``.dialog-box``."""

    # A short terminal (24 rows): the text box shrinks so the buttons below it stay in view.
    VERTICAL_BREAKPOINTS = [(0, "-short"), (30, "-tall")]  # noqa: RUF012

    DEFAULT_CSS = """
    Dialog {
        align: center middle;
        background: $background 60%;
    }
    Dialog .dialog-box {
        width: 72;
        max-width: 90%;
        height: auto;
        max-height: 90%;
        padding: 1 2;
        border: round $primary;
        background: $surface;
    }
    Dialog .dialog-box.wide { width: 96; }
    Dialog .dialog-box.tall { width: 100; height: 90%; }
    Dialog .dialog-box.full { width: 95%; height: 95%; }
    Dialog .dialog-title { margin-bottom: 1; }
    Dialog .dialog-detail { margin-bottom: 1; color: $text-muted; }
    Dialog .dialog-hint { color: $text-muted; margin-top: 1; }
    Dialog .dialog-buttons { height: auto; align-horizontal: right; margin-top: 1; }
    Dialog .dialog-buttons Button { margin-left: 2; }
    Dialog .dialog-box TextArea { height: 8; }
    Dialog.-short .dialog-box TextArea { height: 4; }
    Dialog .dialog-box OptionList { height: auto; max-height: 20; }
    Dialog .problem { color: $error; height: auto; }
    """
