"""The `viva usage` contract: JSON keys, totals as stored, a member's own, one-line errors."""

from __future__ import annotations

import json

import pytest
from sqlalchemy import func, select

from tests.cli.runner import run
from tests.cli.test_cli_recall import as_member, one_line_error
from viva_store.db.schema import ATTRIBUTION, SESSION
from viva_store.store import Context

KEYS = {"group", "sessions", "input", "output", "cache_read", "cache_write", "reasoning"}


@pytest.fixture
def history(recall_history: dict[str, str], cli_env: str) -> dict[str, str]:
    return recall_history


def _stored(ctx: Context, member: str | None = None) -> tuple[int, int]:
    """How many sessions (of ``member``) the store holds, and their input + output tokens."""
    query = select(func.count(), func.sum(SESSION.c.input_tokens + SESSION.c.output_tokens))
    if member is not None:
        query = query.join(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id).where(
            ATTRIBUTION.c.member == member
        )
    count, tokens = ctx.store.read(lambda c: c.execute(query).one())
    return int(count), int(tokens or 0)


@pytest.mark.parametrize("by", ["day", "week", "project", "branch", "model", "harness", "member"])
def test_usage_json_adds_up_to_the_stored_sessions(
    ctx: Context, history: dict[str, str], by: str
) -> None:
    result = run(["usage", "--by", by, "--json"])
    assert result.code == 0, result.err
    rows = json.loads(result.out)
    assert rows and all(set(row) == KEYS for row in rows)  # no cost: no [prices]
    sessions, tokens = _stored(ctx)
    assert sum(r["input"] + r["output"] for r in rows) == tokens > 0
    if by != "model":
        assert sum(r["sessions"] for r in rows) == sessions


def test_a_member_sees_only_its_own(
    ctx: Context, history: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    as_member(ctx, monkeypatch, "deven")
    rows = json.loads(run(["usage", "--by", "member", "--json"]).out)
    assert [r["group"] for r in rows] == ["deven"]
    assert rows[0]["sessions"] == _stored(ctx, "deven")[0]
    one_line_error(run(["usage", "--member", "alice"]), "deven", "alice")


def test_usage_table_and_since(history: dict[str, str]) -> None:
    table = run(["usage", "--by", "harness"])
    assert table.code == 0 and table.out.splitlines()[0].startswith("claude-code\t")
    assert table.out.splitlines()[-1].startswith("total\t")
    assert run(["usage", "--since", "2030-01-01"]).out == "no sessions since 2030-01-01\n"
    assert json.loads(run(["usage", "--since", "2030-01-01", "--json"]).out) == []


def test_usage_refuses_bad_input_in_one_line(history: dict[str, str]) -> None:
    one_line_error(run(["usage", "--by", "month"]), "--by", "month", code=2)
    one_line_error(run(["usage", "--since", "last Tuesday"]), "--since", code=2)
    one_line_error(run(["usage", "--member", "nobody"]), "nobody")
