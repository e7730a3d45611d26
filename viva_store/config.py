"""Where Viva keeps its files, and the parameters a user may change.

Each kind of file lives where the platform expects it (platformdirs): the database and
launch journals in the user data dir, ``config.toml`` and user themes in the config dir
(``VIVA_CONFIG`` names another file), UI preferences in the state dir, caches in the cache
dir, logs in the log dir. ``VIVA_HOME`` keeps all of them in one folder (logs in its
``logs/``), as tests and the demo use it. ``VIVA_DB_URL`` replaces the database. Numbers
such as the skill-weight half-lives live in ``config.toml`` sections; each service reads
its own section and applies the DESIGN defaults for anything missing.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from viva_store.errors import InvalidInput

CONFIG_FILE = "config.toml"
APP = "viva"
OLD_LAYOUT = {"config": CONFIG_FILE, "state": "ui.json", "cache": ".theme-cache.json"}
"""Files an earlier Viva kept in the data dir, by the folder they now belong in."""


def default_home() -> Path:
    """The platform's user data directory for Viva (platformdirs)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir(APP, appauthor=False))


def home_db_url(home: Path) -> str:
    """The URL of the SQLite store kept in ``home``."""
    return f"sqlite:///{home / 'viva.db'}"


@dataclass(frozen=True)
class Config:
    """Resolved locations and the parsed ``config.toml``.

    ``home`` is the data dir; a folder left ``None`` is ``home`` itself (one folder for
    everything, as ``VIVA_HOME`` asks)."""

    home: Path
    db_url: str
    raw: Mapping[str, Any] = field(default_factory=dict)
    config_dir_path: Path | None = None
    config_file_path: Path | None = None
    state_dir_path: Path | None = None
    cache_dir_path: Path | None = None
    log_dir_path: Path | None = None
    notices: tuple[str, ...] = ()
    """What loading did that the user should hear of (files moved from an old layout)."""

    @property
    def config_dir(self) -> Path:
        """Where ``config.toml`` and the user's themes live."""
        return self.config_dir_path or self.home

    @property
    def config_file(self) -> Path:
        return self.config_file_path or self.config_dir / CONFIG_FILE

    @property
    def state_dir(self) -> Path:
        return self.state_dir_path or self.home

    @property
    def cache_dir(self) -> Path:
        return self.cache_dir_path or self.home

    @property
    def log_dir(self) -> Path:
        return self.log_dir_path or self.home / "logs"

    def section(self, name: str) -> Mapping[str, Any]:
        """One table of ``config.toml`` (empty when absent)."""
        value = self.raw.get(name, {})
        if not isinstance(value, Mapping):
            raise InvalidInput(f"{self.config_file}: [{name}] must be a table")
        return value

    @property
    def is_sqlite(self) -> bool:
        return self.db_url.startswith("sqlite")

    @property
    def default_db_url(self) -> str:
        """The store the data dir holds when ``VIVA_DB_URL`` names none."""
        return home_db_url(self.home)


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Resolve the folders, ``VIVA_DB_URL`` and ``VIVA_CONFIG``, and read ``config.toml``.

    Without ``VIVA_HOME``, files an earlier Viva kept in the data dir are moved to their
    folders first (once: a file already at its new place is left alone)."""
    env = os.environ if env is None else env
    home_text = env.get("VIVA_HOME")
    chosen = env.get("VIVA_CONFIG")
    config_file = Path(chosen).expanduser() if chosen else None
    if home_text:
        home = Path(home_text).expanduser()
        dirs: dict[str, Path] = {}
    else:
        import platformdirs

        home = default_home()
        dirs = {
            "config": Path(platformdirs.user_config_dir(APP, appauthor=False)),
            "state": Path(platformdirs.user_state_dir(APP, appauthor=False)),
            "cache": Path(platformdirs.user_cache_dir(APP, appauthor=False)),
            "log": Path(platformdirs.user_log_dir(APP, appauthor=False)),
        }
    notices = _move_old_layout(home, dirs, keep_config=config_file is not None) if dirs else ()
    config = Config(
        home=home,
        db_url=env.get("VIVA_DB_URL") or home_db_url(home),
        config_dir_path=dirs.get("config"),
        config_file_path=config_file,
        state_dir_path=dirs.get("state"),
        cache_dir_path=dirs.get("cache"),
        log_dir_path=dirs.get("log"),
        notices=notices,
    )
    path = config.config_file
    if chosen and not path.is_file():
        raise InvalidInput(f"VIVA_CONFIG names {path}, which is not a file")
    if path.is_file():
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"{path}: not valid TOML ({exc})") from exc
        except OSError as exc:
            raise InvalidInput(f"{path}: cannot be read ({exc.strerror})") from exc
        config = replace(config, raw=raw)
    return config


def _move_old_layout(home: Path, dirs: Mapping[str, Path], keep_config: bool) -> tuple[str, ...]:
    """Move ``config.toml``, ``themes/``, ``ui.json`` and the theme cache out of the data
    dir into their folders; one notice per move. Nothing is moved when its folder is the
    data dir itself (macOS keeps config and data together) or the target exists."""
    if not home.is_dir():
        return ()
    moves = [(home / name, dirs[kind] / name) for kind, name in OLD_LAYOUT.items()]
    moves.append((home / "themes", dirs["config"] / "themes"))
    if keep_config:
        moves = [m for m in moves if m[0].name != CONFIG_FILE]
    notices = []
    for old, new in moves:
        if old == new or not (old.is_file() or old.is_dir()) or new.exists():
            continue
        try:
            new.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.replace(old, new)
        except OSError as exc:
            notices.append(f"could not move {old} to {new} ({exc.strerror}); it is left there")
            continue
        notices.append(f"moved {old} to {new} (where this platform keeps it)")
    return tuple(notices)


def ensure_home(config: Config) -> None:
    """Create the data dir (0700) and a commented ``config.toml`` on first use.

    A data dir that exists but cannot be written (a read-only mount) is left as it is: its
    store can still be read. A ``config.toml`` named by ``VIVA_CONFIG`` is never written."""
    if config.home.is_dir() and not os.access(config.home, os.W_OK):
        return
    config.home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = config.config_file
    if config.config_file_path is None and not path.exists():
        from viva_store.config_template import write_template

        try:
            write_template(path)
        except OSError:
            return  # an unwritable config dir: the defaults apply
