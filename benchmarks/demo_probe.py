"""One run of ``viva demo`` (its real command line) that reports when data is on screen.

Run by ``bench_demo.py`` in a pseudo-terminal of its own: it swaps the app class the
command opens for one that, once the Members pane's rows have their counts and the
screen has been drawn again, writes ``MEMBERS <wall-clock instant>`` to the file
``VIVA_PROBE_OUT`` names and quits.
"""

from __future__ import annotations

import asyncio
import os
import sys
import time
from typing import Any

import viva_tui.app as viva_app
from viva_tui import cli


class Probe(viva_app.VivaApp):
    def on_ready(self) -> None:
        # Textual calls VivaApp.on_ready too (it opens the store): only watch here.
        self._task = asyncio.get_running_loop().create_task(self.watch_rows())

    async def watch_rows(self) -> None:
        from viva_tui.widgets.members_pane import MembersPane

        members = self.screen_stack[0].query_one(MembersPane)
        rows: Any = members
        while not (rows.rows and rows.rows[0].sessions is not None):
            await asyncio.sleep(0.002)
        await asyncio.sleep(0)  # the refresh that draws them
        at = time.time()
        with open(os.environ["VIVA_PROBE_OUT"], "w") as report:
            report.write(f"MEMBERS {at}\n")
        self.exit()


viva_app.VivaApp = Probe  # type: ignore[misc]  # the command opens this class
sys.argv = ["viva", "demo"]
cli.main()
