"""What people type is redacted before disk and before printing: principle texts and
decisions, the engagement state, marks, imported skill bodies, and the errors that quote
what was typed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, Table, select

from tests.cli.runner import Result, run
from tests.redact.support import secret_of, survivors
from viva_store.db.schema import (
    ENGAGEMENT_EVENT,
    METADATA,
    PRINCIPLE_EVENT,
    PRINCIPLE_VERSION,
    RECALL_MARK,
)
from viva_store.redact import RULES_BY_ID, RULESET_VERSION
from viva_store.store import Context


@pytest.fixture
def history(recall_history: dict[str, str], cli_env: str) -> dict[str, str]:
    return recall_history


def _secrets() -> tuple[str, str]:
    return secret_of(RULES_BY_ID["github-pat"]), secret_of(RULES_BY_ID["npm-access-token"])


def _stored(ctx: Context) -> str:
    """Every value of every row of every table, as text."""

    def dump(conn: Connection) -> str:
        tables = METADATA.sorted_tables
        return "\n".join(repr(tuple(row)) for t in tables for row in conn.execute(select(t)))

    return ctx.store.read(dump)


def _on_disk(ctx: Context, home: Path) -> list[str]:
    """What of each secret survives anywhere the store keeps it: its rows on both engines,
    and on SQLite every byte under ``VIVA_HOME`` (database, WAL)."""
    found = [piece for secret in _secrets() for piece in survivors(secret, _stored(ctx))]
    for path in home.rglob("*") if home.exists() else ():
        if path.is_file():
            data = path.read_bytes().decode("latin-1")
            found += [f"{path.name}: {p}" for s in _secrets() for p in survivors(s, data)]
    return found


def _rows(ctx: Context, table: Table) -> list[Any]:
    return list(ctx.store.read(lambda c: c.execute(select(table.c.ruleset, table.c.note)).all()))


def _printed(*results: Result) -> list[str]:
    return [p for r in results for s in _secrets() for p in survivors(s, r.out + r.err)]


def _ok(*args: str) -> Result:
    result = run(args)
    assert result.code == 0, result.err
    return result


def test_principle_texts_and_decisions_are_redacted(
    history: dict[str, str], ctx: Context, tmp_path: Path
) -> None:
    gh, npm = _secrets()
    proposed = _ok(
        *("principle", "propose", "deven", "--text", f"use {gh} to deploy"),
        *("--rationale", f"it worked with {npm}", "--json"),
    )
    candidate = json.loads(proposed.out)
    assert "[REDACTED:github-pat]" in candidate["text"]
    assert "[REDACTED:npm-access-token]" in candidate["rationale"]
    approved = _ok(
        *("principle", "approve", candidate["id"], "--text", f"deploy with {npm}"),
        *("--note", f"ok {gh}"),
    )
    second = json.loads(
        _ok("principle", "propose", "deven", "--text", "another", "--rationale", "r", "--json").out
    )
    rejected = _ok("principle", "reject", second["id"], "--reason", f"leaks {gh}")
    shown = _ok("principle", "history", "deven", "--json")

    assert _printed(proposed, approved, rejected, shown) == []
    assert _on_disk(ctx, tmp_path / "home") == []
    versions = ctx.store.read(lambda c: c.execute(select(PRINCIPLE_VERSION.c.ruleset)).all())
    events = ctx.store.read(lambda c: c.execute(select(PRINCIPLE_EVENT.c.ruleset)).all())
    assert {v for (v,) in [*versions, *events]} == {RULESET_VERSION}


def test_engagement_state_and_marks_are_redacted(
    history: dict[str, str], ctx: Context, tmp_path: Path
) -> None:
    gh, npm = _secrets()
    state = _ok(
        *("state", "set", "deven", "--project", f"p {gh}", "--counterpart", npm),
        *("--activity", f"rotating {gh}", "--note", npm, "--json"),
    )
    got = _ok("state", "get", "deven", "--json")
    marked = _ok("mark", history["u-queue"], "--importance", "0.8", "--note", f"why {gh}")

    assert "[REDACTED:" in state.out
    assert _printed(state, got, marked) == []
    assert _on_disk(ctx, tmp_path / "home") == []
    for table in (ENGAGEMENT_EVENT, RECALL_MARK):
        rows = _rows(ctx, table)
        assert {r.ruleset for r in rows if "REDACTED" in (r.note or "")} == {RULESET_VERSION}


def test_a_grant_note_is_redacted(history: dict[str, str], ctx: Context, tmp_path: Path) -> None:
    gh, _ = _secrets()
    granted = _ok("grant", "deven", "--note", f"for the bot using {gh}")
    assert _printed(granted) == []
    assert _on_disk(ctx, tmp_path / "home") == []


def test_an_imported_skill_body_is_redacted(
    history: dict[str, str], ctx: Context, tmp_path: Path
) -> None:
    gh, _ = _secrets()
    folder = tmp_path / "library" / "leaky-skill"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        f"---\nname: leaky-skill\ndescription: Deploys with {gh}\n---\n"
        f"Run `deploy --token {gh}` and check the logs.\n",
        encoding="utf-8",
    )
    imported = _ok("skill", "import", str(folder.parent))
    shown = _ok("skill", "show", "leaky-skill")

    assert "[REDACTED:github-pat]" in shown.out and "check the logs" in shown.out
    assert _printed(imported, shown) == []
    assert _on_disk(ctx, tmp_path / "home") == []


@pytest.mark.parametrize(
    "args",
    [
        ["session", "show", "{npm}"],
        ["mark", "{npm}", "--importance", "0.5"],
        ["principle", "approve", "{gh}"],
        ["skill", "use", "deven", "x", "--outcome", "{gh}"],  # typer's own usage error
    ],
    ids=["session-ref", "mark-ref", "candidate-ref", "usage-error"],
)
def test_errors_never_echo_a_typed_secret(history: dict[str, str], args: list[str]) -> None:
    gh, npm = _secrets()
    result = run([a.format(gh=gh, npm=npm) for a in args])
    assert result.code in (1, 2)
    assert result.err.strip(), "the error is reported"
    assert "[REDACTED:" in result.err
    assert _printed(result) == []
