"""The Viva app: it receives its store (a :class:`Context`) and opens the main screen.

Like harlequin, the app is handed its backend in the constructor and never opens a
store itself; like posting, its themes are validated data files and its keys are
remappable by binding id. Errors from background work all reach :meth:`show_error`.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterable
from pathlib import Path, PurePath
from typing import Any, ClassVar

from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.theme import Theme

from viva_store.errors import VivaError
from viva_store.store import Context
from viva_tui import keys, themes
from viva_tui.screens.backend import Backend
from viva_tui.screens.main import MainScreen


class VivaApp(App[None]):
    """The owner's app: members, triage, timeline, skills, principles."""

    CSS_PATH: ClassVar[list[str | PurePath]] = ["global.tcss", "app.tcss"]
    TITLE = "Viva"
    ENABLE_COMMAND_PALETTE = True

    def __init__(self, ctx: Context, *, home: Path | None = None) -> None:
        super().__init__()
        self.ctx = ctx
        self.backend = Backend(ctx)
        self.home = home or ctx.store.config.home
        self.prefs = themes.read_prefs(self.home)
        self.keymap: dict[str, str] = {}
        self._startup_problems: list[str] = []
        self._load_keymap()

    def _load_keymap(self) -> None:
        try:
            section = self.ctx.store.config.section("keys")
        except VivaError as exc:
            self._startup_problems.append(str(exc))
            return
        self.keymap, errors = keys.load_keymap(section)
        self._startup_problems.extend(errors)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(themes.SEMANTIC_DEFAULTS)

    def get_default_screen(self) -> Screen[Any]:
        member = self.prefs.get("member")
        return MainScreen(self.backend, member if isinstance(member, str) else None)

    def on_mount(self) -> None:
        loaded = themes.load_themes(themes.theme_dirs(self.home))
        for theme in loaded.themes:
            self.register_theme(theme)
        if loaded.errors:
            self.notify(
                "\n".join(loaded.errors),
                title="Themes not loaded",
                severity="warning",
                timeout=12,
            )
        wanted = self.prefs.get("theme")
        fallback = themes.DEFAULT_THEME if themes.DEFAULT_THEME in self.available_themes else None
        chosen = wanted if isinstance(wanted, str) and wanted in self.available_themes else None
        if chosen or fallback:
            self.theme = chosen or fallback or self.theme
        if self.keymap:
            self.set_keymap(self.keymap)
        if self._startup_problems:
            self.notify("\n".join(self._startup_problems), title="config.toml", severity="warning")
        self.theme_changed_signal.subscribe(self, self._theme_changed)

    def _theme_changed(self, theme: Theme) -> None:
        self.remember(theme=theme.name)

    def remember(self, **prefs: Any) -> None:
        """Persist UI choices (theme, member) in ``$VIVA_HOME/ui.json``."""
        self.prefs.update(prefs)
        try:
            themes.write_prefs(self.home, prefs)
        except OSError as exc:
            self.notify(f"cannot save UI preferences: {exc}", severity="warning")

    def show_error(self, error: BaseException, during: str = "") -> None:
        """The one place errors of background work are shown (never swallowed)."""
        if isinstance(error, VivaError):
            message = str(error)
        else:
            message = f"internal error: {type(error).__name__}: {error}"
            self.log.error("".join(traceback.format_exception(error)))
        title = f"Failed: {during}" if during else "Failed"
        self.notify(message, title=title, severity="error", timeout=10)

    # Command palette ---------------------------------------------------------------------

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        if not isinstance(screen, MainScreen):
            return
        yield SystemCommand(
            "Import sessions",
            "Recover new sessions from every harness",
            screen.action_import_sessions,
        )
        yield SystemCommand(
            "Open weekly report",
            "This week's principles, skills and triage",
            screen.action_weekly_report,
        )
        for member in screen.members:
            yield SystemCommand(
                f"Switch member: {member.display_name}",
                f"Timeline and Skills show {member.name} ({member.role})",
                lambda name=member.name: screen.choose_member(name),  # type: ignore[misc]
            )
        for name in sorted(self.available_themes):
            yield SystemCommand(
                f"Switch theme: {name}",
                "Saved for next time",
                lambda name=name: setattr(self, "theme", name),  # type: ignore[misc]
            )


def run_app(ctx: Context) -> None:
    """Open the app on ``ctx``'s store (``viva``, ``viva tui`` and ``viva demo`` call this)."""
    VivaApp(ctx).run()
