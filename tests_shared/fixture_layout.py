"""Put the shared harness fixtures where each harness really writes its files.

The fixtures come from several projects, each with its own folder shape; the
importer's discovery is tested against the real layouts (HARNESSES.md), so
every fixture file is copied to the place its harness would have written it.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests_shared.conftest import SHARED as FIXTURES

# Not session files, so not laid out: pi/assistant-message-with-thinking-code.json (one
# AssistantMessage payload) and opencode/.../migration (OpenCode's migration counter).


def _copy(src: Path, dst: Path) -> None:
    dst.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src, dst)


def lay_out(harness: str, dest: Path) -> str:
    """Copy ``harness``'s fixtures into real layouts under ``dest``; returns the root(s)."""
    src = FIXTURES / harness
    if harness == "claude-code":
        shutil.copytree(src, dest / "projects")
        return str(dest / "projects")
    if harness == "codex":
        shutil.copytree(src / "sessions", dest / "sessions")
        shutil.copytree(src / "archived_sessions", dest / "archived_sessions")
        loose = [*src.glob("*.jsonl"), src / "ccusage/sessions/project-alpha/session-alpha.jsonl"]
        for n, path in enumerate(sorted(loose)):
            day = dest / "sessions" / "2026" / "02" / f"{n + 1:02d}"
            _copy(path, day / f"rollout-2026-02-{n + 1:02d}T00-00-00-{path.stem}.jsonl")
        return str(dest)
    if harness == "pi":
        shutil.copytree(src / "sessions", dest, dirs_exist_ok=True)
        _copy(
            src / "agent-sessions/small.jsonl",
            dest
            / "--tmp-as-agent-fixture-project--"
            / "2026-05-12T01-02-27-657Z_019e19b4-eb48-746a-aa6b-8dfcfa37954b.jsonl",
        )
        for path in sorted(src.glob("*.jsonl")):
            _copy(path, dest / "--fixtures--" / f"2025-12-01T00-00-00-000Z_{path.stem}.jsonl")
        return str(dest)
    if harness == "gemini":
        shutil.copytree(src / "tmp", dest, dirs_exist_ok=True)
        for path in sorted([*src.glob("*.json"), *src.glob("*.jsonl")]):
            _copy(
                path,
                dest / "fixtures" / "chats" / f"session-2026-01-01T00-00-{path.stem}{path.suffix}",
            )
        return str(dest)
    if harness == "opencode":
        roots = []
        for n, tree in enumerate(
            ("agent-sessions/storage_v2", "agent-sessions/storage_legacy", "cass/storage")
        ):
            shutil.copytree(src / tree, dest / f"data{n}" / "storage")
            roots.append(str(dest / f"data{n}"))
        import os

        return os.pathsep.join(roots)
    if harness == "hermes":
        for path in sorted(src.glob("*.json")):
            _copy(path, dest / "sessions" / f"session_{path.stem}.json")
        return str(dest)
    raise ValueError(harness)
