"""When a built demo store can be opened again instead of rebuilt.

The demo is deterministic given the code that writes and imports it, the shipped team,
and the day it is built for; its fingerprint hashes exactly those, so a second
``viva demo`` reuses the store unless one of them changed.
"""

from __future__ import annotations

import hashlib
from datetime import date
from pathlib import Path

from viva_store.members.team import shipped_members_dir

PACKAGE = Path(__file__).resolve().parents[1]
MARKER = ".viva-demo"
STORE_FILE = "viva.db"


def fingerprint(day: date) -> str:
    """A digest of the package's code, the shipped team's files, and ``day``."""
    digest = hashlib.sha256(day.isoformat().encode())
    for root in (PACKAGE, shipped_members_dir()):
        for path in sorted(root.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(str(path.relative_to(root)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()


def mark_built(home: Path, stamp: str) -> None:
    """Record that ``home`` holds a demo store built with fingerprint ``stamp``."""
    (home / MARKER).write_text(
        f"built by `viva demo`; safe to delete\nfingerprint: {stamp}\n", encoding="utf-8"
    )


def is_demo(home: Path) -> bool:
    """Whether ``home`` was made by ``viva demo`` (and may be replaced by another)."""
    return (home / MARKER).is_file()


def reusable(home: Path, stamp: str) -> bool:
    """Whether ``home`` holds a complete demo store built with fingerprint ``stamp``."""
    if not is_demo(home) or not (home / STORE_FILE).is_file():
        return False
    lines = (home / MARKER).read_text(encoding="utf-8").splitlines()
    return f"fingerprint: {stamp}" in lines
