"""One use in one write transaction: the session however it is named, and all or nothing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import func, select

from tests.store.test_skillset_support import (
    T0,
    Axis,
    assert_cache_is_a_rebuild,
    set_born,
    skills,
)
from viva_store.db.schema import SKILL_EVENT
from viva_store.skills import credit as skill_credit
from viva_store.skills.uses import record_use
from viva_store.store import Context


@pytest.fixture
def deven(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> Axis:
    set_born(ctx, T0 - timedelta(days=90))
    return Axis(ctx, monkeypatch, "deven", timedelta(hours=1))


def used(ctx: Context) -> int:
    query = select(func.count()).select_from(SKILL_EVENT).where(SKILL_EVENT.c.kind == "used")
    return int(ctx.store.read(lambda c: c.execute(query).scalar_one()))


def test_uses_by_id_by_native_id_and_by_prefix_are_one_use_per_session(deven: Axis) -> None:
    ctx = deven.ctx
    [first, second] = deven.advance(2)
    assert record_use(ctx, "deven", "code-review", "success", session=second).credited
    assert not record_use(ctx, "deven", "code-review", "failure", session=second).credited
    assert record_use(ctx, "deven", "code-review", "failure", session=first + "-native").credited
    assert not record_use(ctx, "deven", "code-review", "success", session=first + "-na").credited
    assert record_use(ctx, "deven", "sqlite-migrations", "success", session=first + "-na").credited
    assert used(ctx) == 3
    assert skills(ctx, "deven")["code-review"].uses == 2
    assert_cache_is_a_rebuild(ctx)
    # A use without a basis stores SQL NULL there, not JSON null.
    no_basis = select(func.count()).where(
        SKILL_EVENT.c.kind == "used", SKILL_EVENT.c.basis.is_(None)
    )
    assert ctx.store.read(lambda c: c.execute(no_basis).scalar_one()) == 3


def test_a_use_that_fails_after_its_event_writes_nothing(
    deven: Axis, monkeypatch: pytest.MonkeyPatch
) -> None:
    ctx = deven.ctx
    [session] = deven.advance(1)
    before = skills(ctx, "deven")["code-review"]

    def fold_fails(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the fold failed")

    fold = skill_credit.fold
    monkeypatch.setattr(skill_credit, "fold", fold_fails)  # after the event is appended
    with pytest.raises(RuntimeError, match="the fold failed"):
        record_use(ctx, "deven", "code-review", "success", session=session)
    assert used(ctx) == 0
    assert skills(ctx, "deven")["code-review"] == before
    monkeypatch.setattr(skill_credit, "fold", fold)
    assert record_use(ctx, "deven", "code-review", "success", session=session).credited
    assert used(ctx) == 1
