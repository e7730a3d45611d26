"""Two `viva skill use` processes at once: still one credited use per session, and a cache
that equals a rebuild.

Each use reads the pair's state, then writes the event and the folded cache row. Two
uses of one pair in one session that both read before either writes would both find no
credit and both fold into the same state: a second credited use, and a cache that lost
one. Every write transaction takes the store's write lock before it reads (SQLite's
``BEGIN IMMEDIATE``, PostgreSQL's advisory lock), so the second waits for the first's
commit and then finds its credit. Each test holds a use between its read and its write
until the other has read too — or, as the lock makes the other wait, for a moment.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

import pytest

from tests.store.test_skill_use import used
from tests.store.test_skillset_support import T0, Axis, assert_cache_is_a_rebuild, set_born, skills
from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.skills import credit as skill_credit
from viva_store.skills.credit import Credit
from viva_store.skills.uses import record_use
from viva_store.store import Context, Store

WAIT = 1.0  # seconds a use waits for the other to have read too


@pytest.fixture
def deven(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> Axis:
    set_born(ctx, T0 - timedelta(days=90))
    return Axis(ctx, monkeypatch, "deven", timedelta(hours=1))


def held(original: Callable[..., Any], barrier: threading.Barrier, *, after: bool) -> Any:
    """``original``, whose first call in each thread waits (after it returns, or before it
    runs) for the other thread's."""
    waited = threading.local()

    def wait() -> None:
        if not getattr(waited, "done", False):
            waited.done = True
            # Broken: the engine made the other use wait for this one's commit.
            with contextlib.suppress(threading.BrokenBarrierError):
                barrier.wait(WAIT)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not after:
            wait()
        out = original(*args, **kwargs)
        if after:
            wait()
        return out

    return wrapper


def race(config: Config, session: str) -> list[Credit]:
    """Two processes' worth of `viva skill use deven code-review --session ...` at once."""

    def one(_: int) -> Credit:
        store = Store.open(config)
        try:
            return record_use(Context(store, OWNER), "deven", "code-review", "success", session)
        finally:
            store.close()

    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(one, range(2)))


@pytest.mark.parametrize("named", ["by id", "by prefix"])
def test_two_uses_at_once_credit_one(
    deven: Axis, config: Config, monkeypatch: pytest.MonkeyPatch, named: str
) -> None:
    [session] = deven.advance(1)
    barrier = threading.Barrier(2)
    # Each use holds between its credit check (its read) and the event it appends.
    monkeypatch.setattr(
        skill_credit,
        "already_credited",
        held(skill_credit.already_credited, barrier, after=True),
    )
    credits = race(config, session if named == "by id" else session[:-2])
    assert sorted(c.credited for c in credits) == [False, True]
    assert len({c.event_id for c in credits}) == 1
    assert used(deven.ctx) == 1
    assert skills(deven.ctx, "deven")["code-review"].uses == 1
    assert_cache_is_a_rebuild(deven.ctx)
