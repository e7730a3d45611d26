"""Session labels and title overrides: append-only events, derived state, access."""

from __future__ import annotations

import json
import random
import string
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import select, update

from tests.cli.runner import run
from viva_store.db.schema import SESSION_LABEL
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.errors import InvalidInput, NotFound
from viva_store.importing.pipeline import run_import
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.sessions.service import (
    SessionFilter,
    get_session,
    label_session,
    list_sessions,
)
from viva_store.store import Context
from viva_store.triage.classify import classify

MINE = "1abe1000-0000-4000-8000-000000000001"
THEIRS = "1abe1000-0000-4000-8000-000000000002"


@pytest.fixture
def two(ctx: Context, tmp_path: Path) -> Context:
    """Two sessions, deven's and samuel's."""
    root = tmp_path / "claude"
    for n, native in enumerate((MINE, THEIRS)):
        start = datetime(2026, 6, 1 + n, 9, tzinfo=UTC)
        spec = SessionSpec(native, "/src/x", start, (Turn("go", "ok"),), "m", title="own title")
        claude_code(root, spec)
    for _ in run_import(ctx, ["claude-code"], {"claude-code": str(root)}):
        pass
    classify(ctx, [MINE], "deven")
    classify(ctx, [THEIRS], "samuel")
    return ctx


def test_labels_and_a_title_are_derived_from_the_log(two: Context) -> None:
    label_session(two, MINE, "needs review")
    label_session(two, MINE, "flaky")
    done = label_session(two, MINE, "needs review", "unlabel")
    assert done.labels == ("flaky",)
    label_session(two, MINE, "  The   cart   refactor ", "title")
    shown = get_session(two, MINE)
    assert (shown.title, shown.labels) == ("The cart refactor", ("flaky",))
    listed = {s.native_id: s for s in list_sessions(two, SessionFilter())}
    assert listed[MINE].title == "The cart refactor" and listed[THEIRS].title == "own title"
    label_session(two, MINE, "", "title")  # back to the harness's title
    assert get_session(two, MINE).title == "own title"
    kinds = two.store.read(
        lambda c: list(
            c.execute(select(SESSION_LABEL.c.kind).order_by(SESSION_LABEL.c.id)).scalars()
        )
    )
    assert kinds == ["label", "label", "unlabel", "title", "title"]


def test_the_log_is_append_only(two: Context) -> None:
    label_session(two, MINE, "keep")
    with pytest.raises(Exception, match=r"append-only|not allowed"):
        two.store.write(lambda c: c.execute(update(SESSION_LABEL).values(text="changed")))
    assert get_session(two, MINE).labels == ("keep",)


def test_bad_labels_are_refused(two: Context) -> None:
    with pytest.raises(InvalidInput, match="needs some text"):
        label_session(two, MINE, "   ")
    with pytest.raises(InvalidInput, match="no label"):
        label_session(two, MINE, "never added", "unlabel")
    with pytest.raises(InvalidInput, match="at most"):
        label_session(two, MINE, "x" * 81)


def test_a_label_is_redacted_before_it_is_stored(two: Context) -> None:
    secret = "ghp_" + "".join(random.choices(string.ascii_letters + string.digits, k=36))
    done = label_session(two, MINE, f"token {secret}")
    assert secret not in done.text and "[REDACTED:" in done.text
    stored = two.store.read(lambda c: list(c.execute(select(SESSION_LABEL.c.text)).scalars()))
    assert all(secret not in text for text in stored)


def test_a_member_labels_only_its_own(two: Context) -> None:
    deven = two.as_actor(resolve_actor(two.store, issue_grant(two, "deven").token))
    assert label_session(deven, MINE, "mine").labels == ("mine",)
    with pytest.raises(NotFound):
        label_session(deven, THEIRS, "not mine")
    assert get_session(two, THEIRS).labels == ()


def test_the_cli_labels_and_refuses_in_one_line(two: Context, cli_env: str) -> None:
    result = run(["session", "label", MINE, "triaged", "--json"])
    assert result.code == 0, result.err
    assert json.loads(result.out)["labels"] == ["triaged"]
    assert "labels: triaged" in run(["session", "show", MINE]).out
    both = run(["session", "label", MINE, "x", "--title", "--remove"])
    assert both.code == 2 and len(both.err.strip().splitlines()) == 1
    missing = run(["session", "label", MINE, "gone", "--remove"])
    assert missing.code == 1 and len(missing.err.strip().splitlines()) == 1
