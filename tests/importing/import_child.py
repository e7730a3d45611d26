"""``viva import`` in a child process that stops itself at a chosen point, for the
crash tests: ``python -m tests.importing.import_child MODE AT ROOT [--watch]``.

Every transcript chunk of two messages is its own write transaction, so a small
session is stored over several transactions. ``MODE``:

* ``kill-in-commit``: SIGKILL inside transaction ``AT``, after its rows are written;
* ``kill-after-commit``: SIGKILL right after transaction ``AT`` has committed;
* ``kill-before-record``: SIGKILL once every batch is stored, before the run is recorded;
* ``kill-with-workers``: as ``kill-in-commit``, with reader worker processes running
  (``run_import`` itself: the CLI starts workers only on machines of more cores);
* ``hold-in-commit``: inside transaction ``AT``, touch ``ROOT/../held`` and wait there
  (for a SIGTERM to the watcher).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path
from typing import Any

from viva_store.importing import batch, pipeline
from viva_store.importing.harness import reader


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def main(mode: str, at: int, root: Path, watch: bool) -> None:
    batch.BATCH_BYTES = 1
    setattr(reader, "CHUNK_MESSAGES", 2)  # noqa: B010 - the name the reader loop reads
    calls = {"commit": 0}
    inner = batch.Writer._commit
    store = batch.Writer.store

    def commit(self: batch.Writer, conn: Any, pending: batch.Pending, now: Any) -> Any:
        result = inner(self, conn, pending, now)
        calls["commit"] += 1
        if calls["commit"] == at and mode in ("kill-in-commit", "kill-with-workers"):
            _die()
        if calls["commit"] == at and mode == "hold-in-commit":
            (root.parent / "held").touch()
            time.sleep(120)
        return result

    def store_then(self: batch.Writer, pending: batch.Pending) -> None:
        store(self, pending)
        if calls["commit"] == at and mode == "kill-after-commit":
            _die()

    def record_run(*args: Any, **kwargs: Any) -> None:
        _die()

    batch.Writer._commit = commit  # type: ignore[method-assign]
    batch.Writer.store = store_then  # type: ignore[method-assign]
    if mode == "kill-before-record":
        setattr(pipeline, "record_run", record_run)  # noqa: B010 - as the run calls it
    if mode == "kill-with-workers":
        from viva_store.access import OWNER
        from viva_store.config import load_config
        from viva_store.store import Context, Store

        ctx = Context(Store.open(load_config()), OWNER)
        events = pipeline.run_import(
            ctx, ["claude-code"], {"claude-code": str(root)}, workers=2, pool_min_bytes=0
        )
        for _ in events:
            pass
        return
    from viva_tui.cli import main as viva

    sys.argv = ["viva", "import", "--harness", "claude-code", "--root", f"claude-code={root}"]
    if watch:
        sys.argv.append("--watch")
    viva()


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), Path(sys.argv[3]), "--watch" in sys.argv[4:])
