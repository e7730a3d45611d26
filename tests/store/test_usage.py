"""Usage: every grouping adds up to the sessions' stored tokens; scope, filters, prices."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import delete, insert

from tests.store_templates import load_shipped_team
from viva_store.db.schema import ATTRIBUTION, SESSION, USAGE
from viva_store.errors import AccessDenied, InvalidInput, NotFound
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.store import Context, Store
from viva_store.usage.grouping import GROUPINGS, UNKNOWN_MODEL, SessionUsage, group, total
from viva_store.usage.prices import cost_of, parse_prices
from viva_store.usage.records import TOKEN_KINDS, Tokens
from viva_store.usage.service import usage

START = datetime(2026, 10, 1, tzinfo=UTC)
MEMBERS = ("deven", "alice")
counts = st.integers(min_value=0, max_value=10**9)
tokens = st.builds(Tokens, counts, counts, counts, counts, counts)


@st.composite
def sessions(draw: st.DrawFn) -> list[dict[str, Any]]:
    """Sessions with usage rows per model; the stored totals are the rows' sum, or more
    (what a harness reported for the session without a per-response row)."""
    out = []
    for i in range(draw(st.integers(min_value=0, max_value=8))):
        rows = draw(st.lists(st.tuples(st.sampled_from(["m1", "m2", None]), tokens), max_size=4))
        summed = sum((t for _, t in rows), Tokens())
        out.append(
            {
                "id": f"s{i}",
                "started_at": draw(
                    st.none()
                    | st.integers(0, 60 * 24 * 30).map(lambda m: START + timedelta(minutes=m))
                ),
                "project": draw(st.sampled_from([None, "viva", "shop"])),
                "branch": draw(st.sampled_from([None, "main", "wip"])),
                "harness": draw(st.sampled_from(["claude-code", "codex"])),
                "member": draw(st.sampled_from([None, *MEMBERS])),
                "usage": rows,
                "tokens": summed + draw(st.sampled_from([Tokens(), Tokens(5, 0, 0, 0, 1)])),
            }
        )
    return out


def _session_usage(s: dict[str, Any]) -> SessionUsage:
    return SessionUsage(
        s["id"],
        s["started_at"],
        s["project"],
        s["branch"],
        s["harness"],
        s["member"],
        s["tokens"],
        tuple(s["usage"]),
    )


def _stored_sum(found: list[dict[str, Any]]) -> Tokens:
    return sum((s["tokens"] for s in found), Tokens())


@settings(max_examples=200, deadline=None)
@given(sessions())
def test_every_grouping_adds_up_to_the_stored_totals(found: list[dict[str, Any]]) -> None:
    rows = [_session_usage(s) for s in found]
    for by in GROUPINGS:
        groups = group(rows, by)
        assert sum((g.tokens for g in groups.values()), Tokens()) == _stored_sum(found)
        assert len(total(groups.values()).sessions) == len(found)
        if by != "model":  # a session is in exactly one group
            assert sum(len(g.sessions) for g in groups.values()) == len(found)


def _write(ctx: Context, found: list[dict[str, Any]]) -> None:
    def work(conn: Any) -> None:
        for s in found:
            t: Tokens = s["tokens"]
            conn.execute(
                insert(SESSION).values(
                    id=s["id"],
                    harness=s["harness"],
                    native_id=s["id"],
                    models=[],
                    project=s["project"],
                    git_branch=s["branch"],
                    started_at=s["started_at"],
                    imported_at=START,
                    updated_at=START,
                    **{f"{k}_tokens": n for k, n in zip(TOKEN_KINDS, t.counts(), strict=True)},
                )
            )
            for n, (model, part) in enumerate(s["usage"]):
                conn.execute(
                    insert(USAGE).values(
                        harness=s["harness"],
                        usage_key=f"{s['id']}:{n}",
                        session_id=s["id"],
                        model=model,
                        **{
                            f"{k}_tokens": v
                            for k, v in zip(TOKEN_KINDS, part.counts(), strict=True)
                        },
                    )
                )
            if s["member"] is not None:
                conn.execute(
                    insert(ATTRIBUTION).values(
                        session_id=s["id"], status="attributed", member=s["member"], source="t"
                    )
                )

    ctx.store.write(work)


def _clear(ctx: Context) -> None:
    def work(conn: Any) -> None:
        for table in (USAGE, ATTRIBUTION, SESSION):
            conn.execute(delete(table))

    ctx.store.write(work)


@pytest.fixture
def team(ctx: Context) -> Iterator[Context]:
    load_shipped_team(ctx)
    yield ctx


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(found=sessions())
def test_the_store_totals_equal_the_sessions_stored_tokens(
    team: Context, found: list[dict[str, Any]]
) -> None:
    """Through the real queries, on each engine: every grouping, the owner and a member."""
    _clear(team)
    _write(team, found)
    deven = team.as_actor(resolve_actor(team.store, issue_grant(team, "deven").token))
    for by in GROUPINGS:
        report = usage(team, by=by)
        assert sum((r.tokens for r in report.rows), Tokens()) == _stored_sum(found)
        assert report.total.tokens == _stored_sum(found)
        assert report.total.sessions == len(found)
        mine = [s for s in found if s["member"] == "deven"]
        as_deven = usage(deven, by=by)
        assert as_deven.total.tokens == _stored_sum(mine)
        assert as_deven.total.sessions == len(mine)


def test_since_member_and_keys(team: Context) -> None:
    t = Tokens(10, 20, 30, 40, 5)
    base = {
        "project": "viva",
        "branch": "main",
        "harness": "codex",
        "usage": [("m1", t)],
        "tokens": t,
    }
    found = [
        {**base, "id": "a", "started_at": START, "member": "deven"},
        {**base, "id": "b", "started_at": START + timedelta(days=8), "member": "alice"},
        {**base, "id": "c", "started_at": None, "member": None, "project": None},
    ]
    _write(team, found)
    assert [r.key for r in usage(team, by="project").rows] == ["(none)", "viva"]
    assert [r.key for r in usage(team, by="member").rows] == ["(unattributed)", "alice", "deven"]
    weeks = usage(team, by="week").rows
    assert [r.key for r in weeks] == ["(undated)", "2026-W40", "2026-W41"]
    later = usage(team, by="day", since=START + timedelta(days=1))
    assert [(r.key, r.sessions) for r in later.rows] == [("2026-10-09", 1)]
    only = usage(team, by="harness", member="alice")
    assert only.total.sessions == 1 and only.member == "alice"
    deven = team.as_actor(resolve_actor(team.store, issue_grant(team, "deven").token))
    assert [r.key for r in usage(deven, by="member").rows] == ["deven"]
    with pytest.raises(AccessDenied):
        usage(deven, member="alice")
    with pytest.raises(NotFound):
        usage(team, member="nobody")
    with pytest.raises(InvalidInput, match="--by must be one of"):
        usage(team, by="month")


def test_prices_give_a_cost_only_when_every_token_has_one(team: Context) -> None:
    prices = parse_prices(
        {"m1": {"input": 2.0, "output": 10.0, "cache_read": 0.5, "cache_write": 1}}
    )
    assert cost_of("m1", Tokens(1_000_000, 100_000, 0, 0, 7), prices) == pytest.approx(3.0)
    assert cost_of("m1", Tokens(0, 0, 0, 0, 0), prices) == 0.0
    assert cost_of("m2", Tokens(1, 0, 0, 0, 0), prices) is None
    partial = parse_prices({"m1": {"input": 1.0}})
    assert cost_of("m1", Tokens(1, 1, 0, 0, 0), partial) is None
    with pytest.raises(InvalidInput, match="unknown kind"):
        parse_prices({"m1": {"inputs": 1.0}})
    with pytest.raises(InvalidInput, match="must be a number"):
        parse_prices({"m1": {"input": "cheap"}})
    t = Tokens(1_000_000, 0, 0, 0, 0)
    _write(
        team,
        [
            {
                "id": "a",
                "started_at": START,
                "project": "p",
                "branch": None,
                "harness": "codex",
                "member": None,
                "usage": [("m1", t)],
                "tokens": t,
            },
            {
                "id": "b",
                "started_at": START,
                "project": "q",
                "branch": None,
                "harness": "codex",
                "member": None,
                "usage": [("m2", t)],
                "tokens": t,
            },
        ],
    )
    priced = replace(team.store.config, raw={"prices": {"m1": {"input": 2.5, "output": 1}}})
    priced_ctx = Context(Store(team.store.engine, priced), team.actor)
    report = usage(priced_ctx, by="model")
    assert {r.key: r.cost for r in report.rows} == {"m1": 2.5, "m2": None}
    assert report.total.cost is None  # part of it has no price: no total, never a guess
    assert {r.key: r.cost for r in usage(priced_ctx, by="project").rows} == {"p": 2.5, "q": None}


def test_an_unknown_model_takes_what_usage_rows_do_not_account_for() -> None:
    s = SessionUsage(
        "x",
        None,
        None,
        None,
        "codex",
        None,
        Tokens(9, 9, 0, 0, 0),
        (("m1", Tokens(4, 9, 0, 0, 0)),),
    )
    groups = group([s], "model")
    assert groups["m1"].tokens == Tokens(4, 9, 0, 0, 0)
    assert groups[UNKNOWN_MODEL].tokens == Tokens(5, 0, 0, 0, 0)
