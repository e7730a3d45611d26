"""Themes as data: YAML files validated before they are registered (posting's way).

Shipped themes live in ``themes/`` (the source checkout, or ``viva_tui/_themes`` inside
a wheel); the user's own in ``themes/`` of the config dir, which may override a shipped one by
name. Textual's ``Theme()`` does not check colours, so every colour is parsed with
``Color.parse`` first; a file with any bad value is rejected whole, and every rejection
of a start-up is gathered into one message. The chosen theme persists in ``ui.json`` of
the state dir.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from textual.color import Color, ColorParseError
from textual.theme import Theme

DEFAULT_THEME = "viva-dark"
UI_FILE = "ui.json"
CACHE_FILE = ".theme-cache.json"
COLOUR_FIELDS = (
    "primary",
    "secondary",
    "accent",
    "warning",
    "error",
    "success",
    "foreground",
    "background",
    "surface",
    "panel",
    "boost",
)
SEMANTIC_DEFAULTS: dict[str, str] = {
    "triage-pending": "#F2B134",
    "approval-needed": "#E38CE0",
    "decay-curve": "#5FA8D3",
    "decay-projection": "#8A96A8",
    "decay-threshold": "#E0607E",
    "decay-use": "#6CC58A",
    "decay-forget": "#F2B134",
    "role-user": "#7FC8F8",
    "role-assistant": "#C9D1D9",
    "role-tool": "#8A96A8",
    "status-active": "#6CC58A",
    "status-native": "#5FA8D3",
    "status-protected": "#A9B8FF",
    "status-would-forget": "#F2B134",
    "status-forgotten": "#8A96A8",
    "diff-added": "#6CC58A",
    "diff-removed": "#E0607E",
    "search-hit": "#F2B134",
}
"""Every semantic variable the CSS and the plots use, with a fallback for themes (such
as Textual's built-in ones) that do not name it."""


class ThemeFileError(ValueError):
    """A theme file that cannot be registered; the message names every problem."""


@dataclass(slots=True)
class ThemeLoad:
    """The themes that passed validation and one line per rejected file."""

    themes: list[Theme] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def shipped_theme_dir() -> Path:
    """The themes shipped with Viva (inside the wheel, or the source checkout)."""
    package = Path(__file__).resolve().parent
    bundled = package / "_themes"
    return bundled if bundled.is_dir() else package.parent / "themes"


def theme_dirs(config_dir: Path) -> list[Path]:
    """Where themes are read from, in order (later files win on a name clash)."""
    return [shipped_theme_dir(), config_dir / "themes"]


def _colour(value: Any, where: str, problems: list[str]) -> str | None:
    if not isinstance(value, str):
        problems.append(f"{where}: {value!r} is not a colour")
        return None
    try:
        Color.parse(value)
    except ColorParseError:
        problems.append(f"{where}: {value!r} is not a colour")
        return None
    return value


def parse_theme(data: Any, source: str) -> Theme:
    """A :class:`Theme` from a theme file's mapping, or :class:`ThemeFileError`."""
    if not isinstance(data, Mapping):
        raise ThemeFileError(f"{source}: not a mapping of theme fields")
    problems: list[str] = []
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        problems.append("name is missing")
    if "primary" not in data:
        problems.append("primary is missing")
    known = {*COLOUR_FIELDS, "name", "dark", "variables", "luminosity_spread", "text_alpha"}
    problems.extend(f"unknown field {key!r}" for key in data if key not in known)
    colours = {
        key: _colour(data[key], key, problems) for key in COLOUR_FIELDS if data.get(key) is not None
    }
    variables: dict[str, str] = {}
    raw_vars = data.get("variables") or {}
    if not isinstance(raw_vars, Mapping):
        problems.append("variables must be a mapping")
        raw_vars = {}
    for key, value in raw_vars.items():
        checked = _colour(value, f"variables.{key}", problems)
        if checked is not None:
            variables[str(key)] = checked
    numbers: dict[str, float] = {}
    for key in ("luminosity_spread", "text_alpha"):
        if key in data:
            value = data[key]
            if isinstance(value, bool) or not isinstance(value, int | float):
                problems.append(f"{key}: {value!r} is not a number")
            else:
                numbers[key] = float(value)
    if not isinstance(data.get("dark", True), bool):
        problems.append("dark must be true or false")
    if problems:
        raise ThemeFileError(f"{source}: " + "; ".join(problems))
    return Theme(
        name=str(name),
        dark=bool(data.get("dark", True)),
        variables=variables,
        **{k: v for k, v in colours.items() if v is not None},  # type: ignore[arg-type]
        **numbers,  # type: ignore[arg-type]
    )


def _read_yaml(path: Path) -> Any:
    import yaml  # only when a theme file is new or changed (see load_themes)

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=loader)
    except yaml.YAMLError as exc:
        raise ThemeFileError(f"{path.name}: not valid YAML ({type(exc).__name__})") from exc


def load_themes(dirs: Iterable[Path], cache: Path | None = None) -> ThemeLoad:
    """Every ``*.yaml`` / ``*.yml`` theme in ``dirs``; bad files reported, not raised.

    ``cache`` (a JSON file) keeps each file's parsed mapping by path, size and mtime, so
    a start with unchanged themes reads no YAML; every theme is validated either way.
    """
    result = ThemeLoad()
    by_name: dict[str, Theme] = {}
    known: dict[str, Any] = {}
    if cache is not None:
        try:
            known = json.loads(cache.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            known = {}
    fresh: dict[str, Any] = {}
    for folder in dirs:
        if not folder.is_dir():
            continue
        for path in sorted([*folder.glob("*.yaml"), *folder.glob("*.yml")]):
            try:
                st = path.stat()
                stamp = [st.st_size, st.st_mtime_ns]
                entry = known.get(str(path))
                if isinstance(entry, dict) and entry.get("stamp") == stamp:
                    data = entry.get("data")
                else:
                    data = _read_yaml(path)
                fresh[str(path)] = {"stamp": stamp, "data": data}
                theme = parse_theme(data, path.name)
            except (OSError, UnicodeDecodeError) as exc:
                result.errors.append(f"{path.name}: cannot read ({type(exc).__name__})")
                continue
            except ThemeFileError as exc:
                result.errors.append(str(exc))
                continue
            by_name[theme.name] = theme
    if cache is not None and fresh != known:
        try:
            cache.parent.mkdir(parents=True, exist_ok=True)
            cache.write_text(json.dumps(fresh, default=str), encoding="utf-8")
        except OSError:
            pass  # a cache that cannot be written only costs the next start a YAML read
    result.themes = list(by_name.values())
    return result


def read_prefs(home: Path) -> dict[str, Any]:
    """The UI preferences in ``ui.json`` (empty when absent or unreadable)."""
    try:
        data = json.loads((home / UI_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_prefs(home: Path, updates: Mapping[str, Any]) -> None:
    """Merge ``updates`` into ``ui.json`` (written whole, then renamed into place)."""
    prefs = {**read_prefs(home), **updates}
    home.mkdir(parents=True, exist_ok=True)
    tmp = home / (UI_FILE + ".tmp")
    tmp.write_text(json.dumps(prefs, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, home / UI_FILE)
