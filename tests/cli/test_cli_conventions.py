"""The conventions of a Python command line: ``--version``, ``python -m``, long text read
from standard input with ``-``, and shell completion that knows the store's names."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tomllib
from importlib.metadata import version
from pathlib import Path

import pytest

from tests.cli.runner import Result, run
from viva_tui import __version__

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def _store(cli_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVA_NOW", "2026-11-24T10:00:00Z")
    assert run(["init"]).code == 0


def test_the_version_is_kept_in_one_place_and_printed() -> None:
    project = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert "version" in project["dynamic"] and "version" not in project
    assert version(project["name"]) == __version__
    result = run(["--version"])
    assert (result.code, result.out) == (0, f"viva {__version__}\n")


def test_python_dash_m_runs_the_command() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "viva_tui", "--version"], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout) == (0, f"viva {__version__}\n"), done.stderr


def _propose(monkeypatch: pytest.MonkeyPatch, stdin: str, *flags: str) -> Result:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    return run(["principle", "propose", "deven", *flags, "--json"])


@pytest.mark.usefixtures("_store")
def test_text_and_rationale_read_standard_input_given_as_dash(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    long_text = "Run the whole suite before a commit.\n\nEven for a one-line change."
    piped = _propose(monkeypatch, long_text + "\n", "--text", "-", "--rationale", "It broke.")
    assert piped.code == 0, piped.err
    assert json.loads(piped.out)["text"] == long_text
    reason = _propose(monkeypatch, "Twice last week.\n", "--text", "Lint.", "--rationale", "-")
    assert reason.code == 0, reason.err
    assert json.loads(reason.out)["rationale"] == "Twice last week."


@pytest.mark.usefixtures("_store")
def test_only_one_flag_can_read_standard_input(monkeypatch: pytest.MonkeyPatch) -> None:
    both = _propose(monkeypatch, "x", "--text", "-", "--rationale", "-")
    assert both.code == 2 and both.out == ""
    assert both.err.strip() == "viva: only one of --text, --rationale can read standard input (-)"
    empty = _propose(monkeypatch, "  \n", "--text", "-", "--rationale", "r")
    assert empty.code == 2 and "standard input was empty" in empty.err


def _complete(monkeypatch: pytest.MonkeyPatch, line: str) -> list[str]:
    """What bash's completion script gets for ``line`` (the last word is being typed)."""
    words = line.split(" ")
    monkeypatch.setenv("_VIVA_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", line)
    monkeypatch.setenv("COMP_CWORD", str(len(words) - 1))
    result = run([])
    assert result.code == 0 and result.err == "", result.err
    return [word for word in result.out.splitlines() if word]


@pytest.mark.usefixtures("_store")
def test_completion_offers_commands_and_the_stores_names(monkeypatch: pytest.MonkeyPatch) -> None:
    library = json.loads(run(["skill", "library", "--json"]).out)
    first = sorted(skill["name"] for skill in library)[0]
    assert _complete(monkeypatch, "viva sk") == ["skill"]
    team = ["alice", "deven", "oliver", "samuel", "victor"]
    assert _complete(monkeypatch, "viva timeline ") == team
    assert _complete(monkeypatch, "viva skill list d") == ["deven"]
    assert _complete(monkeypatch, "viva import --harness c") == ["claude-code", "codex"]
    assert first in _complete(monkeypatch, f"viva skill show {first[:3]}")


@pytest.mark.usefixtures("_store")
def test_completion_offers_session_ids(monkeypatch: pytest.MonkeyPatch) -> None:
    fixtures = REPO / "tests" / "fixtures" / "claude-code"
    monkeypatch.setenv("VIVA_CLAUDE_CODE_ROOT", str(fixtures))
    assert run(["import", "--harness", "claude-code"]).code == 0
    ids = [s["id"] for s in json.loads(run(["sessions", "--all", "--json"]).out)]
    assert ids
    offered = _complete(monkeypatch, f"viva session show {ids[0][:4]}")
    assert ids[0] in offered
    assert all(word.startswith(ids[0][:4]) for word in offered)


def test_completion_without_a_store_offers_nothing_and_creates_nothing(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = tmp_path / "nowhere"
    monkeypatch.setenv("VIVA_HOME", str(home))
    assert _complete(monkeypatch, "viva timeline ") == []
    assert not home.exists()
    monkeypatch.setenv("VIVA_DB_URL", "postgresql+psycopg://viva@127.0.0.1:1/viva")
    assert _complete(monkeypatch, "viva skill list ") == []


@pytest.mark.usefixtures("_store")
def test_completion_under_a_grant_reads_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    token = run(["grant", "deven"]).out.strip()
    monkeypatch.setenv("VIVA_GRANT", token)
    assert _complete(monkeypatch, "viva timeline ") == []
