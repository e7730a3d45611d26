"""``viva skill ...`` and ``viva project`` as CLI.md promises: keys, one JSON document, errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest

from tests.cli.runner import Result, run
from tests.store.test_skillset_support import T0, insert_sessions, set_now
from viva_store.config import load_config
from viva_store.store import Context, Store


@pytest.fixture(autouse=True)
def _engine(cli_env: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The store is born well before the tests' clock: the trial month is over."""
    set_now(monkeypatch, T0 - timedelta(days=90))
    assert run(["init"]).code == 0
    set_now(monkeypatch, T0)
    yield


def ok(args: list[str]) -> Any:
    """Run a ``--json`` command that must succeed: its one JSON document."""
    result = run([*args, "--json"])
    assert result.code == 0, result.err
    return json.loads(result.out)  # exactly one document, nothing else on stdout


def refused(result: Result) -> str:
    """A refused command: exit 1, nothing on stdout, one line on stderr."""
    assert result.code == 1 and result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.err, result.err
    return lines[0]


def sessions(member: str, count: int, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    store = Store.open(load_config())
    try:
        starts = [T0 + timedelta(hours=k) for k in range(count)]
        ids = insert_sessions(Context(store), member, starts, member[:3])
    finally:
        store.close()
    set_now(monkeypatch, starts[-1] + timedelta(minutes=5))
    return ids


def grant(member: str, monkeypatch: pytest.MonkeyPatch) -> None:
    token = run(["grant", member]).out.strip()
    monkeypatch.setenv("VIVA_GRANT", token)


def test_skill_list_json_has_the_contract_keys() -> None:
    listed = ok(["skill", "list", "deven"])
    assert {s["name"]: s["status"] for s in listed} == {
        "code-review": "native",
        "python-refactoring": "native",
        "sqlite-migrations": "native",
    }
    for entry in listed:
        assert {"name", "weight", "track", "status", "last_used", "uses"} <= set(entry)
        assert entry["weight"] == 1.0 and entry["track"] == "session"


def test_add_use_history_curve_track_and_reclaim(monkeypatch: pytest.MonkeyPatch) -> None:
    added = ok(["skill", "add", "deven", "log-investigation"])
    assert (added["kind"], added["weight"]) == ("added", 1.0)
    message = refused(run(["skill", "add", "deven", "log-investigation"]))
    assert "already in deven's skill set" in message
    [first, second] = sessions("deven", 2, monkeypatch)
    used = ok(
        ["skill", "use", "deven", "log-investigation", "--outcome", "success", "--session", second]
    )
    assert used["credited"] and used["value"] == 1.0
    again = ok(
        ["skill", "use", "deven", "log-investigation", "--outcome", "success", "--session", second]
    )
    assert not again["credited"] and again["event_id"] == used["event_id"]
    listed = {s["name"]: s for s in ok(["skill", "list", "deven"])}
    assert listed["log-investigation"]["status"] == "protected"
    assert listed["log-investigation"]["uses"] == 1
    history = ok(["skill", "history", "deven"])
    assert [e["kind"] for e in history[:2]] == ["used", "added"]  # newest first
    assert history[0]["id"] > history[1]["id"]
    curve = ok(["skill", "curve", "deven", "log-investigation"])
    assert {"points", "marks", "projection", "crosses_at", "forget_due_at"} <= set(curve)
    assert [m[1] for m in curve["marks"]] == ["enter", "use"]
    assert curve["crosses_at"] > curve["a_now"]
    moved = ok(["skill", "track", "deven", "log-investigation", "time"])
    assert moved["track"] == "time"
    assert ok(["skill", "curve", "deven", "log-investigation"])["track"] == "time"
    message = refused(run(["skill", "reclaim", "deven", "log-investigation"]))
    assert "already" in message
    for usage in (
        ["skill", "track", "deven", "log-investigation", "sideways"],
        ["skill", "use", "deven", "code-review", "--outcome", "great"],
    ):
        wrong = run(usage)  # a usage error: typer's message, exit 2
        assert wrong.code == 2 and wrong.out == "" and "Traceback" not in wrong.err
    assert first


def test_project_json_explains_every_pick() -> None:
    projection = ok(["project", "deven", "--task", "review the sqlite migration"])
    assert {"skills", "not_picked", "principles", "candidates", "limit"} <= set(projection)
    picks = projection["skills"]
    assert 0 < len(picks) <= 10
    assert picks[0]["name"] in ("sqlite-migrations", "code-review")
    for pick in picks:
        assert {"name", "relevance", "weight", "rank", "reason"} <= set(pick)
    human = run(["project", "deven", "--task", "review the sqlite migration"])
    assert human.code == 0 and "sqlite-migrations" in human.out


def test_a_member_reads_and_records_for_itself_only(monkeypatch: pytest.MonkeyPatch) -> None:
    grant("deven", monkeypatch)
    shown = run(["skill", "show", "code-review"])
    assert shown.code == 0 and shown.out.strip()
    history = ok(["skill", "history", "deven"])
    assert history[0]["kind"] == "read" and history[0]["skill"] == "code-review"
    assert ok(["skill", "add", "deven", "log-investigation"])["kind"] == "added"
    message = refused(run(["skill", "list", "alice"]))
    assert "cannot" in message
    refused(run(["skill", "add", "alice", "log-investigation"]))
    refused(run(["skill", "use", "deven", "code-review", "--outcome", "corrected"]))


def test_unknown_names_are_one_line_errors() -> None:
    assert "no member" in refused(run(["skill", "list", "nobody"]))
    assert "no skill" in refused(run(["skill", "add", "deven", "no-such-skill"]))
    assert "no skill" in refused(run(["skill", "show", "no-such-skill"]))


def test_a_time_track_curve_speaks_in_dates(monkeypatch: pytest.MonkeyPatch) -> None:
    ok(["skill", "add", "deven", "log-investigation"])
    ok(["skill", "track", "deven", "log-investigation", "time"])
    curve = ok(["skill", "curve", "deven", "log-investigation"])
    now = datetime.fromisoformat(curve["now"])
    assert abs(now - T0) < timedelta(seconds=1)
    crosses = datetime.fromisoformat(curve["crosses_on"])
    days = timedelta(days=curve["crosses_at"] - curve["a_now"])
    assert abs(crosses - now - days) < timedelta(seconds=1)
    text = run(["skill", "curve", "deven", "log-investigation"]).out
    assert f"falls below 0.1 on {crosses.astimezone():%Y-%m-%d}" in text
    assert f"{int(curve['crosses_at'])}" not in text  # no day counts since 1970
    on_sessions = ok(["skill", "curve", "deven", "code-review"])
    assert (on_sessions["now"], on_sessions["crosses_on"]) == (None, None)
