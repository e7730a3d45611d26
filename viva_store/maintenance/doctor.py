"""``viva doctor``: what a bug report needs to know about this installation.

Every check stands alone: a store that does not open, a config that does not parse or a
harness folder that cannot be read is reported in the document, never raised, so the
report can be made exactly when something is wrong. ``problems`` lists, one line each,
what needs the user's attention.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
import stat
import sys
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from importlib import metadata
from pathlib import Path
from typing import Any

from viva_store.config import Config
from viva_store.errors import VivaError


def _version(distribution: str) -> str | None:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def viva_version() -> str | None:
    """The version of the distribution whose ``viva`` command runs ``viva_tui`` (whatever
    the distribution is named)."""
    for entry in metadata.entry_points(group="console_scripts", name="viva"):
        if entry.value.startswith("viva_tui") and entry.dist is not None:
            return entry.dist.version
    return None


def _fts5() -> bool:
    conn = sqlite3.connect(":memory:")
    try:
        conn.execute("CREATE VIRTUAL TABLE probe USING fts5(body)")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.close()


def versions() -> dict[str, Any]:
    return {
        "viva": viva_version(),
        "python": sys.version.split()[0],
        "textual": _version("textual"),
        "sqlalchemy": _version("sqlalchemy"),
        "sqlite": sqlite3.sqlite_version,
        "sqlite_fts5": _fts5(),
        "postgresql": None,
    }


def hyperscan() -> dict[str, Any]:
    """Whether the importer's one-pass secret scan runs on Hyperscan here."""
    from viva_store.redact.gate import accelerated

    return {"installed": _version("hyperscan") is not None, "active": accelerated()}


def _mode(path: Path) -> str | None:
    try:
        return f"{stat.S_IMODE(path.stat().st_mode):04o}"
    except OSError:
        return None


def paths(config: Config) -> list[dict[str, Any]]:
    """Each folder and file Viva uses: where it is, whether it exists, its permissions."""
    from viva_store.maintenance.backup import sqlite_path

    named: list[tuple[str, Path]] = [
        ("data", config.home),
        ("config", config.config_file),
        ("state", config.state_dir),
        ("cache", config.cache_dir),
        ("logs", config.log_dir),
    ]
    if config.is_sqlite:
        with contextlib.suppress(VivaError):
            named.append(("database", sqlite_path(config)))
    out = []
    for name, path in named:
        exists = path.exists()
        out.append(
            {
                "name": name,
                "path": str(path),
                "exists": exists,
                "mode": _mode(path) if exists else None,
                "writable": exists and os.access(path, os.W_OK),
            }
        )
    return out


def config_errors(config: Config) -> list[str]:
    """Every section of ``config.toml`` checked by the parser that reads it."""
    from viva_store.config_template import section_names
    from viva_store.engagement.rules import EntryRules
    from viva_store.members.grants import parse_ttl
    from viva_store.recall.ranking import RecallParams
    from viva_store.redact.ruleset import settings_from_config
    from viva_store.skills.events import skill_params

    checks: dict[str, Callable[[Mapping[str, Any]], object]] = {
        "skills": skill_params,
        "recall": RecallParams.from_config,
        "state": EntryRules.from_config,
        "redact": lambda s: settings_from_config(s, str(config.config_file)),
    }
    errors = [
        f"{config.config_file}: unknown section [{name}]"
        for name in config.raw
        if name not in section_names()
    ]
    for name in section_names():
        try:
            section = config.section(name)
            if name in checks:
                checks[name](section)
            ttl = section.get("grant_ttl") if name == "launch" else None
            if ttl is not None and parse_ttl(str(ttl)) is None:
                errors.append(f"{config.config_file}: [launch] grant_ttl {ttl!r} is not a duration")
        except (VivaError, ValueError) as exc:
            errors.append(str(exc))
    return errors


def roots(config: Config, now: datetime) -> list[dict[str, Any]]:
    """Each harness root: its files, and the oldest against the harness's retention."""
    from viva_store.importing.harness import registry

    out: list[dict[str, Any]] = []
    for harness in registry.names():
        try:
            found = registry.roots(harness, None, config.section("roots"))
        except VivaError as exc:
            out.append({"harness": harness, "error": str(exc)})
            continue
        for root in found:
            files, oldest = 0, None
            for source in registry.discover(root):
                try:
                    mtime = source.path.stat().st_mtime
                except OSError:
                    continue
                files += 1
                oldest = mtime if oldest is None else min(oldest, mtime)
            at = None if oldest is None else datetime.fromtimestamp(oldest, UTC)
            out.append(
                {
                    "harness": harness,
                    "path": str(root.path),
                    "origin": root.origin,
                    "exists": root.path.exists(),
                    "files": files,
                    "oldest": at,
                    "oldest_days": None if at is None else round((now - at) / timedelta(days=1), 1),
                    "retention_days": retention_days(harness),
                }
            )
    return out


def retention_days(harness: str) -> int | None:
    """Days after which ``harness`` deletes its transcripts: Claude Code's
    ``cleanupPeriodDays`` in ``~/.claude/settings.json`` when set, else the default."""
    from viva_store.importing.harness import registry

    if harness == "claude-code":
        settings = Path(os.environ.get("HOME") or Path.home()) / ".claude" / "settings.json"
        try:
            days = json.loads(settings.read_text(encoding="utf-8")).get("cleanupPeriodDays")
        except (OSError, ValueError, AttributeError):
            days = None
        if isinstance(days, int) and not isinstance(days, bool) and days > 0:
            return days
    return registry.RETENTION_DAYS.get(harness)


def launch_journals(config: Config) -> list[dict[str, Any]]:
    """Launches not closed yet: running ones, and dead ones ``viva launch --repair`` puts
    right."""
    from viva_store.launch.files import pending

    try:
        journals = pending(config.home / "launches")
    except (OSError, VivaError) as exc:
        return [{"error": f"cannot read {config.home / 'launches'}: {exc}"}]
    return [
        {
            "path": str(j.path),
            "cwd": j.cwd,
            "member": j.member,
            "harness": j.harness,
            "running": j.running,
        }
        for j in journals
    ]
