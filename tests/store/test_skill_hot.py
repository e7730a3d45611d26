"""The hot path of a use: the DBAPI transaction, and the Core path it hands over to."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import DateTime, func, select
from sqlalchemy.dialects import sqlite

from tests.store.test_skillset_support import (
    T0,
    Axis,
    assert_cache_is_a_rebuild,
    set_born,
    skills,
)
from viva_store.db.raw import NeedsCore, RawTx
from viva_store.db.schema import SKILL_EVENT
from viva_store.skills.credit import append_event
from viva_store.skills.events import _sqlite_datetime
from viva_store.skills.uses import record_use
from viva_store.store import Context


@pytest.fixture
def deven(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> Axis:
    set_born(ctx, T0 - timedelta(days=90))
    return Axis(ctx, monkeypatch, "deven", timedelta(hours=1))


def used(ctx: Context) -> int:
    query = select(func.count()).select_from(SKILL_EVENT).where(SKILL_EVENT.c.kind == "used")
    return int(ctx.store.read(lambda c: c.execute(query).scalar_one()))


def test_the_sqlite_datetime_text_is_sqlalchemys() -> None:
    dialect = sqlite.dialect()
    general = DateTime(timezone=True).dialect_impl(dialect).bind_processor(dialect)
    assert general is not None
    fast = _sqlite_datetime(general)
    for value in (
        datetime(1, 1, 1),
        datetime(2030, 1, 7, 9, 0, tzinfo=UTC),
        datetime(2030, 1, 7, 9, 0, 5, 17, tzinfo=UTC),
        datetime(999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-5))),
    ):
        assert fast(value) == general(value)


def test_uses_by_id_by_native_id_and_by_prefix_are_one_use_per_session(deven: Axis) -> None:
    ctx = deven.ctx
    [first, second] = deven.advance(2)
    # Viva's id and the harness's id are looked up in the DBAPI transaction; a prefix goes
    # through the Core path (the session service's resolution): the same rules either way.
    assert record_use(ctx, "deven", "code-review", "success", session=second).credited
    assert not record_use(ctx, "deven", "code-review", "failure", session=second).credited
    assert record_use(ctx, "deven", "code-review", "failure", session=first + "-native").credited
    assert not record_use(ctx, "deven", "code-review", "success", session=first + "-na").credited
    assert record_use(ctx, "deven", "sqlite-migrations", "success", session=first + "-na").credited
    assert used(ctx) == 3
    assert skills(ctx, "deven")["code-review"].uses == 2
    assert_cache_is_a_rebuild(ctx)


def test_a_failed_dbapi_transaction_writes_nothing(deven: Axis) -> None:
    ctx = deven.ctx
    deven.advance(1)

    def work(tx: RawTx) -> None:
        append_event(
            tx,
            member="deven",
            skill="code-review",
            kind="used",
            value=1.0,
            outcome="success",
            session_pos=1.0,
            day=0.0,
            at=ctx.store.now(),
            actor="owner",
        )
        raise NeedsCore("rolled back")

    with pytest.raises(NeedsCore):
        ctx.store.write_raw(work)
    assert used(ctx) == 0
    assert ctx.store.write_raw(lambda tx: 7) == 7  # the held connection is usable again
