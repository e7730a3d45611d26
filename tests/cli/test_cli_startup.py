"""What a ``viva`` process loads: plain coercion in front of Typer's, and per-command imports.

A member calls ``viva`` many times a session, so each call must load only what it uses;
these tests hold the expensive modules out of the member callbacks' processes, and hold
the plain coercion to Typer's own results and errors.
"""

from __future__ import annotations

import os
import subprocess
import sys
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from typer import _coercion
from typer.models import OptionInfo

from tests.cli.runner import run
from viva_tui.commands import coercion


class Outcome(StrEnum):
    SUCCESS = "success"
    FAILURE = "failure"


class _Param:
    def __init__(self, multiple: bool = False) -> None:
        self.multiple, self.nargs = multiple, 1


CASES: list[tuple[Any, dict[str, Any], Any]] = [
    (str, {}, "deven"),
    (str, {}, ""),
    (int, {}, "10"),
    (int, {}, "-3"),
    (int, {}, "+7"),
    (int, {}, 10),
    (int, {"min": 1}, "1"),
    (int, {"min": 1}, "0"),
    (int, {"min": 0, "max": 10}, "11"),
    (int, {}, " 5"),
    (int, {}, "1_000"),
    (int, {}, "2.0"),
    (int, {}, "abc"),
    (float, {}, "0.25"),
    (float, {}, "3"),
    (float, {"min": 0.0, "max": 1.0}, "1.5"),
    (float, {}, "1e3"),
    (float, {}, 0.8),
    (Outcome, {}, "success"),
    (Outcome, {}, "SUCCESS"),
    (Outcome, {}, "bogus"),
    (Outcome, {}, Outcome.FAILURE),
    (list[str], {}, ("a", "b")),
]


def _typer_own(annotation: Any, info: OptionInfo, value: Any, multiple: bool) -> Any:
    descriptor = _coercion.resolve_type_descriptor(annotation, info)
    try:
        typer_param = _coercion.build_runtime_param(descriptor)
        return ("ok", typer_param.coerce(value, _Param(multiple), None))
    except Exception as exc:  # the error Typer gives is what must not change
        return ("error", type(exc).__name__, str(exc))


@pytest.mark.parametrize(("annotation", "options", "value"), CASES)
def test_plain_coercion_gives_typers_result_or_leaves_the_value_to_typer(
    annotation: Any, options: dict[str, Any], value: Any
) -> None:
    info = OptionInfo(**options)
    own = _typer_own(annotation, info, value, annotation == list[str])
    plain = coercion.convert(annotation, info, value)
    if plain is coercion._UNSET:
        return  # Typer's own coercion runs: its result and error are Typer's by definition
    assert own[0] == "ok", f"plain coercion accepted what Typer refuses: {own}"
    assert plain == own[1] and type(plain) is type(own[1])


def test_plain_coercion_accepts_the_everyday_values() -> None:
    # Without these the hook would save nothing: every call would still load pydantic.
    for annotation, value in ((str, "x"), (int, "10"), (int, 10), (Outcome, "success")):
        assert coercion.convert(annotation, OptionInfo(), value) is not coercion._UNSET


def test_the_hook_is_installed_in_typer() -> None:
    assert coercion.install() is True
    from typer.core import _TyperParameter

    assert getattr(_TyperParameter.get_runtime_param, "viva_plain", False)


def test_bad_values_still_get_typers_messages() -> None:
    bad = run(["sessions", "--limit", "abc"])
    assert bad.code == 2 and "valid integer" in bad.err
    low = run(["sessions", "--limit", "0"])
    assert low.code == 2 and "greater than or equal to 1" in low.err
    outcome = run(["skill", "use", "deven", "x", "--outcome", "bogus"])
    assert outcome.code == 2 and "'bogus' is not one of" in outcome.err


HEAVY = (
    "pydantic",
    "alembic",
    "yaml",
    "textual",
    "viva_store.redact",
    "viva_store.importing.harness.registry",
    "viva_store.principles.batch",
)

PROBE = """
import sys
from viva_tui import cli
sys.argv = ["viva", *sys.argv[1:]]
try:
    cli.main()
except SystemExit as exc:
    assert not exc.code, exc.code
loaded = [m for m in {heavy!r} if m in sys.modules]
assert not loaded, "loaded: " + ", ".join(loaded)
"""


@pytest.mark.parametrize(
    "args",
    [
        ["recall", "flaky", "--json"],
        ["skill", "show", "code-review"],
        ["skill", "list", "deven", "--json"],
        ["state", "get", "deven", "--json"],
        ["members", "--json"],
    ],
)
def test_a_member_callback_loads_only_what_it_uses(args: list[str], tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIVA_")}
    env["VIVA_HOME"] = str(tmp_path)
    first = subprocess.run(
        [sys.executable, "-m", "viva_tui.cli", "members", "--json"], env=env, capture_output=True
    )
    assert first.returncode == 0, first.stderr  # the store, made and loaded with the team
    probe = subprocess.run(
        [sys.executable, "-c", PROBE.format(heavy=HEAVY), *args], env=env, capture_output=True
    )
    assert probe.returncode == 0, probe.stderr.decode()[-1500:]


def _help(app: Any, args: list[str]) -> str:
    from typer.testing import CliRunner

    result = CliRunner().invoke(app, args, prog_name="viva")
    return result.output


@pytest.mark.parametrize(
    "args",
    [["skill", "list", "--help"], ["recall", "--help"], ["import", "--help"], ["skill", "nope"]],
)
def test_the_one_command_app_answers_as_the_whole_app(args: list[str]) -> None:
    from viva_tui import cli

    one = cli.app_for(args)
    assert one is not cli.app
    assert len(one.registered_commands) + len(one.registered_groups) == 1
    assert _help(one, args) == _help(cli.app, args)


@pytest.mark.parametrize("args", [["--help"], ["bogus"], ["-x"]])
def test_help_and_unknown_names_get_the_whole_app(args: list[str]) -> None:
    from viva_tui import cli

    assert cli.app_for(args) is cli.app


def test_no_command_opens_the_app(monkeypatch: pytest.MonkeyPatch) -> None:
    from viva_tui import cli
    from viva_tui.commands import tui

    opened: list[bool] = []
    monkeypatch.setattr(tui, "open_app", lambda *a, **k: opened.append(True))
    monkeypatch.setattr(sys, "argv", ["viva"])
    try:
        cli.main()  # a command that succeeds returns; one that fails exits non-zero
    except SystemExit as done:
        assert not done.code
    assert opened == [True]


def test_the_tables_of_commands_name_every_command_of_the_whole_app() -> None:
    from viva_tui import cli

    whole = cli.whole_app()
    tops = [cli._name(c) for c in whole.registered_commands]
    assert sorted(tops) == sorted(cli.TOP_COMMANDS)
    assert sorted(g.name or "" for g in whole.registered_groups) == sorted(cli.GROUPS)
    for word in [*cli.TOP_COMMANDS, *cli.GROUPS]:
        one = cli.app_for([word])
        assert len(one.registered_commands) + len(one.registered_groups) == 1, word


COLLECTOR = """
import gc, os, sys
from viva_tui import cli
assert not gc.isenabled()  # importing viva_tui turned it off
{open}
assert gc.isenabled(), "the work runs without the collector"
assert gc.get_freeze_count() > 10_000, gc.get_freeze_count()  # start-up's objects
"""
OPENERS = {
    "a command": 'sys.argv = ["viva", "state", "get", "deven", "--json"]\ncli.main()',
    "the demo's build": (
        "from viva_store.demo import service\n"
        "service.build_demo = lambda *a, **kw: None\n"
        "os.environ.pop('VIVA_GRANT')\n"
        'sys.argv = ["viva", "demo", "--no-tui", "--home", os.environ["VIVA_HOME"] + "/demo"]\n'
        "try:\n"
        "    cli.main()\n"
        "except SystemExit:\n"
        "    pass"
    ),
    "the MCP server": "from viva_tui.mcp.gate import open_gate\nopen_gate(os.environ)",
    "the app": (
        "from viva_store.config import load_config\n"
        "from viva_tui import app\n"
        "app.VivaApp.run = lambda self, **kw: None\n"
        "os._exit = lambda code: None\n"
        "app.run_app(load_config(), lambda: None)"
    ),
}


@pytest.mark.parametrize("opener", OPENERS)
def test_the_collector_is_off_during_start_up_and_on_for_the_work(
    opener: str, tmp_path: Path
) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIVA_")}
    env["VIVA_HOME"] = str(tmp_path)
    token = subprocess.run(
        [sys.executable, "-m", "viva_tui.cli", "grant", "deven"], env=env, capture_output=True
    )
    assert token.returncode == 0, token.stderr
    env["VIVA_GRANT"] = token.stdout.decode().strip()
    probe = subprocess.run(
        [sys.executable, "-c", COLLECTOR.format(open=OPENERS[opener])], env=env, capture_output=True
    )
    assert probe.returncode == 0, probe.stderr.decode()[-1500:]
