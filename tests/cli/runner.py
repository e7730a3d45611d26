"""Run ``viva`` in-process, as ``main()`` does, capturing streams and the exit code."""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass

from viva_tui import cli
from viva_tui.commands import common


@dataclass
class Result:
    code: int
    out: str
    err: str


def run(args: Sequence[str]) -> Result:
    """``viva ARGS...`` with a fresh store connection (no cache across calls)."""
    common.context.cache_clear()
    out, err = io.StringIO(), io.StringIO()
    argv = sys.argv
    sys.argv = ["viva", *args]
    code = 0
    try:
        with redirect_stdout(out), redirect_stderr(err):
            cli.main()
    except SystemExit as exc:
        code = int(exc.code or 0)
    finally:
        sys.argv = argv
        if common.context.cache_info().currsize:
            common.context().store.close()
        common.context.cache_clear()
    return Result(code, out.getvalue(), err.getvalue())
