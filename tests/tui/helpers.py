"""Waiting for the app to finish its background work, and reading its state."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

from textual.app import App
from textual.pilot import Pilot
from textual.worker import WorkerCancelled

T = TypeVar("T")


async def settle(pilot: Pilot[None], timeout: float = 20.0) -> None:
    """Wait until no worker runs and debounce timers (≤ 0.3 s) have fired, twice over."""
    app = pilot.app
    idle = 0
    waited = 0.0
    while idle < 2 and waited < timeout:
        await pilot.pause(0.35)
        waited += 0.35
        running = [w for w in app.workers if w.is_running]
        building = not getattr(app.screen_stack[0], "panes_built", True)
        if building:
            idle = 0
        elif running:
            idle = 0
            # A newer request cancels an exclusive worker of its group: that is no failure.
            for worker in running:
                with contextlib.suppress(WorkerCancelled):
                    await worker.wait()
        else:
            idle += 1
    await pilot.pause()


def drive(
    app: App[None], script: Callable[[Pilot[None]], Awaitable[T]], size: tuple[int, int] = (160, 48)
) -> T:
    """Run ``app`` headless at ``size`` and return what ``script(pilot)`` returns.

    (No asyncio plugin is installed; each test drives its own event loop.)
    """

    async def main() -> T:
        async with app.run_test(size=size) as pilot:
            return await script(pilot)

    return asyncio.run(main())
