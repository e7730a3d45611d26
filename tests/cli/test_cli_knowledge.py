"""The knowledge layer's scenario, end to end through ``viva`` on the engine under test.

A member proposes from its sessions with the "recurred" reason; the owner admits it as
project knowledge; only that project's tasks see it in ``viva brief``; another member's
task never sees the member's personal memory; a recorded use turns "recorded" into
"reused 1 time"; a retraction keeps the history; a dynamic fact is flagged at the gate.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from tests.cli.runner import Result, run
from tests.store.test_principles_support import make_sessions
from viva_store.db.schema import KNOWLEDGE_STATE
from viva_store.knowledge.state import rebuild
from viva_store.store import Context

LIST_KEYS = {"id", "member", "kind", "summary", "status", "reason", "sources", "uses",
             "importance", "project"}  # fmt: skip


@pytest.fixture(autouse=True)
def _engine(cli_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVA_NOW", "2026-11-24T10:00:00Z")


def ok(args: list[str]) -> Result:
    result = run(args)
    assert result.code == 0, result.err
    return result


def refused(args: list[str], words: str) -> str:
    result = run(args)
    assert result.code == 1 and result.out == "", (result.out, result.err)
    assert len(result.err.strip().splitlines()) == 1 and "Traceback" not in result.err
    assert words in result.err, result.err
    return result.err


def as_member(monkeypatch: pytest.MonkeyPatch, token: str | None) -> None:
    if token is None:
        monkeypatch.delenv("VIVA_GRANT", raising=False)
    else:
        monkeypatch.setenv("VIVA_GRANT", token)


def doc(args: list[str]) -> Any:
    return json.loads(ok([*args, "--json"]).out)


def brief_ids(member: str, task: str, project: str | None = None) -> set[str]:
    args = ["brief", member, "--task", task] + (["--project", project] if project else [])
    return {k["id"] for k in doc(args)["knowledge"]}


def test_the_knowledge_scenario(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = make_sessions(ctx, tmp_path / "claude", {"deven": 2, "alice": 1})
    d1, d2 = made["deven"]
    tokens = {m: ok(["grant", m]).out.strip() for m in ("deven", "alice")}

    as_member(monkeypatch, tokens["deven"])
    propose = ["knowledge", "propose", "deven", "--kind", "project_knowledge", "--summary",
               "The alpha deploy needs the cache flushed first", "--reason", "recurred",
               "--project", "alpha", "--from", d1]  # fmt: skip
    refused(propose, "'recurred' needs two sessions")
    item = doc([*propose, "--from", d2])
    assert set(item) >= LIST_KEYS and item["status"] == "candidate"
    assert item["reason"] == "recurred" and len(item["sources"]) == 2
    refused(["knowledge", "admit", item["id"]], "only the owner admits project_knowledge")
    assert brief_ids("deven", "deploy alpha", "alpha") == set()  # a candidate reaches no task

    as_member(monkeypatch, None)
    assert "recorded" in ok(["knowledge", "admit", item["id"]]).out
    as_member(monkeypatch, tokens["deven"])
    assert item["id"] in brief_ids("deven", "deploy alpha with the cache", "alpha")
    assert item["id"] not in brief_ids("deven", "deploy alpha with the cache", "beta")
    as_member(monkeypatch, tokens["alice"])
    assert item["id"] in brief_ids("alice", "deploy alpha with the cache", "alpha")
    assert item["id"] not in brief_ids("alice", "deploy alpha with the cache")

    as_member(monkeypatch, tokens["deven"])
    personal = doc(["knowledge", "propose", "deven", "--kind", "personal_memory", "--summary",
                    "I work best with the deploy checklist open", "--reason", "emphasised",
                    "--from", f"{d1}:1"])  # fmt: skip
    ok(["knowledge", "admit", personal["id"]])  # a member admits its own personal memory
    assert personal["id"] in brief_ids("deven", "the deploy checklist")
    as_member(monkeypatch, tokens["alice"])
    assert personal["id"] not in brief_ids("alice", "the deploy checklist")
    assert personal["id"] not in {r["id"] for r in doc(["knowledge", "list"])}
    refused(["knowledge", "show", personal["id"]], "no knowledge item")
    as_member(monkeypatch, None)  # nor when the owner asks for alice's task
    assert personal["id"] not in brief_ids("alice", "the deploy checklist", "alpha")

    as_member(monkeypatch, tokens["deven"])
    assert "reused 1 time" in ok(["knowledge", "use", item["id"], "--session", d2]).out
    assert "already recorded" in ok(["knowledge", "use", item["id"], "--session", d2]).out
    listed = {r["id"]: r for r in doc(["knowledge", "list", "--project", "alpha"])}
    assert listed[item["id"]]["uses"] == 1 and listed[item["id"]]["words"] == "reused 1 time"
    assert listed[personal["id"]]["words"] == "recorded"

    as_member(monkeypatch, None)
    refused(["knowledge", "retract", item["id"], "--reason", " "], "the reason is empty")
    ok(["knowledge", "retract", item["id"], "--reason", "the cache is gone since 2.0"])
    shown = doc(["knowledge", "show", item["id"]])
    assert shown["status"] == "retracted" and shown["uses"] == 1
    assert [e["action"] for e in shown["history"]] == ["proposed", "admitted", "used", "retracted"]
    assert shown["history"][-1]["reason"] == "the cache is gone since 2.0"
    as_member(monkeypatch, tokens["deven"])
    assert item["id"] not in brief_ids("deven", "deploy alpha with the cache", "alpha")

    dynamic = doc(["knowledge", "propose", "deven", "--kind", "personal_memory", "--summary",
                   "PR #42 is merged, so the deploy is unblocked", "--reason", "costly",
                   "--evidence", "took a day to find", "--from", d1])  # fmt: skip
    assert dynamic["flags"] == ["issue or PR status"]
    refused(["knowledge", "admit", dynamic["id"]], "states a live status")
    as_member(monkeypatch, None)
    refused(["knowledge", "admit", dynamic["id"]], "reword it")
    ok(["knowledge", "admit", dynamic["id"], "--note", "kept as the decision to unblock"])
    assert doc(["knowledge", "show", dynamic["id"]])["status"] == "admitted"
    assert_state_is_derived(ctx)


def assert_state_is_derived(ctx: Context) -> None:
    """``knowledge_state``, kept up at every event, equals a rebuild from the two logs."""

    def rows() -> list[tuple[Any, ...]]:
        query = select(KNOWLEDGE_STATE).order_by(KNOWLEDGE_STATE.c.item_id)
        return ctx.store.read(lambda c: [tuple(r) for r in c.execute(query)])

    kept = rows()
    assert len(kept) == 3 and {r[-2] for r in kept} == {"retracted", "admitted"}
    assert ctx.store.write(lambda c: rebuild(c, ctx)) == 3
    assert rows() == kept


def test_a_self_model_candidate_is_only_recorded(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (d1,) = make_sessions(ctx, tmp_path / "claude", {"deven": 1})["deven"]
    args = ["knowledge", "propose", "deven", "--kind", "self_model_candidate", "--summary",
            "I rush reviews late in the day", "--reason", "surprised", "--from", d1]  # fmt: skip
    refused(args, "needs --evidence")
    item = doc([*args, "--evidence", "two late reviews missed a bug; I judged them careful"])
    assert item["words"] == "recorded hypothesis"
    refused(["knowledge", "admit", item["id"]], "only ever recorded")
    assert item["id"] in brief_ids("deven", "review late in the day")
    assert item["id"] not in brief_ids("alice", "review late in the day")


def test_a_member_cites_only_its_own_sessions(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    made = make_sessions(ctx, tmp_path / "claude", {"deven": 1, "alice": 2})
    as_member(monkeypatch, ok(["grant", "deven"]).out.strip())
    base = ["knowledge", "propose", "deven", "--kind", "team_knowledge", "--summary", "x",
            "--reason", "recurred"]  # fmt: skip
    refused([*base, "--from", made["alice"][0], "--from", made["alice"][1]], "no session")
    refused([*base[:2], "alice", *base[3:], "--from", made["deven"][0]], "only for itself")
    as_member(monkeypatch, None)  # the owner: a personal memory comes from its member's sessions
    refused(["knowledge", "propose", "deven", "--kind", "personal_memory", "--summary", "x",
             "--reason", "costly", "--evidence", "e", "--from", made["alice"][0]],
            "deven's experience")  # fmt: skip


def test_review_brings_up_long_unused_items(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (d1,) = make_sessions(ctx, tmp_path / "claude", {"deven": 1})["deven"]
    item = doc(["knowledge", "propose", "deven", "--kind", "team_knowledge", "--summary",
                "Pair on migrations", "--reason", "costly", "--evidence", "a lost day",
                "--from", d1])  # fmt: skip
    ok(["knowledge", "admit", item["id"]])
    unsure = doc(["knowledge", "propose", "deven", "--kind", "team_knowledge", "--summary",
                  "Maybe retry twice", "--reason", "costly", "--evidence", "a guess",
                  "--confidence", "0", "--from", d1])  # fmt: skip
    ok(["knowledge", "admit", unsure["id"]])
    assert doc(["knowledge", "review"]) == []
    monkeypatch.setenv("VIVA_NOW", "2027-01-01T10:00:00Z")  # 38 days: only the unverified one
    (due,) = doc(["knowledge", "review"])
    assert due["item"]["id"] == unsure["id"] and "confidence 0.00, never used" in due["why"]
    monkeypatch.setenv("VIVA_NOW", "2027-02-01T10:00:00Z")
    due_ids = [d["item"]["id"] for d in doc(["knowledge", "review"])]
    assert sorted(due_ids) == sorted([item["id"], unsure["id"]])
    (due,) = [d for d in doc(["knowledge", "review"]) if d["item"]["id"] == item["id"]]
    assert due["idle_days"] == 69 and "unused for 69 days" in due["why"]
    as_member(monkeypatch, ok(["grant", "deven"]).out.strip())
    refused(["knowledge", "review"], "only the owner")


def test_recall_ranks_knowledge_items_by_the_three_factors(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (d1,) = make_sessions(ctx, tmp_path / "claude", {"deven": 1})["deven"]
    base = ["knowledge", "propose", "deven", "--kind", "team_knowledge", "--reason", "costly",
            "--evidence", "a lost day", "--from", d1]  # fmt: skip
    high = doc([*base, "--summary", "Rotate the staging keys monthly", "--importance", "0.9",
                "--why", "an outage"])  # fmt: skip
    low = doc([*base, "--summary", "Rotate the log files weekly", "--importance", "0.1",
               "--why", "tidy"])  # fmt: skip
    for item in (high, low):
        ok(["knowledge", "admit", item["id"]])
    hits = [h for h in doc(["recall", "rotate"]) if h["kind"] == "knowledge"]
    assert [h["id"] for h in hits] == [high["id"], low["id"]]
    assert [h["factors"]["importance"] for h in hits] == [0.9, 0.1]
    assert {h["marked"] for h in hits} == {"recorded"}
    ok(["knowledge", "retract", low["id"], "--reason", "logs rotate themselves now"])
    marked = {h["id"]: h["marked"] for h in doc(["recall", "rotate"]) if h["kind"] == "knowledge"}
    assert marked == {high["id"]: "recorded", low["id"]: "retracted"}  # still findable


def test_the_weekly_report_counts_admitted_declined_reused_and_retracted(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (d1,) = make_sessions(ctx, tmp_path / "claude", {"deven": 1})["deven"]
    base = ["knowledge", "propose", "deven", "--kind", "team_knowledge", "--reason", "costly",
            "--evidence", "a lost day", "--from", d1]  # fmt: skip
    kept, dropped, gone = (doc([*base, "--summary", s])["id"] for s in ("kept", "dropped", "gone"))
    ok(["knowledge", "admit", kept])
    ok(["knowledge", "admit", gone])
    ok(["knowledge", "decline", dropped, "--reason", "not worth it"])
    ok(["knowledge", "use", kept, "--session", d1])
    ok(["knowledge", "retract", gone, "--reason", "wrong"])
    report = doc(["report", "weekly"])
    assert report["team"]["knowledge"] == {
        "admitted": 2, "declined": 1, "used": 1, "retracted": 1, "superseded": 0,
    }  # fmt: skip
    (deven,) = [m for m in report["members"] if m["member"] == "deven"]
    assert [(e["item"], e["action"]) for e in deven["knowledge"]] == [
        (kept, "admitted"), (gone, "admitted"), (dropped, "declined"), (kept, "used"),
        (gone, "retracted"),
    ]  # fmt: skip
    markdown = ok(["report", "weekly", "--markdown"]).out
    assert "- Knowledge: 2 admitted, 1 declined, reused 1 time, 1 retracted" in markdown
    assert "learned" not in markdown
    as_member(monkeypatch, ok(["grant", "alice"]).out.strip())
    (alice,) = doc(["report", "weekly"])["members"]
    assert alice["knowledge"] == []  # deven's items are not in alice's report


def test_a_new_wording_supersedes_the_old_one_and_keeps_it(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (d1,) = make_sessions(ctx, tmp_path / "claude", {"deven": 1})["deven"]
    base = ["knowledge", "propose", "deven", "--kind", "team_knowledge", "--reason", "costly",
            "--evidence", "a lost day", "--from", d1]  # fmt: skip
    old = doc([*base, "--summary", "Vacuum the ledger weekly"])["id"]
    new = doc([*base, "--summary", "Vacuum the ledger after each bulk import"])["id"]
    refused(["knowledge", "supersede", old, "--by", new], "only a live item")
    ok(["knowledge", "admit", old])
    refused(["knowledge", "supersede", old, "--by", new], "admit it before")
    ok(["knowledge", "admit", new])
    as_member(monkeypatch, ok(["grant", "deven"]).out.strip())
    refused(["knowledge", "supersede", old, "--by", new], "only the owner")
    as_member(monkeypatch, None)
    ok(["knowledge", "supersede", old, "--by", new, "--reason", "bulk imports bloat it"])
    shown = doc(["knowledge", "show", old])
    assert shown["status"] == "superseded" and shown["superseded_by"] == new
    assert shown["invalidated_at"] == "2026-11-24T10:00:00Z"
    assert brief_ids("deven", "vacuum the ledger") == {new}
