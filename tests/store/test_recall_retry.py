"""A query FTS5 refuses (a token its older Unicode table would split) is searched again
by its pieces, once; any other failure reaches the caller."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from tests.store.recall_fixtures import NOW, PLANTED, build_history
from viva_store.recall import search
from viva_store.store import Context

SPLIT = "\U0001e900"  # a letter of a Unicode version newer than FTS5's table


def _refuse_first(monkeypatch: pytest.MonkeyPatch, message: str) -> list[tuple[str, ...]]:
    """Make the first candidate search fail with ``message``; return the tokens searched."""
    real = search._candidates
    seen: list[tuple[str, ...]] = []

    def candidates(conn: Any, plan: Any, sql: Any, params: dict[str, Any], *rest: Any) -> Any:
        seen.append(tuple(str(v) for k, v in sorted(params.items()) if k == "fts_q"))
        if len(seen) == 1:
            raise OperationalError("MATCH", {}, Exception(message))
        return real(conn, plan, sql, params, *rest)

    monkeypatch.setattr(search, "_candidates", candidates)
    return seen


def test_a_refused_token_is_searched_by_its_pieces(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if ctx.store.engine.dialect.name != "sqlite":
        pytest.skip("FTS5 is SQLite's; PostgreSQL parses the tokens itself")
    monkeypatch.setenv("VIVA_NOW", NOW.isoformat())
    history = build_history(ctx, tmp_path / "claude")
    word = PLANTED.split()[0]
    seen = _refuse_first(monkeypatch, "fts5: syntax error near ...")
    result = search.recall(ctx, f"{word}{SPLIT}{word}")
    assert len(seen) == 2 and seen[0] != seen[1]
    assert history["d-planted"] in {h.session_id for h in result.hits}


def test_another_failure_is_not_retried(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    if ctx.store.engine.dialect.name != "sqlite":
        pytest.skip("FTS5 is SQLite's")
    seen = _refuse_first(monkeypatch, "disk I/O error")
    with pytest.raises(OperationalError):
        search.recall(ctx, "anything")
    assert len(seen) == 1
