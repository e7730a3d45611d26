"""The `viva recall`, `viva mark` and `viva state` contract: JSON keys, scope, one-line errors."""

from __future__ import annotations

import json

import pytest

from tests.cli.runner import Result, run
from tests.store.recall_fixtures import PLANTED
from viva_store.members.grants import issue_grant
from viva_store.store import Context


@pytest.fixture
def history(recall_history: dict[str, str], cli_env: str) -> dict[str, str]:
    return recall_history


def as_member(ctx: Context, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    monkeypatch.setenv("VIVA_GRANT", issue_grant(ctx, name).token)


def one_line_error(result: Result, *words: str, code: int = 1) -> None:
    """A refusal: one line on stderr naming ``words``; usage errors exit 2, others 1."""
    assert result.code == code, result.err
    assert result.out == ""
    lines = result.err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.err, result.err
    for word in words:
        assert word in lines[0]


def test_recall_json_contract(history: dict[str, str]) -> None:
    result = run(["recall", PLANTED, "--json"])
    assert result.code == 0, result.err
    hits = json.loads(result.out)
    assert isinstance(hits, list) and hits
    top = hits[0]
    assert {"session_id", "harness", "at", "score", "snippet"} <= set(top)
    assert {"seq", "title", "member", "factors", "kind"} <= set(top)
    assert top["session_id"] == history["d-planted"]
    assert top["member"] == "deven" and top["harness"] == "claude-code"
    assert top["at"].endswith("Z") and PLANTED in top["snippet"]
    assert set(top["factors"]) == {"relevance", "recency", "importance"}


def test_recall_as_deven_and_as_alice(
    ctx: Context, history: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    as_member(ctx, monkeypatch, "deven")
    hits = json.loads(run(["recall", PLANTED, "--json"]).out)
    assert hits[0]["session_id"] == history["d-planted"]
    as_member(ctx, monkeypatch, "alice")
    result = run(["recall", PLANTED, "--json"])
    assert result.code == 0 and json.loads(result.out) == []
    one_line_error(run(["recall", "cache", "--member", "deven"]), "alice", "deven")


def test_the_human_listing(history: dict[str, str]) -> None:
    result = run(["recall", PLANTED, "--limit", "3"])
    assert result.code == 0, result.err
    assert history["d-planted"] in result.out and "deven" in result.out
    assert run(["recall", "nothingmatchesthis"]).out.strip() == "nothing found"


@pytest.mark.parametrize(
    "query", ["", "   ", '"*():^', '"*():^' * 5000], ids=["empty", "spaces", "syntax", "30kb"]
)
def test_an_empty_or_punctuation_query_is_one_line(history: dict[str, str], query: str) -> None:
    one_line_error(run(["recall", query]), "at least one word")


def test_a_100_kb_query_is_truncated_with_a_notice(history: dict[str, str]) -> None:
    result = run(["recall", PLANTED + " " + "y" * 100_000, "--json"])
    assert result.code == 0, result.err
    assert json.loads(result.out)[0]["session_id"] == history["d-planted"]
    assert "truncated to 512" in result.err


def test_fts_syntax_is_just_text(history: dict[str, str]) -> None:
    result = run(["recall", '"zanzibar* (quokka^ NEAR(lanternfish', "--json"])
    assert result.code == 0, result.err
    assert json.loads(result.out)[0]["session_id"] == history["d-planted"]


def test_newest_first(history: dict[str, str]) -> None:
    hits = json.loads(run(["recall", "cache", "--newest", "--json", "--limit", "50"]).out)
    times = [h["at"] for h in hits]
    assert times == sorted(times, reverse=True)


def test_bad_options_are_one_line(history: dict[str, str]) -> None:
    one_line_error(run(["recall", "cache", "--limit", "0"]), "--limit", code=2)
    one_line_error(run(["recall", "cache", "--state", "restrict"]), "--member")
    one_line_error(run(["recall", "cache", "--member", "nobody"]), "nobody")


def test_mark(history: dict[str, str]) -> None:
    result = run(["mark", history["u-queue"], "--importance", "0.9", "--json"])
    assert result.code == 0, result.err
    assert json.loads(result.out)["importance"] == 0.9
    assert run(["mark", history["u-queue"], "--clear"]).code == 0
    one_line_error(run(["mark", history["u-queue"]]), "--importance", code=2)


def test_state_set_get_history_and_correction(history: dict[str, str]) -> None:
    observed = run(
        ["state", "observe", "deven", "--cwd", "/work/viva", "--harness", "claude-code", "--json"]
    )
    assert observed.code == 0, observed.err
    assert json.loads(observed.out)["project"] == "viva"
    result = run(["state", "set", "deven", "--project", "trader", "--note", "wrong", "--json"])
    assert result.code == 0, result.err
    state = json.loads(result.out)
    assert state["project"] == "trader"
    assert state["fields"]["project"]["source"] == "correction"
    got = json.loads(run(["state", "get", "deven", "--json"]).out)
    assert {"member", "domain", "project", "counterpart", "activity"} <= set(got)
    assert got["activity"] == "development"
    events = json.loads(run(["state", "history", "deven", "--json"]).out)
    assert events[0]["source"] == "correction" and events[0]["corrects"] is not None
    rows = run(["state", "get", "deven"]).out.splitlines()  # a pipe: tab-separated rows
    assert rows[1].split("\t")[:3] == ["project", "trader", "correction, pinned"]


def test_a_member_sets_only_its_own_state(
    ctx: Context, history: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    as_member(ctx, monkeypatch, "deven")
    assert run(["state", "set", "deven", "--activity", "review"]).code == 0
    one_line_error(run(["state", "set", "alice", "--activity", "review"]), "alice")
    one_line_error(run(["state", "get", "alice"]), "alice")
    one_line_error(run(["state", "set", "deven"]), "at least one")


def test_state_narrows_recall_from_the_cli(
    ctx: Context, history: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    as_member(ctx, monkeypatch, "deven")
    assert run(["state", "set", "deven", "--project", "viva"]).code == 0
    result = run(["recall", "cache", "--state", "restrict", "--json"])
    hits = {h["session_id"] for h in json.loads(result.out)}
    assert hits == {history["d-planted"], history["d-recent"]}
    assert "narrowed" not in result.err  # --json: notes only, nothing extra


def test_principles_and_skills_come_after_the_sessions(
    ctx: Context, history: dict[str, str]
) -> None:
    from viva_store.principles.service import propose

    propose(ctx, "deven", "Write every zanzibar idea down", "ideas get lost")
    hits = json.loads(run(["recall", "zanzibar", "--json"]).out)
    assert hits[0]["session_id"] == history["d-planted"]
    principle = hits[-1]
    assert (principle["kind"], principle["marked"], principle["session_id"]) == (
        "principle",
        "pending",
        None,
    )
    assert {"session_id", "harness", "at", "score", "snippet"} <= set(principle)


def test_recall_filters_by_harness_project_and_since(history: dict[str, str]) -> None:
    def ids(*args: str) -> set[str]:
        result = run(["recall", "cache", "--limit", "50", "--json", *args])
        assert result.code == 0, result.err
        return {hit["session_id"] for hit in json.loads(result.out)}

    everything = ids()
    assert ids("--harness", "claude-code") == everything
    assert ids("--harness", "codex") == set()
    viva = {history["d-planted"], history["d-recent"], history["a-private"]}
    assert ids("--project", "/work/viva") == viva
    # VIVA_NOW is the history's 2026-06-01 12:00Z: relative forms count back from it.
    assert ids("--since", "2026-05-30T00:00Z") == {history["d-recent"], history["d-other-project"]}
    assert ids("--since", "36h") == {history["d-recent"]}
    assert ids("--since", "2030-01-01") == set()
    assert ids("--project", "/work/viva", "--since", "2026-05-30T00:00Z") == {history["d-recent"]}


def test_recall_filters_refuse_bad_input_in_one_line(history: dict[str, str]) -> None:
    one_line_error(run(["recall", "cache", "--harness", "emacs"]), "emacs")
    one_line_error(run(["recall", "cache", "--since", "last Tuesday"]), "--since", code=2)
