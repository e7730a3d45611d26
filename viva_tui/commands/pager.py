"""Long output through ``$PAGER`` when stdout is a terminal (``--no-pager``: never).

The command draws into a buffer as it would on the terminal (colours, width); output
taller than the terminal goes to the pager (``less -R`` when ``$PAGER`` is unset),
shorter output is written as it is. Piped output is never paged.
"""

from __future__ import annotations

import io
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Annotated, Any

import typer

NoPagerOpt = Annotated[
    bool, typer.Option("--no-pager", help="Print straight to the terminal, never page.")
]


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def show(text: str) -> None:
    """``text`` on stdout, through the pager when it is taller than the terminal."""
    height = shutil.get_terminal_size().lines
    if text.count("\n") < height - 1:
        sys.stdout.write(text)
        return
    pager = shlex.split(os.environ.get("PAGER") or "less -R")
    sys.stdout.flush()
    try:
        subprocess.run(pager, input=text, text=True, check=False)
    except OSError:  # no such pager: the text is not lost
        sys.stdout.write(text)


@contextmanager
def paged(no_pager: bool) -> Iterator[Any]:
    """A rich console to print on; what it printed is shown through :func:`show` when
    stdout is a terminal (and ``no_pager`` is not set), else printed as it goes."""
    from rich.console import Console

    if no_pager or not stdout_is_terminal():
        yield Console(highlight=False)
        return
    buffer = io.StringIO()
    width = shutil.get_terminal_size().columns
    yield Console(highlight=False, file=buffer, force_terminal=True, width=width)
    show(buffer.getvalue())
