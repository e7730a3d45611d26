"""One run of ``viva`` (its real command line) with timings of what a user waits for.

Run by ``bench_tui.py`` in a pseudo-terminal of its own (the app draws there as it
would for a user): it swaps the app class the ``viva`` command opens for one that,
once the first frame is up, presses keys the way a user would and writes a JSON line
of seconds, then the wall-clock instant it pressed ``q``, to the file
``VIVA_PROBE_OUT`` names (the parent times the exit):

* ``members``: first frame → the Members pane shows its counts;
* ``triage``: ``2`` → the Triage list's first rows;
* ``report``: ``ctrl+r`` → the weekly report on screen;
* ``file_one``: a member's key on the highlighted session → its row gone and that
  member's count changed; with how many suggestion runs and member recounts it caused.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

from textual import events

import viva_tui.app as viva_app
from viva_tui import cli


async def until(check: Callable[[], object], timeout: float = 60.0) -> float:
    t0 = time.perf_counter()
    while not check():
        if time.perf_counter() - t0 > timeout:
            raise SystemExit("timed out waiting")
        await asyncio.sleep(0.002)
    return time.perf_counter() - t0


class Probe(viva_app.VivaApp):
    def on_ready(self) -> None:
        # Textual calls VivaApp.on_ready too (every class's handler): calling it here
        # as well opened the store twice.
        self.ready_at = time.perf_counter()
        self._task = asyncio.get_running_loop().create_task(self.script())

    async def idle(self) -> None:
        screen: Any = self.screen_stack[0]
        await until(lambda: screen.panes_built and not any(w.is_running for w in self.workers))

    async def script(self) -> None:
        from viva_tui.dialogs.report import ReportDialog
        from viva_tui.widgets.members_pane import MembersPane
        from viva_tui.widgets.triage_pane import TriagePane

        out: dict[str, float] = {}
        screen: Any = self.screen_stack[0]
        members = screen.query_one(MembersPane)
        await until(lambda: members.rows and members.rows[0].sessions is not None)
        out["members"] = time.perf_counter() - self.ready_at
        await self.idle()
        t0 = time.perf_counter()
        self.post_message(events.Key("2", "2"))
        await until(lambda: screen.query(TriagePane) and screen.query_one(TriagePane).order)
        out["triage"] = time.perf_counter() - t0
        pane = screen.query_one(TriagePane)
        await until(lambda: pane.suggestions is not None)
        await self.idle()
        t0 = time.perf_counter()
        self.post_message(events.Key("ctrl+r", None))
        await until(lambda: isinstance(self.screen, ReportDialog))
        out["report"] = time.perf_counter() - t0
        self.pop_screen()
        await self.idle()
        calls = {"suggestions": 0, "members recounted": 0}
        backend = screen.backend
        suggest, member_rows = backend.suggestions, backend.member_rows

        def counted_suggest() -> Any:
            calls["suggestions"] += 1
            return suggest()

        def counted_rows(chosen: Any) -> Any:
            calls["members recounted"] += len(chosen)
            return member_rows(chosen)

        backend.suggestions, backend.member_rows = counted_suggest, counted_rows
        name = next(iter(pane.keys))
        row = next(r for r in members.rows if r.member.name == name)
        sid = pane.current()
        t0 = time.perf_counter()
        self.post_message(events.Key(pane.keys[name], pane.keys[name]))

        def filed() -> bool:
            now = next(r for r in members.rows if r.member.name == name)
            return sid not in pane.sessions and now.sessions != row.sessions

        await until(filed)
        out["file_one"] = time.perf_counter() - t0
        await self.idle()
        out.update({k: float(v) for k, v in calls.items()})
        with open(os.environ["VIVA_PROBE_OUT"], "w") as report:
            report.write(json.dumps(out) + "\n")
            report.write(f"QUIT {time.time()}\n")
        self.post_message(events.Key("q", "q"))


viva_app.VivaApp = Probe  # type: ignore[misc]  # the command opens this class
sys.argv = ["viva"]
cli.main()
