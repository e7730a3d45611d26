"""``viva principle ...`` and ``viva report weekly`` through the command line (CLI.md)."""

from __future__ import annotations

import json

import pytest

from tests.cli.runner import Result, run

DECISIONS = {
    "approve": lambda cid: ["principle", "approve", cid],
    "approve edited": lambda cid: ["principle", "approve", cid, "--text", "mine"],
    "reject": lambda cid: ["principle", "reject", cid, "--reason", "no"],
    "defer": lambda cid: ["principle", "defer", cid],
    "rollback": lambda cid: ["principle", "rollback", cid.split(".")[0], "--to", "1"],
    "retire": lambda cid: ["principle", "retire", cid.split(".")[0], "--reason", "old"],
}
QUEUE_KEYS = {"id", "member", "text", "rationale", "evidence", "proposed_by", "week", "status"}


@pytest.fixture(autouse=True)
def _engine(cli_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every CLI test runs on the engine under test, in 2026-W48."""
    monkeypatch.setenv("VIVA_NOW", "2026-11-24T10:00:00Z")


def ok(args: list[str]) -> Result:
    result = run(args)
    assert result.code == 0, result.err
    return result


def refused(args: list[str]) -> Result:
    result = run(args)
    assert result.code == 1 and result.out == "", (result.out, result.err)
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.err
    return result


def as_grant(monkeypatch: pytest.MonkeyPatch, token: str | None) -> None:
    if token is None:
        monkeypatch.delenv("VIVA_GRANT", raising=False)
    else:
        monkeypatch.setenv("VIVA_GRANT", token)


def test_done_when_through_the_cli(monkeypatch: pytest.MonkeyPatch) -> None:
    grants = {m: ok(["grant", m]).out.strip() for m in ("samuel", "deven")}
    as_grant(monkeypatch, grants["samuel"])
    first = json.loads(
        ok(
            [
                "principle",
                "propose",
                "deven",
                "--text",
                "Run the tests before every commit.",
                "--rationale",
                "two broken builds",
                "--json",
            ]
        ).out
    )
    assert (first["member"], first["proposed_by"], first["week"]) == ("deven", "samuel", "2026-W48")
    as_grant(monkeypatch, None)
    queue = json.loads(ok(["principle", "queue", "--json"]).out)
    assert [c["id"] for c in queue] == [first["id"]] and set(queue[0]) >= QUEUE_KEYS

    for member in ("deven", "samuel"):
        as_grant(monkeypatch, grants[member])
        for name, args in DECISIONS.items():
            result = refused(args(first["id"]))
            assert "only the owner" in result.err, name
    as_grant(monkeypatch, None)
    assert json.loads(ok(["principle", "active", "deven", "--json"]).out) == []

    ok(["principle", "approve", first["id"], "--note", "agreed"])
    second = json.loads(
        ok(
            [
                "principle",
                "propose",
                "deven",
                "--replaces",
                first["principle_id"],
                "--text",
                "Run the fast tests before a commit.",
                "--rationale",
                "slow suite",
                "--json",
            ]
        ).out
    )
    assert second["replaces_version"] == 1
    ok(["principle", "approve", second["id"]])
    assert [
        p["version"] for p in json.loads(ok(["principle", "active", "deven", "--json"]).out)
    ] == [2]
    ok(["principle", "rollback", first["principle_id"], "--to", "1"])
    active = json.loads(ok(["principle", "active", "deven", "--json"]).out)
    assert [(p["version"], p["text"]) for p in active] == [
        (1, "Run the tests before every commit.")
    ]

    history = json.loads(ok(["principle", "history", "deven", "--json"]).out)
    assert [(e["action"], e["version"]) for e in history if e["action"] != "proposed"] == [
        ("approved", 1),
        ("approved", 2),
        ("rolled_back", 1),
    ]
    human = ok(["principle", "history", "deven"]).out
    assert "rolled back" in human and first["principle_id"] in human


def test_reject_without_reason_and_stale_approval_are_refused() -> None:
    def propose(text: str, *extra: str) -> dict[str, object]:
        args = ["principle", "propose", "alice", "--text", text, "--rationale", "r", *extra]
        return json.loads(ok([*args, "--json"]).out)

    cand = propose("Test the edges.")
    assert "reason is required" in refused(["principle", "reject", str(cand["id"])]).err
    assert (
        "reason is required"
        in refused(["principle", "reject", str(cand["id"]), "--reason", " "]).err
    )
    ok(["principle", "approve", str(cand["id"])])
    pid = str(cand["principle_id"])
    a, b = propose("Edges first.", "--replaces", pid), propose("Edges always.", "--replaces", pid)
    ok(["principle", "approve", str(a["id"])])
    queue = json.loads(ok(["principle", "queue", "--json"]).out)
    assert [(c["id"], c["stale"]) for c in queue] == [(b["id"], True)]
    err = refused(["principle", "approve", str(b["id"])]).err
    assert "stale" in err and "--replaces" in err
    assert "(stale)" in ok(["principle", "queue"]).out


def test_batch_and_queue_by_week(monkeypatch: pytest.MonkeyPatch) -> None:
    samuel = ok(["grant", "samuel"]).out.strip()
    as_grant(monkeypatch, samuel)
    for text in ("Write runbooks.", "write runbooks"):
        ok(["principle", "propose", "oliver", "--text", text, "--rationale", "r"])
    made = json.loads(ok(["principle", "batch", "--json"]).out)
    assert made["summary"] == "2026-W48: 1 candidate for 1 member (oliver 1), 1 duplicate merged."
    assert made["entries"] == []  # samuel may not read oliver's candidates
    assert "nothing new" in ok(["principle", "batch"]).out
    as_grant(monkeypatch, None)
    queue = json.loads(ok(["principle", "queue", "--json"]).out)
    assert len(queue) == 1 and queue[0]["batch_id"] == made["id"] and len(queue[0]["merged"]) == 1
    assert made["id"] in ok(["principle", "queue"]).out
    assert run(["principle", "batch", "--week", "48"]).code == 1


def test_json_output_is_one_document_and_errors_one_line() -> None:
    assert json.loads(ok(["principle", "queue", "--json"]).out) == []
    assert json.loads(ok(["principle", "history", "--json"]).out) == []
    assert "nobody" in refused(["principle", "active", "nobody"]).err
    both = run(["report", "weekly", "--json", "--markdown"])  # a usage error
    assert (both.code, both.out, both.err.count("\n")) == (2, "", 1)
    assert refused(["report", "weekly", "--week", "2026-W60"]).err


def test_history_shows_each_versions_wording_and_each_decisions_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    as_grant(monkeypatch, ok(["grant", "samuel"]).out.strip())
    propose = ["principle", "propose", "deven", "--rationale", "r", "--json"]
    first = json.loads(ok([*propose, "--text", "Small commits."]).out)
    as_grant(monkeypatch, None)
    ok(["principle", "reject", first["id"], "--reason", "too vague"])
    as_grant(monkeypatch, ok(["grant", "samuel"]).out.strip())
    second = json.loads(ok([*propose, "--text", "Commit after each green test run."]).out)
    as_grant(monkeypatch, None)
    ok(["principle", "approve", second["id"], "--text", "Commit after every green run."])
    rows = [r.split("\t") for r in ok(["principle", "history", "deven"]).out.splitlines()]
    said = [(r[4], r[6], r[7]) for r in rows]  # event, wording, reason
    assert ("proposed", "Small commits.", "") in said
    assert ("rejected", "Small commits.", "too vague") in said
    assert ("proposed", "Commit after each green test run.", "") in said
    assert ("approved", "Commit after every green run.", "") in said  # the owner's edit
