"""Run a harness in the foreground, so that whatever happens Viva gets to clean up.

Inside a :class:`Guard` (a launch holds one from its first write to the grant's
revocation) signals cannot cut the cleanup short:

* while the harness runs, it shares the terminal: Ctrl-C reaches it directly (the
  terminal signals the whole foreground process group), so Viva ignores SIGINT; SIGTERM
  and SIGHUP sent to Viva are passed on to the harness, and a second one kills it;
* before and after the harness runs, a signal is held back and delivered again when
  the guard exits — after the user's files are restored and the grant revoked.
"""

from __future__ import annotations

import contextlib
import signal
import subprocess
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import FrameType, TracebackType
from typing import Any

from viva_store.errors import InvalidInput

GUARDED = tuple(
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name)
)


def exit_status(returncode: int) -> int:
    """A shell's view of a return code: ``-N`` (killed by signal N) becomes ``128 + N``."""
    return 128 - returncode if returncode < 0 else returncode


class Guard:
    """Hold signals back around a launch; :meth:`run` runs the harness inside it."""

    def __init__(self) -> None:
        self.proc: subprocess.Popen[bytes] | None = None
        self.held: list[int] = []
        self.forwarded = 0
        self._saved: dict[int, Any] = {}

    def __enter__(self) -> Guard:
        if threading.current_thread() is threading.main_thread():
            for signum in GUARDED:
                self._saved[signum] = signal.signal(signum, self._handle)
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for signum, handler in self._saved.items():
            signal.signal(signum, handler)
        self._saved.clear()
        if self.held and kind is None:
            signal.raise_signal(self.held[0])  # now the default (or caller's) handler acts

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        proc = self.proc
        if proc is None or proc.poll() is not None:
            self.held.append(signum)
        elif signum != signal.SIGINT:  # the terminal already delivered SIGINT to the harness
            self.forwarded += 1
            with contextlib.suppress(ProcessLookupError):
                if self.forwarded > 1:
                    proc.kill()
                else:
                    proc.send_signal(signum)

    def run(self, argv: Sequence[str], env: Mapping[str, str], cwd: Path) -> int:
        """Start ``argv`` in ``cwd`` with ``env`` and wait for it; its exit status.

        A signal held back before the start means the harness is not started at all.
        """
        if self.held:
            return 128 + self.held[0]
        try:
            self.proc = subprocess.Popen(list(argv), env=dict(env), cwd=cwd)
        except OSError as exc:
            raise InvalidInput(f"cannot start {argv[0]}: {exc.strerror or exc}") from exc
        return exit_status(self.proc.wait())
