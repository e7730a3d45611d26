"""Where the demo team works: each member's project folders, harnesses and models.

Plain data; what they work on is in :mod:`viva_store.demo.stories`. Folders differ by
member, with some overlap (deven and alice share two projects), so the triage
suggestions have something honest to learn from.
"""

from __future__ import annotations

PROJECTS: dict[str, list[str]] = {
    "samuel": ["/home/haisu/work/roadmap", "/home/haisu/work/viva"],
    "deven": ["/home/haisu/src/viva", "/home/haisu/src/ledger-api"],
    "alice": ["/home/haisu/src/viva", "/home/haisu/src/ledger-api"],
    "oliver": ["/home/haisu/ops/infra", "/home/haisu/ops/backups"],
    "victor": ["/home/haisu/research/signals", "/home/haisu/research/backtests"],
}

HARNESSES: dict[str, list[str]] = {
    "samuel": ["claude-code"],
    "deven": ["codex", "claude-code"],
    "alice": ["claude-code", "gemini", "pi"],
    "oliver": ["pi", "codex"],
    "victor": ["claude-code", "pi"],
}

MODELS = {
    "claude-code": "claude-sonnet-4-5",
    "codex": "gpt-5-codex",
    "pi": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-pro",
}
