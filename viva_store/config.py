"""Where Viva keeps its data, and the parameters a user may change.

``VIVA_HOME`` (default: the platform's user data directory) holds the
database, ``config.toml``, user themes and UI preferences. ``VIVA_DB_URL``
replaces the database. Numbers such as the skill-weight half-lives live in
``config.toml`` sections; each service reads its own section and applies the
DESIGN defaults for anything missing.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from viva_store.errors import InvalidInput

CONFIG_FILE = "config.toml"

CONFIG_TEMPLATE = """\
# Viva configuration. Every value below is a default; uncomment to change it.

# [skills]
# half_life_sessions = 30.0   # session track
# half_life_days = 60.0       # time track
# forget_below = 0.1
# idle_sessions = 20
# idle_days = 60
# capacity = 30
# protect_sessions = 10
# trial_days = 30
# projection_limit = 10

# [triage]
# match_window_seconds = 120  # execution record vs. session start
# suggest_min_confidence = 0.6

# [recall]
# half_life_days = 30.0
# weight_relevance = 1.0
# weight_recency = 0.5
# weight_importance = 0.3

# [knowledge]                 # the owner's review queue, the task brief
# unused_days = 60            # admitted and unused this long: up for review
# unverified_days = 30        # never used, confidence below min_confidence: up for review
# min_confidence = 0.5
# brief_limit = 10            # related items a task brief shows

# [launch]                    # `viva launch`: the harness programs (default: on PATH)
# claude-code = "/usr/local/bin/claude"
# codex = "/usr/local/bin/codex"
# grant_ttl = "12h"          # how long a launched session's grant lives at most

# [roots]                     # where each harness writes its sessions
# claude-code = "~/.claude/projects"
# codex = "~/.codex"

# [redact]                    # your own secrets, beside the built-in rules
# allow = ["pk_demo_0000"]    # values never redacted
# allow_patterns = ['^acme-public-']  # Python regexes: a secret they match is kept
# [[redact.rules]]
# name = "acme-token"         # the marker reads [REDACTED:acme-token]
# regex = 'acme_[A-Za-z0-9]{32}'  # Python syntax; a group named "secret" narrows it
# keywords = ["acme_"]        # one of them occurs in every match
"""


def default_home() -> Path:
    """The platform's user data directory for Viva (platformdirs)."""
    from platformdirs import user_data_dir

    return Path(user_data_dir("viva", appauthor=False))


def home_db_url(home: Path) -> str:
    """The URL of the SQLite store kept in ``home``."""
    return f"sqlite:///{home / 'viva.db'}"


@dataclass(frozen=True)
class Config:
    """Resolved locations and the parsed ``config.toml``."""

    home: Path
    db_url: str
    raw: Mapping[str, Any] = field(default_factory=dict)

    def section(self, name: str) -> Mapping[str, Any]:
        """One table of ``config.toml`` (empty when absent)."""
        value = self.raw.get(name, {})
        if not isinstance(value, Mapping):
            raise InvalidInput(f"{self.home / CONFIG_FILE}: [{name}] must be a table")
        return value

    @property
    def is_sqlite(self) -> bool:
        return self.db_url.startswith("sqlite")

    @property
    def default_db_url(self) -> str:
        """The store ``VIVA_HOME`` holds when ``VIVA_DB_URL`` names none."""
        return home_db_url(self.home)


def load_config(env: Mapping[str, str] | None = None) -> Config:
    """Resolve ``VIVA_HOME`` / ``VIVA_DB_URL`` and read ``config.toml`` if present."""
    env = os.environ if env is None else env
    home_text = env.get("VIVA_HOME")
    home = Path(home_text).expanduser() if home_text else default_home()
    db_url = env.get("VIVA_DB_URL") or home_db_url(home)
    raw: dict[str, Any] = {}
    path = home / CONFIG_FILE
    if path.is_file():
        try:
            raw = tomllib.loads(path.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise InvalidInput(f"{path}: not valid TOML ({exc})") from exc
    return Config(home=home, db_url=db_url, raw=raw)


def ensure_home(config: Config) -> None:
    """Create ``VIVA_HOME`` (0700) and a commented ``config.toml`` on first use.

    A home that exists but cannot be written (a read-only mount) is left as it is: its
    store can still be read."""
    if config.home.is_dir() and not os.access(config.home, os.W_OK):
        return
    config.home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = config.home / CONFIG_FILE
    if not path.exists():
        path.write_text(CONFIG_TEMPLATE, encoding="utf-8")
