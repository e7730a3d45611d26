"""Which harnesses Viva reads, and where each one's files are.

Adding a harness means adding its sub-package (a ``reader.py`` whose ``READER``
satisfies :class:`~viva_store.importing.harness.reader.HarnessReader`) and its
reader module to :data:`READER_MODULES`. A root is resolved, first match wins, from: an
explicit override (``viva import --root H=PATH``), ``VIVA_<HARNESS>_ROOT``, the
``[roots]`` table of ``config.toml``, then the harness's own defaults (which
honour its own variables such as ``CLAUDE_CONFIG_DIR``).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from viva_store.errors import InvalidInput
from viva_store.importing.harness.model import Problem, SourceFile
from viva_store.importing.harness.reader import HarnessReader

_HARNESS = "viva_store.importing.harness"
READER_MODULES: dict[str, str] = {
    "claude-code": f"{_HARNESS}.claude_code.reader",
    "codex": f"{_HARNESS}.codex.reader",
    "pi": f"{_HARNESS}.pi.reader",
    "gemini": f"{_HARNESS}.gemini.reader",
    "opencode": f"{_HARNESS}.opencode.reader",
    "hermes": f"{_HARNESS}.hermes.reader",
}
"""Every harness Viva reads, by name, in the order they are imported and listed, with
the module whose ``READER`` reads it (imported when first needed: a run loads the
readers of the harnesses it walks, not all of them)."""

# Days after which a harness deletes its own transcripts by default (HARNESSES.md).
RETENTION_DAYS: dict[str, int] = {"claude-code": 30, "gemini": 30}


def names() -> list[str]:
    """Every harness Viva knows."""
    return list(READER_MODULES)


def env_var(harness: str) -> str:
    """``VIVA_CLAUDE_CODE_ROOT`` for ``claude-code``."""
    return "VIVA_" + harness.upper().replace("-", "_") + "_ROOT"


def check(harness: str) -> str:
    """``harness`` if Viva knows it, else a clear error."""
    if harness not in READER_MODULES:
        known = ", ".join(READER_MODULES)
        raise InvalidInput(f"unknown harness {harness!r} (known: {known})")
    return harness


def reader(harness: str) -> HarnessReader:
    """The reader of ``harness``."""
    found: HarnessReader = importlib.import_module(READER_MODULES[check(harness)]).READER
    return found


@dataclass(frozen=True, slots=True)
class Root:
    """One place a harness's files are looked for, and why it was chosen."""

    harness: str
    path: Path
    origin: str  # override | env | config | default


def roots(
    harness: str,
    overrides: Mapping[str, str] | None = None,
    config_roots: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    home: Path | None = None,
) -> list[Root]:
    """Where ``harness`` keeps its files (several paths may be given with ``os.pathsep``)."""
    env = os.environ if env is None else env
    home = home or Path(env.get("HOME") or Path.home())

    def split(text: str, origin: str) -> list[Root]:
        return [
            Root(harness, Path(part).expanduser(), origin)
            for part in text.split(os.pathsep)
            if part.strip()
        ]

    if overrides and harness in overrides:
        return split(overrides[harness], "override")
    if env.get(env_var(harness)):
        return split(env[env_var(harness)], "env")
    if config_roots and harness in config_roots:
        value = config_roots[harness]
        if not isinstance(value, str):
            raise InvalidInput(f"config.toml [roots] {harness} must be a path string")
        return split(value, "config")
    defaults = reader(harness).default_roots(env, home)
    return [Root(harness, path, "default") for path in defaults]


def default_layout(harness: str) -> str:
    """Where ``harness`` keeps its files by default, for messages (``~/...``)."""
    paths = reader(harness).default_roots({}, Path("~"))
    return " or ".join(str(p) for p in paths)


def discover(root: Root, problems: list[Problem] | None = None) -> Iterator[SourceFile]:
    """The files under ``root`` its reader can read (a missing root yields nothing);
    what the walk could not look at goes to ``problems``."""
    if not root.path.exists():
        return iter(())
    return reader(root.harness).discover(root.path, problems)


def parse_overrides(values: list[str]) -> dict[str, str]:
    """``["claude-code=/x", ...]`` from ``--root H=PATH`` options."""
    out: dict[str, str] = {}
    for value in values:
        harness, sep, path = value.partition("=")
        if not sep or not path:
            raise InvalidInput(f"--root {value!r}: use HARNESS=PATH, e.g. codex=~/.codex")
        out[check(harness.strip())] = path.strip()
    return out
