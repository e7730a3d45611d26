"""Run ``viva`` in-process, as ``main()`` does, capturing streams and the exit code.

Typer turns the app into a click command on every call (~30 ms, more than most
commands take); here it is built once per test session and reused, which is safe since
click keeps nothing of one invocation in the command.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from functools import cache
from typing import Any
from unittest import mock

import typer.main

from viva_tui import cli
from viva_tui.commands import common

_build_command = typer.main.get_command


@dataclass
class Result:
    code: int
    out: str
    err: str


@cache
def _viva_command() -> Any:
    return _build_command(cli.app)


def _command_of(app: typer.Typer) -> Any:
    return _viva_command() if app is cli.app else _build_command(app)


def run(args: Sequence[str]) -> Result:
    """``viva ARGS...`` with a fresh store connection (no cache across calls)."""
    common.context.cache_clear()
    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["viva", *args]
    code = 0
    try:
        with (
            mock.patch.object(typer.main, "get_command", _command_of),
            redirect_stdout(out),
            redirect_stderr(err),
        ):
            cli.main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.argv = argv
        if common.context.cache_info().currsize:
            common.context().store.close()
        common.context.cache_clear()
    return Result(code, out.getvalue(), err.getvalue())
