"""Viva's log: ``viva.log`` in the user log dir, rotated, every line redacted.

What is worth reading after the fact goes here: import runs and their problems, the
watcher's rounds, failures of the app's background work with their tracebacks. Nothing
is set up until something is logged (:func:`get_logger`; the modules that log import
this one when they do), so a command that logs nothing pays nothing for it.
``VIVA_LOG_LEVEL`` (DEBUG, INFO, WARNING, ERROR; default INFO) chooses what is kept;
``viva --verbose`` keeps DEBUG and also prints each record as one line on stderr (never
a traceback, and never inside the app).
"""

from __future__ import annotations

import logging
import os
import sys
import time
from pathlib import Path
from typing import Any

from viva_store.config import Config
from viva_store.errors import InvalidInput, redacted

LOG_FILE = "viva.log"
MAX_BYTES = 1 << 20
KEEP = 3
"""Rotated files kept beside ``viva.log`` (``viva.log.1`` … ``.3``)."""
LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")

_state: dict[str, Any] = {"verbose": False, "screen": True, "installed": None}


def set_verbose() -> None:
    """``viva --verbose``: keep DEBUG records and show each one on stderr."""
    _state["verbose"] = True


def keep_off_screen() -> None:
    """The app owns the terminal: no record is ever printed to it."""
    _state["screen"] = False


def log_file(config: Config) -> Path:
    return config.log_dir / LOG_FILE


def _level() -> str:
    if _state["verbose"]:
        return "DEBUG"
    chosen = os.environ.get("VIVA_LOG_LEVEL", "INFO").strip().upper() or "INFO"
    if chosen not in LEVELS:
        raise InvalidInput(f"VIVA_LOG_LEVEL must be one of {', '.join(LEVELS)}, not {chosen!r}")
    return chosen


def get_logger(config: Config, area: str) -> logging.Logger:
    """The logger of ``area`` (``viva.<area>``), writing to ``config``'s log dir."""
    root = logging.getLogger("viva")
    level = _level()
    wanted = (config.log_dir, _state["verbose"] and _state["screen"])
    if _state["installed"] != wanted:
        _install(root, log_file(config), on_screen=wanted[1])
        _state["installed"] = wanted
    root.setLevel(level)
    return logging.getLogger(f"viva.{area}")


def _install(root: logging.Logger, path: Path, on_screen: bool) -> None:
    from logging.handlers import RotatingFileHandler

    class PrivateFile(RotatingFileHandler):
        """Opened on the first record, in a 0700 folder, as a 0600 file."""

        def _open(self) -> Any:
            Path(self.baseFilename).parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd = os.open(self.baseFilename, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            return os.fdopen(fd, "a", encoding="utf-8")

    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    root.propagate = False  # never Python's last-resort print to stderr
    file = PrivateFile(path, maxBytes=MAX_BYTES, backupCount=KEEP, delay=True, encoding="utf-8")
    stamped = _Redacting("%(asctime)s %(levelname)s %(name)s: %(message)s", "%Y-%m-%dT%H:%M:%SZ")
    stamped.converter = time.gmtime
    file.setFormatter(stamped)
    root.addHandler(file)
    if on_screen:
        screen = logging.StreamHandler(sys.stderr)
        screen.setFormatter(_OneLine("viva: %(name)s: %(message)s"))
        root.addHandler(screen)


class _Redacting(logging.Formatter):
    """Every record redacted as a whole, traceback included."""

    def format(self, record: logging.LogRecord) -> str:
        return redacted(super().format(record))


class _OneLine(_Redacting):
    """One line: the message without its traceback (that stays in the file)."""

    def format(self, record: logging.LogRecord) -> str:
        saved = record.exc_info, record.exc_text, record.stack_info
        record.exc_info = record.exc_text = record.stack_info = None
        try:
            return " ".join(super().format(record).split())
        finally:
            record.exc_info, record.exc_text, record.stack_info = saved
