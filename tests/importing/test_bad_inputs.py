"""Every input that cannot be read is a ``problems`` entry with its path and reason;
the run still exits 0 and imports the good files beside it."""

from __future__ import annotations

import json
import os
import random
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import zstandard

from tests.cli.runner import run
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code, codex, pi

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def spec(native: str, cwd: str = "/home/dev/shop") -> SessionSpec:
    return SessionSpec(
        native_id=native,
        cwd=cwd,
        start=START,
        turns=(Turn("hello", "hi"), Turn("list files", "done")),
        model="model-x",
    )


def imported(harness: str, root: Path) -> dict[str, Any]:
    """``viva import --json`` of one harness root: it must exit 0."""
    done = run(["import", "--harness", harness, "--root", f"{harness}={root}", "--json"])
    assert done.code == 0, done.err
    return json.loads(done.out)  # type: ignore[no-any-return]


def problems(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["path"], p["reason"]) for p in report["problems"]]


def test_an_empty_jsonl_file(cli_env: str, tmp_path: Path) -> None:
    root = tmp_path / "claude"
    claude_code(root, spec("11111111-1111-4111-8111-111111111111"))
    empty = root / "-home-dev-shop" / "22222222-2222-4222-8222-222222222222.jsonl"
    empty.write_bytes(b"")
    report = imported("claude-code", root)
    assert problems(report) == [(str(empty), "empty file (0 bytes): nothing to read")]
    assert report["sessions_new"] == 1


def zst_rollout(root: Path, native: str) -> tuple[Path, bytes]:
    """A Codex rollout compressed as ``.jsonl.zst`` (the plain file removed): its path
    and compressed bytes."""
    plain = codex(root, spec(native))
    packed = zstandard.ZstdCompressor().compress(plain.read_bytes())
    path = plain.with_name(plain.name + ".zst")
    path.write_bytes(packed)
    plain.unlink()
    return path, packed


def test_an_empty_zst_file(cli_env: str, tmp_path: Path) -> None:
    root = tmp_path / "codex"
    codex(root, spec("0195a1b2-0000-7000-8000-000000000001"))
    path, _ = zst_rollout(root, "0195a1b2-0000-7000-8000-000000000002")
    path.write_bytes(b"")
    report = imported("codex", root)
    assert problems(report) == [(str(path), "empty file (0 bytes): nothing to read")]
    assert report["sessions_new"] == 1


def test_a_truncated_zst_file_is_reported_and_read_again_once_it_grows(
    cli_env: str, tmp_path: Path
) -> None:
    root = tmp_path / "codex"
    codex(root, spec("0195a1b2-0000-7000-8000-000000000001"))
    path, packed = zst_rollout(root, "0195a1b2-0000-7000-8000-000000000002")
    path.write_bytes(packed[: len(packed) // 2])
    report = imported("codex", root)
    [(where, reason)] = problems(report)
    assert where == str(path) and reason.startswith("zstd stream is corrupt: ")
    assert "ends inside a frame" in reason
    path.write_bytes(packed)  # the rest arrives
    again = imported("codex", root)
    assert problems(again) == []
    assert again["sessions_new"] + again["sessions_updated"] == 1


def test_a_folder_that_cannot_be_listed(
    cli_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "claude"
    claude_code(root, spec("11111111-1111-4111-8111-111111111111"))
    locked = root / "-home-dev-secret"
    claude_code(root, spec("33333333-3333-4333-8333-333333333333", "/home/dev/secret"))
    real = os.scandir

    def scandir(path: Any = ".") -> Any:  # as a folder without read permission does
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)
    report = imported("claude-code", root)
    assert problems(report) == [(str(locked), "cannot list: Permission denied")]
    assert report["sessions_new"] == 1


def test_a_named_root_that_does_not_exist(cli_env: str, tmp_path: Path) -> None:
    report = imported("pi", tmp_path / "nowhere")
    assert problems(report) == [(str(tmp_path / "nowhere"), "does not exist (named by --root)")]


def test_a_pi_file_of_random_bytes(cli_env: str, tmp_path: Path) -> None:
    root = tmp_path / "pi"
    good = pi(root, spec("0195a1b2-0000-7000-8000-00000000aaaa"))
    noise = good.parent / "2026-03-01T09-00-00-000Z_noise.jsonl"
    noise.write_bytes(bytes(random.Random(7).randrange(256) for _ in range(4096)))
    report = imported("pi", root)
    assert problems(report) == [(str(noise), "not a pi session file: its first line is not JSON")]
    assert report["sessions_new"] == 1
