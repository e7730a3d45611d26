"""The app's tests run on the demo store: real harness files, the real importer.

The demo is built once per session (``VIVA_NOW`` frozen) and copied for each test,
so a test may change its store freely. A few principle candidates are added through
the principles services (the coordinator proposes, the owner decides), so the
Principles pane has a queue and a history to show.
"""

from __future__ import annotations

import gc
import os
import shutil
import time
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest

from viva_store import clock
from viva_store.access import OWNER, Actor
from viva_store.config import load_config
from viva_store.demo.service import build_demo
from viva_store.principles.decide import approve, defer
from viva_store.principles.propose import propose
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.store import Context, Store
from viva_tui.app import VivaApp

NOW = "2026-03-02T12:00:00+00:00"
SIZE = (160, 48)
SAMUEL = Actor(member="samuel", grant_id="tests")
TEXT_V1 = "Run the whole test suite before asking for review."
TEXT_V2 = "Run the whole test suite and ruff before asking for review."
TEXT_V3 = "Run the whole test suite, ruff and mypy before asking for review."
PENDING_ALICE = "Write the failing test first, then the fix."
PENDING_OLIVER = "Prove a backup by restoring it, not by its exit code."
DEFERRED_VICTOR = "Keep every backtest's random seed in its report."


def _at(text: str) -> datetime:
    return clock.parse_instant(text)


def _seed_principles(ctx: Context) -> None:
    """Two approved versions of deven's principle and a third proposed; two more pending,
    one deferred."""
    samuel = ctx.as_actor(SAMUEL)
    # Evidence must be sessions the proposer can see: samuel's own.
    cited = [s.id for s in list_sessions(samuel, SessionFilter(member="samuel", limit=3))]
    with clock.frozen(_at("2026-02-17T09:00:00Z")):
        first = propose(samuel, "deven", TEXT_V1, "Two reviews bounced on red tests.",
                        cited[:1])  # fmt: skip
    with clock.frozen(_at("2026-02-17T18:00:00Z")):
        approve(ctx, first.id)
    with clock.frozen(_at("2026-02-24T09:00:00Z")):
        second = propose(samuel, "deven", TEXT_V2, "Lint failures cost a review round too.",
                         cited[1:2], replaces=first.principle_id)  # fmt: skip
    with clock.frozen(_at("2026-02-24T18:00:00Z")):
        approve(ctx, second.id)
    with clock.frozen(_at("2026-03-02T08:00:00Z")):
        propose(samuel, "deven", TEXT_V3, "Type errors reached review twice.",
                cited[:1], replaces=first.principle_id)  # fmt: skip
    with clock.frozen(_at("2026-03-02T09:00:00Z")):
        propose(samuel, "alice", PENDING_ALICE, "Three fixes this week had no regression test.",
                cited[1:3])  # fmt: skip
        propose(samuel, "oliver", PENDING_OLIVER, "A backup job succeeded on an empty volume.")
        late = propose(samuel, "victor", DEFERRED_VICTOR, "Two backtests could not be re-run.")
        defer(ctx, late.id)


def open_context(home: Path) -> Context:
    """The owner's context on the store in ``home``."""
    config = load_config({"VIVA_HOME": str(home)})
    return Context(Store.open(config), OWNER)


@pytest.fixture(autouse=True)
def _collections_start_small() -> None:
    """Free what the previous test left, then freeze what survives.

    Each test leaves an app's worth of cyclic garbage, and each full collection scans
    every object the session has gathered (modules, styles, caches): without this, the
    collector took about a third of these tests' CPU time.
    """
    gc.collect()
    gc.freeze()


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo store, built once per test session."""
    home = tmp_path_factory.mktemp("demo-template") / "home"
    saved = os.environ.get("VIVA_NOW")
    os.environ["VIVA_NOW"] = NOW
    try:
        build_demo(home, now=_at(NOW))
        ctx = open_context(home)
        _seed_principles(ctx)
        ctx.store.close()
    finally:
        if saved is None:
            os.environ.pop("VIVA_NOW", None)
        else:
            os.environ["VIVA_NOW"] = saved
    return home


@pytest.fixture
def demo_home(demo_template: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of the demo store; the clock frozen, times shown in UTC."""
    home = tmp_path / "demo"
    shutil.copytree(demo_template, home)
    config = home / "config.toml"
    config.write_text(config.read_text().replace(str(demo_template), str(home)))
    monkeypatch.setenv("VIVA_HOME", str(home))
    monkeypatch.setenv("VIVA_NOW", NOW)
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    return home


@pytest.fixture
def demo_ctx(demo_home: Path) -> Iterator[Context]:
    """The owner's context on the copied demo store."""
    ctx = open_context(demo_home)
    try:
        yield ctx
    finally:
        ctx.store.close()


@pytest.fixture
def app(demo_ctx: Context) -> VivaApp:
    """The app on the demo store."""
    return VivaApp(demo_ctx)
