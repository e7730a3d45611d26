"""Viva's log: where it is, what goes in, that it is redacted, and that nothing of it
reaches the screen but with ``--verbose`` (one line, no traceback)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.runner import run
from tests.redact.support import secret_of
from tests.store.test_import import spec
from viva_store.config import load_config
from viva_store.demo.harness_files import claude_code
from viva_store.errors import InvalidInput
from viva_store.logs import service as logs
from viva_store.redact import RULES_BY_ID


@pytest.fixture(autouse=True)
def _fresh_log_state() -> Iterator[None]:
    """Each test starts with no handler and neither --verbose nor the app's silence."""
    logs._state.update(verbose=False, screen=True, installed=None)
    yield
    logs._state.update(verbose=False, screen=True, installed=None)
    for handler in list(logging.getLogger("viva").handlers):
        logging.getLogger("viva").removeHandler(handler)
        handler.close()


def log_text(home: Path) -> str:
    return (home / "logs" / "viva.log").read_text(encoding="utf-8")


def test_an_import_run_is_logged_with_its_problems(cli_env: str, tmp_path: Path) -> None:
    root = tmp_path / "claude"
    claude_code(root, spec())
    (root / "-src-x").mkdir()
    (root / "-src-x" / "0f8e9d7c-1111-4222-8333-999999999999.jsonl").write_bytes(b"{not json\n")
    done = run(["import", "--harness", "claude-code", "--root", f"claude-code={root}", "--json"])
    assert done.code == 0, done.err
    text = log_text(tmp_path / "home")
    assert " INFO viva.import: run r" in text and "1 new sessions" in text
    assert "WARNING viva.import: run r" in text and "-src-x/0f8e9d7c" in text
    assert done.err == ""  # nothing of it on the screen
    log = tmp_path / "home" / "logs" / "viva.log"
    assert (log.stat().st_mode & 0o777) == 0o600


def test_every_record_is_redacted_traceback_included(tmp_path: Path) -> None:
    secret = secret_of(RULES_BY_ID["github-pat"])
    log = logs.get_logger(load_config(), "app")
    try:
        raise RuntimeError(f"token {secret} refused")
    except RuntimeError as exc:
        log.error("worker failed for %s", secret, exc_info=exc)
    text = log_text(tmp_path / "home")
    assert "Traceback (most recent call last)" in text and "RuntimeError: token [REDACTED:" in text
    assert secret not in text


def test_verbose_shows_one_line_per_record_and_keeps_the_traceback_in_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    logs.set_verbose()
    log = logs.get_logger(load_config(), "watch")
    log.debug("a change")
    try:
        raise ValueError("bad\nvalue")
    except ValueError as exc:
        log.error("round failed", exc_info=exc)
    err = capsys.readouterr().err
    assert err == "viva: viva.watch: a change\nviva: viva.watch: round failed\n"
    assert "ValueError: bad" in log_text(tmp_path / "home")


def test_the_app_never_prints_a_record(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    logs.set_verbose()
    logs.keep_off_screen()
    logs.get_logger(load_config(), "app").error("boom")
    assert capsys.readouterr().err == "" and "ERROR viva.app: boom" in log_text(tmp_path / "home")


def test_the_level_is_chosen_and_a_bad_one_refused(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("VIVA_LOG_LEVEL", "warning")
    log = logs.get_logger(load_config(), "import")
    log.info("kept out")
    log.warning("kept in")
    assert "kept in" in log_text(tmp_path / "home") and "kept out" not in log_text(
        tmp_path / "home"
    )
    monkeypatch.setenv("VIVA_LOG_LEVEL", "loud")
    with pytest.raises(InvalidInput, match="VIVA_LOG_LEVEL must be one of DEBUG, INFO"):
        logs.get_logger(load_config(), "import")
    done = run(["import", "--json"])
    assert done.code == 1 and done.err.startswith("viva: VIVA_LOG_LEVEL must be one of")


def test_a_command_that_logs_nothing_sets_nothing_up(cli_env: str, tmp_path: Path) -> None:
    assert run(["members", "--json"]).code == 0
    assert not (tmp_path / "home" / "logs").exists()
    assert logs._state["installed"] is None


def test_an_internal_error_leaves_its_traceback_in_the_log(
    cli_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object) -> None:
        raise KeyError("lost")

    monkeypatch.setattr("viva_store.members.service.list_members", broken)
    done = run(["members"])
    assert done.code == 1 and "internal error: KeyError" in done.err
    assert "Traceback" not in done.err
    text = log_text(tmp_path / "home")
    assert "ERROR viva.cli: internal error" in text and "KeyError: 'lost'" in text
