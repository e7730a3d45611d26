"""Recall narrowed by harness, project and time, in every walk, on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update

from tests.store.recall_fixtures import NOW, as_member
from viva_store.db.schema import SESSION
from viva_store.recall import search
from viva_store.recall.records import RecallFilter
from viva_store.recall.search import recall
from viva_store.store import Context

ORDERS = ("rank", "newest")


@pytest.fixture
def history(ctx: Context, recall_history: dict[str, str]) -> dict[str, str]:
    """The recall history with the unattributed session made a Codex one."""
    sid = recall_history["u-queue"]
    ctx.store.write(
        lambda c: c.execute(update(SESSION).where(SESSION.c.id == sid).values(harness="codex"))
    )
    return recall_history


def found(ctx: Context, query: str, order: str, **flt: object) -> set[str]:
    result = recall(ctx, query, limit=50, order=order, flt=RecallFilter(**flt))  # type: ignore[arg-type]
    assert result.items == ()  # skills and principles have no harness, project or time
    return {h.session_id for h in result.hits}


@pytest.fixture(params=[True, False], ids=["fast-walks", "sorting-every-match"])
def walks(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """The filters hold in the bounded and windowed walks and in the plain statement."""
    monkeypatch.setattr(search, "BOUNDED", request.param)
    monkeypatch.setattr(search, "WINDOWS", request.param)


@pytest.mark.parametrize("order", ORDERS)
def test_harness_filter(ctx: Context, history: dict[str, str], order: str, walks: None) -> None:
    assert found(ctx, "cache", order, harness="codex") == {history["u-queue"]}
    assert found(ctx, "cache", order, harness="claude-code") == set(history.values()) - {
        history["u-queue"]
    }
    assert found(ctx, "cache", order, harness="gemini") == set()


@pytest.mark.parametrize("order", ORDERS)
def test_project_filter(ctx: Context, history: dict[str, str], order: str, walks: None) -> None:
    viva = {history["d-planted"], history["d-recent"], history["a-private"]}
    assert found(ctx, "cache", order, project="/work/viva") == viva
    assert found(ctx, "feed", order, project="/work/viva") == set()  # title and message both
    assert found(ctx, "feed", order, project="/work/trader") == {history["d-other-project"]}
    deven = as_member(ctx, "deven")
    assert {
        h.session_id
        for h in recall(deven, "cache", order=order, flt=RecallFilter(project="/work/viva")).hits
    } == {history["d-planted"], history["d-recent"]}


@pytest.mark.parametrize("order", ORDERS)
def test_since_filter(ctx: Context, history: dict[str, str], order: str, walks: None) -> None:
    recent = found(ctx, "cache", order, since=NOW - timedelta(days=4))
    assert recent == {history["d-recent"], history["d-other-project"], history["a-private"]}
    assert found(ctx, "cache", order, since=NOW + timedelta(days=1)) == set()
    everything = found(ctx, "cache", order, since=NOW - timedelta(days=400))
    assert everything == set(history.values())


def test_filters_combine_with_the_member_and_its_scope(
    ctx: Context, history: dict[str, str]
) -> None:
    week = NOW - timedelta(days=7)
    owner = recall(ctx, "cache", member="deven", flt=RecallFilter(project="/work/viva", since=week))
    assert [h.session_id for h in owner.hits] == [history["d-recent"]]
    alice = as_member(ctx, "alice")
    hers = recall(alice, "cache", flt=RecallFilter(harness="claude-code", since=week)).hits
    assert [h.session_id for h in hers] == [history["a-private"]]
    assert recall(alice, "cache", flt=RecallFilter(harness="codex")).hits == ()
