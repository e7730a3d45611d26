"""The Viva app: it is handed how to reach its store and shows its screen at once.

Like harlequin, the app receives its backend in the constructor (a connected
:class:`Context`, or a function that opens one) and connects in a thread worker after
the first frame, so the screen appears before SQLAlchemy is even imported. Like
posting, its themes are validated data files and its keys are remappable by binding
id. Errors from background work all reach :meth:`show_error`.
"""

from __future__ import annotations

import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any, ClassVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.message import Message
from textual.screen import Screen
from textual.theme import Theme
from textual.worker import Worker, WorkerState

from viva_store.config import Config
from viva_store.errors import VivaError
from viva_tui import keys, started, themes
from viva_tui.screens.main import MainScreen

if TYPE_CHECKING:
    from viva_store.store import Context
    from viva_tui.screens.backend import Backend

HERE = Path(__file__).resolve().parent
OPEN = "store:open"


@dataclass
class StoreOpened(Message, bubble=False):
    """The store is open."""

    backend: Backend


class VivaApp(App[None]):
    """The owner's app: members, triage, timeline, skills, principles."""

    CSS_PATH: ClassVar[list[str | PurePath]] = [HERE / "global.tcss", HERE / "app.tcss"]
    TITLE = "Viva"

    def __init__(
        self, connect: Context | Callable[[], Context], *, config: Config | None = None
    ) -> None:
        super().__init__()
        if callable(connect):
            if config is None:
                raise TypeError("give the config when the store is opened later")
            self._connect: Callable[[], Context] = connect
        else:
            ctx = connect
            self._connect = lambda: ctx
            config = config or ctx.store.config
        self.config = config
        self.home = config.home
        self.prefs = themes.read_prefs(config.state_dir)
        self.keymap: dict[str, str] = {}
        self._startup_problems: list[str] = []
        self._load_keymap()
        self._theme_errors = self._load_themes()

    def _load_keymap(self) -> None:
        try:
            section = self.config.section("keys")
        except VivaError as exc:
            self._startup_problems.append(str(exc))
            return
        self.keymap, errors = keys.load_keymap(section)
        self._startup_problems.extend(errors)

    def get_theme_variable_defaults(self) -> dict[str, str]:
        return dict(themes.SEMANTIC_DEFAULTS)

    def get_default_screen(self) -> Screen[Any]:
        member = self.prefs.get("member")
        return MainScreen(member if isinstance(member, str) else None)

    def _load_themes(self) -> list[str]:
        """Register the theme files and choose the saved (or default) theme.

        Done in the constructor, before the stylesheet is first parsed: choosing a theme
        later would parse every style twice before the first frame.
        """
        loaded = themes.load_themes(
            themes.theme_dirs(self.config.config_dir), self.config.cache_dir / themes.CACHE_FILE
        )
        for theme in loaded.themes:
            self.register_theme(theme)
        # The palette lists these by name; Textual's own "Theme" command lists them all.
        self.file_themes = sorted(t.name for t in loaded.themes)
        wanted = self.prefs.get("theme")
        if isinstance(wanted, str) and wanted in self.available_themes:
            self.theme = wanted
        elif themes.DEFAULT_THEME in self.available_themes:
            self.theme = themes.DEFAULT_THEME
        return loaded.errors

    def on_mount(self) -> None:
        if self._theme_errors:
            self.notify(
                "\n".join(self._theme_errors),
                title="Themes not loaded",
                severity="warning",
                timeout=15,
            )
        if self.keymap:
            self.set_keymap(self.keymap)
        if self._startup_problems:
            problems = "\n".join(self._startup_problems)
            self.notify(problems, title="config.toml", severity="warning", timeout=15)
        self.theme_changed_signal.subscribe(self, self._theme_changed)

    def on_ready(self) -> None:
        """The first frame is on screen: now open the store (imports and all)."""
        self.open_store()

    @work(thread=True, group=OPEN, exit_on_error=False)
    def open_store(self) -> None:
        """Connect in a thread; the screen's waiting requests start once it is open."""
        from viva_tui.screens.backend import Backend

        self.post_message(StoreOpened(Backend(self._connect())))

    def on_store_opened(self, message: StoreOpened) -> None:
        screen = self.screen_stack[0] if self.screen_stack else None
        if isinstance(screen, MainScreen):
            screen.store_opened(message.backend)

    @on(Worker.StateChanged)
    def _store_not_opened(self, event: Worker.StateChanged) -> None:
        """The app's own worker (the screen's workers report to the screen's handler)."""
        if event.worker.group == OPEN and event.state == WorkerState.ERROR and event.worker.error:
            from viva_tui.screens.unavailable import StoreUnavailable

            error = event.worker.error
            if not isinstance(error, VivaError):
                self.log.error("".join(traceback.format_exception(error)))
            reason = (
                str(error) if isinstance(error, VivaError) else f"{type(error).__name__}: {error}"
            )
            self.push_screen(StoreUnavailable(reason))

    def _theme_changed(self, theme: Theme) -> None:
        self.remember(theme=theme.name)

    def remember(self, **prefs: Any) -> None:
        """Persist UI choices (theme, member) in ``ui.json`` of the state dir."""
        self.prefs.update(prefs)
        try:
            themes.write_prefs(self.config.state_dir, prefs)
        except OSError as exc:
            self.notify(f"cannot save UI preferences: {exc}", severity="warning")

    def show_error(self, error: BaseException, during: str = "") -> None:
        """The one place errors of background work are shown (never swallowed)."""
        if isinstance(error, VivaError):
            message = str(error)
        else:
            message = f"internal error: {type(error).__name__}: {error}"
            self.log.error("".join(traceback.format_exception(error)))
        self._log_failure(error, during)
        title = f"Failed: {during}" if during else "Failed"
        self.notify(message, title=title, severity="error", timeout=10)

    def _log_failure(self, error: BaseException, during: str) -> None:
        """Background failures go to Viva's log (an unexpected one with its traceback)."""
        from viva_store.logs.service import get_logger, keep_off_screen

        keep_off_screen()
        try:
            log = get_logger(self.config, "app")
        except VivaError:
            return  # a bad VIVA_LOG_LEVEL: the failure is on screen already
        what = f"failed: {during}" if during else "failed"
        if isinstance(error, VivaError):
            log.warning("%s: %s", what, error)
        else:
            log.error("%s", what, exc_info=error)

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
            "Search every session",
            "Recall over every session, unattributed ones too, with filters",
            screen.action_search_everything,
        )
        yield SystemCommand(
            "Show usage",
            "Tokens by day, and by project or model",
            screen.action_usage,
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
                partial(screen.choose_member, member.name),
            )
        for name in self.file_themes:
            yield SystemCommand(
                f"Switch theme: {name}",
                "Saved for next time",
                partial(setattr, self, "theme", name),
            )


def run_app(config: Config, connect: Callable[[], Context]) -> None:
    """Open the app; ``connect`` opens the store once the first frame is shown.

    When it closes the process ends at once: tearing down the interpreter (its threads,
    the pool, every cached record) took seconds after the screen was gone. The store
    needs no goodbye: each write was its own committed transaction.
    """
    import os
    import sys

    from viva_store.logs.service import keep_off_screen

    keep_off_screen()  # the app owns the terminal: --verbose prints nothing onto it
    app = VivaApp(connect, config=config)
    started()
    app.run()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(app.return_code or 0)


def owner_context() -> Context:
    """The owner's context on the store the environment names (as the CLI opens it)."""
    from viva_tui.commands.common import context

    return context()


def main() -> None:
    """Open the app on the environment's store without loading the whole CLI first."""
    import os
    import sys

    from viva_store.config import load_config

    if os.environ.get("VIVA_GRANT"):
        sys.stderr.write("viva: the app is the owner's; unset VIVA_GRANT\n")
        sys.exit(1)
    run_app(load_config(), owner_context)
