"""Recall over real imported sessions, on SQLite and PostgreSQL (issue 8's "Done when").

A planted rare phrase in one of deven's sessions is the top hit for the owner
and for deven's grant, and invisible to alice's grant; odd queries behave.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.store.recall_fixtures import ALICE_PHRASE, NOW, PLANTED, as_member, build_history
from viva_store.errors import AccessDenied, InvalidInput
from viva_store.recall.marks import mark_importance
from viva_store.recall.search import recall
from viva_store.store import Context
from viva_store.triage.classify import classify, unclassify


@pytest.fixture
def history(recall_history: dict[str, str]) -> dict[str, str]:
    return recall_history


def test_the_planted_phrase_is_the_owners_top_hit(ctx: Context, history: dict[str, str]) -> None:
    result = recall(ctx, PLANTED)
    top = result.hits[0]
    assert top.session_id == history["d-planted"]
    assert top.member == "deven"
    assert top.kind == "message"
    assert PLANTED in top.snippet
    assert top.harness == "claude-code"
    assert top.at is not None and top.seq is not None
    assert set(top.factors) == {"relevance", "recency", "importance"}
    assert result.matched == "all"


def test_the_planted_phrase_is_devens_top_hit(ctx: Context, history: dict[str, str]) -> None:
    hits = recall(as_member(ctx, "deven"), PLANTED).hits
    assert [h.session_id for h in hits][:1] == [history["d-planted"]]


def test_alice_cannot_see_devens_phrase(ctx: Context, history: dict[str, str]) -> None:
    alice = as_member(ctx, "alice")
    assert recall(alice, PLANTED).hits == ()
    # Not even a single word of it, nor by falling back to any-word matching.
    assert recall(alice, "quokka").hits == ()
    assert recall(alice, PLANTED + " nonexistentword").hits == ()


def test_a_member_sees_only_its_own_sessions(ctx: Context, history: dict[str, str]) -> None:
    deven = {h.session_id for h in recall(as_member(ctx, "deven"), "cache", limit=50).hits}
    alice = {h.session_id for h in recall(as_member(ctx, "alice"), "cache", limit=50).hits}
    owner = {h.session_id for h in recall(ctx, "cache", limit=50).hits}
    assert deven == {history["d-planted"], history["d-recent"], history["d-other-project"]}
    assert alice == {history["a-private"]}
    assert owner == set(history.values())  # the owner also finds the unattributed one
    assert recall(as_member(ctx, "alice"), ALICE_PHRASE).hits[0].session_id == history["a-private"]


def test_the_owner_can_search_one_member(ctx: Context, history: dict[str, str]) -> None:
    hits = recall(ctx, "cache", member="alice", limit=50).hits
    assert {h.session_id for h in hits} == {history["a-private"]}
    assert all(h.member == "alice" for h in hits)


def test_a_member_cannot_search_another_member(ctx: Context, history: dict[str, str]) -> None:
    with pytest.raises(AccessDenied):
        recall(as_member(ctx, "alice"), "cache", member="deven")


def test_reclassifying_moves_a_session_without_reindexing(
    ctx: Context, history: dict[str, str]
) -> None:
    alice = as_member(ctx, "alice")
    classify(ctx, [history["d-planted"]], "alice")
    assert recall(alice, PLANTED).hits[0].session_id == history["d-planted"]
    assert recall(as_member(ctx, "deven"), PLANTED).hits == ()
    unclassify(ctx, [history["d-planted"]])
    assert recall(alice, PLANTED).hits == ()
    assert recall(ctx, PLANTED).hits[0].status == "unattributed"


def test_one_hit_per_session(ctx: Context, history: dict[str, str]) -> None:
    hits = recall(ctx, "cache", limit=50).hits
    assert len({h.session_id for h in hits}) == len(hits)


def test_hits_are_ordered_by_score(ctx: Context, history: dict[str, str]) -> None:
    hits = recall(ctx, "cache", limit=50).hits
    scores = [h.score for h in hits if h.score is not None]
    assert len(scores) == len(hits)
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 <= score <= 1.0 for score in scores)
    for hit in hits:
        assert all(v is not None and 0.0 <= v <= 1.0 for v in hit.factors.values())


def test_limit(ctx: Context, history: dict[str, str]) -> None:
    assert len(recall(ctx, "cache", limit=2).hits) == 2
    with pytest.raises(InvalidInput):
        recall(ctx, "cache", limit=0)


def test_newest_first(ctx: Context, history: dict[str, str]) -> None:
    hits = recall(ctx, "cache", order="newest", limit=50).hits
    times = [h.at for h in hits]
    assert all(t is not None for t in times)
    assert times == sorted(times, reverse=True)  # type: ignore[type-var]
    assert hits[0].session_id == history["d-recent"]


def test_newest_first_is_the_same_however_few_hits_a_walk_fetches(
    ctx: Context, history: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from viva_store.recall import search as service

    whole = recall(ctx, "cache", order="newest", limit=50).hits
    member = recall(as_member(ctx, "deven"), "cache", order="newest").hits
    monkeypatch.setattr(service, "FETCH_PER_HIT", 1)
    monkeypatch.setattr(service, "FETCH_MIN", 1)  # one hit at a time, then 8, 64...
    assert recall(ctx, "cache", order="newest", limit=50).hits == whole
    assert recall(as_member(ctx, "deven"), "cache", order="newest").hits == member
    assert [h.session_id for h in recall(ctx, "cache", order="newest", limit=2).hits] == [
        h.session_id for h in whole[:2]
    ]


def test_a_session_title_is_searchable(ctx: Context, history: dict[str, str]) -> None:
    hits = recall(ctx, "alice checks").hits
    assert hits[0].session_id == history["a-private"]


def test_no_session_has_every_word_so_any_word_ranks(ctx: Context, history: dict[str, str]) -> None:
    result = recall(ctx, "lanternfish gyroscope")
    assert result.matched == "any"
    assert {h.session_id for h in result.hits} == {history["d-planted"], history["a-private"]}


def test_a_100_kb_query_is_truncated_not_refused(ctx: Context, history: dict[str, str]) -> None:
    result = recall(ctx, PLANTED + " " + "x" * 100_000)
    assert result.truncated
    assert len(result.query) <= 512
    assert result.hits[0].session_id == history["d-planted"]
    assert any("truncated" in note for note in result.notes)


def test_a_100_kb_query_of_many_words(ctx: Context, history: dict[str, str]) -> None:
    result = recall(ctx, (PLANTED + " ") * 5000)
    assert result.truncated
    assert result.hits[0].session_id == history["d-planted"]


@pytest.mark.parametrize(
    "query",
    ["", "   ", "\n\t", '"*():^', "!!! ??? ...", '"*():^' * 20_000],
    ids=["empty", "spaces", "whitespace", "syntax", "punctuation", "syntax-120kb"],
)
def test_an_empty_or_punctuation_query_is_a_clear_error(
    ctx: Context, history: dict[str, str], query: str
) -> None:
    with pytest.raises(InvalidInput, match="at least one word"):
        recall(ctx, query)


@pytest.mark.parametrize(
    "query",
    [
        '"zanzibar',
        "zanzibar*",
        "quokka^ (lanternfish",
        "zanzibar AND quokka OR NOT lanternfish",
        "NEAR(zanzibar quokka)",
        "text:zanzibar",
        '"*():^ zanzibar "*():^',
        "zanzibar-quokka+lanternfish",
        "zanzibar' ; DROP TABLE message; --",
        "{zanzibar} [quokka] <lanternfish>",
    ],
)
def test_fts_syntax_in_a_query_never_errors(
    ctx: Context, history: dict[str, str], query: str
) -> None:
    result = recall(ctx, query)
    assert result.hits and result.hits[0].session_id == history["d-planted"]


def test_unicode_queries_behave(ctx: Context, history: dict[str, str]) -> None:
    for query in ("ZANZIBAR", "zänzibar", "记得 缓存", "\U0001f600 zanzibar", "\u200b zanzibar"):
        recall(ctx, query)  # never raises
    assert recall(ctx, "ZANZIBAR").hits[0].session_id == history["d-planted"]


def test_the_owners_mark_raises_importance(ctx: Context, history: dict[str, str]) -> None:
    marked = mark_importance(ctx, history["u-queue"], 1.0, note="keep this")
    assert marked.importance == 1.0 and "owner" in marked.reason
    hit = next(h for h in recall(ctx, "cache", limit=50).hits if h.session_id == history["u-queue"])
    assert hit.factors["importance"] == 1.0
    back = mark_importance(ctx, history["u-queue"], None)
    assert back.importance < 1.0
    with pytest.raises(AccessDenied):
        mark_importance(as_member(ctx, "deven"), history["d-recent"], 1.0)
    with pytest.raises(InvalidInput):
        mark_importance(ctx, history["u-queue"], 1.5)


def test_new_messages_are_searchable_after_the_next_import(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import timedelta

    from tests.store.recall_fixtures import import_all, spec
    from viva_store.demo.harness_files import Turn, claude_code

    # The history built here, not copied: the next import reads its files again.
    monkeypatch.setenv("VIVA_NOW", NOW.isoformat())
    build_history(ctx, tmp_path / "claude")
    claude_code(
        tmp_path / "claude",
        spec("d-later", "/work/viva", NOW - timedelta(hours=1), Turn("ping", "a wombat sighting")),
    )
    import_all(ctx, tmp_path / "claude")
    assert recall(ctx, "wombat").hits[0].snippet == "a wombat sighting"
