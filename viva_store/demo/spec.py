"""What the demo, tests and benchmarks write as harness files: a session as turns.

:mod:`viva_store.demo.harness_files` writes a :class:`SessionSpec` in each harness's
real on-disk format.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import orjson


@dataclass(frozen=True, slots=True)
class Turn:
    """One exchange: a prompt, optionally one tool call and its output, and a reply."""

    user: str
    reply: str
    tool: str | None = None
    tool_input: dict[str, Any] = field(default_factory=dict)
    tool_output: str = ""


@dataclass(frozen=True, slots=True)
class SessionSpec:
    """A session to write."""

    native_id: str
    cwd: str
    start: datetime
    turns: tuple[Turn, ...]
    model: str
    git_branch: str = "main"
    title: str | None = None
    step: timedelta = timedelta(seconds=40)


def iso(at: datetime) -> str:
    """An instant as the harnesses write it: UTC, milliseconds, ``Z``."""
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def uid(*parts: str) -> str:
    """A stable UUID-shaped id made from ``parts``."""
    digest = hashlib.sha1("\0".join(parts).encode()).hexdigest()
    return f"{digest[:8]}-{digest[8:12]}-4{digest[13:16]}-8{digest[17:20]}-{digest[20:32]}"


def write_lines(path: Path, lines: list[dict[str, Any]]) -> Path:
    """Write ``lines`` as JSON lines to ``path`` (folders made as needed)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        for line in lines:
            fh.write(orjson.dumps(line) + b"\n")
    return path
