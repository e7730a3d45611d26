"""Recall's pure parts: query parsing, the three-factor score, importance, snippets."""

from __future__ import annotations

import sqlite3

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from viva_store.errors import InvalidInput
from viva_store.recall.query import (
    conservative_tokens,
    fts5_expression,
    normalize,
    parse_query,
    truncate,
)
from viva_store.recall.ranking import (
    ImportanceSignals,
    RecallParams,
    combine,
    importance,
    recency,
    relevance,
)
from viva_store.recall.snippet import make_snippet

SYNTAX = "\"*():^-+{}[]<>.,;:!?~`'\\/|&%$#@=_ \t\n"


@pytest.fixture(scope="module")
def fts() -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(text, detail=none, "
        "tokenize='unicode61 remove_diacritics 2')"
    )
    conn.execute("INSERT INTO t(text) VALUES ('zanzibar quokka'), ('Ünïcode café 记得')")
    return conn


def _run(conn: sqlite3.Connection, text: str) -> list[tuple[int]] | None:
    try:
        parsed = parse_query(text)
    except InvalidInput:
        return None
    for any_token in (False, True):
        expr = fts5_expression(parsed.tokens, any_token)
        try:
            rows = conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall()
        except sqlite3.OperationalError:
            expr = fts5_expression(conservative_tokens(parsed.tokens), any_token)
            rows = conn.execute("SELECT rowid FROM t WHERE t MATCH ?", (expr,)).fetchall()
    return rows


@settings(max_examples=400, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.sampled_from(SYNTAX) | st.characters(), max_size=300))
def test_no_text_is_an_fts5_syntax_error(fts: sqlite3.Connection, text: str) -> None:
    _run(fts, text)  # raises only if FTS5 rejects an expression we built


@given(st.text(alphabet=st.sampled_from(SYNTAX), max_size=200))
def test_punctuation_only_is_invalid_input(text: str) -> None:
    with pytest.raises(InvalidInput, match="at least one word"):
        parse_query(text)


def test_tokens_are_found_case_and_accent_blind(fts: sqlite3.Connection) -> None:
    assert _run(fts, '"ZANZIBAR"*') == [(1,)]
    assert _run(fts, "unicode CAFE") == [(2,)]
    assert _run(fts, "记得") == [(2,)]


@given(st.text(max_size=2000), st.integers(min_value=1, max_value=600))
def test_truncation_never_exceeds_the_limit(text: str, limit: int) -> None:
    cut, truncated = truncate(text, limit)
    assert len(cut) <= limit
    assert truncated == (len(text) > limit)
    assert text.startswith(cut)


def test_truncation_does_not_split_a_word() -> None:
    cut, truncated = truncate("alpha beta gamma", 8)
    assert (cut, truncated) == ("alpha ", True)
    assert truncate("x" * 100_000, 512) == ("x" * 512, True)


def test_a_100_kb_query_keeps_only_so_many_words() -> None:
    parsed = parse_query(" ".join(f"w{n}" for n in range(20_000)))
    assert parsed.truncated and len(parsed.text) <= 512
    assert len(parsed.tokens) == 32 and parsed.dropped_tokens > 0


def test_duplicate_words_are_searched_once() -> None:
    assert parse_query("Cache cache CACHE café cafe").tokens == ("Cache", "café")
    assert normalize("Café") == normalize("cafe")


def test_fts5_expression_quotes_every_token() -> None:
    assert fts5_expression(("a", "b")) == '"a" "b"'
    assert fts5_expression(("a", "b"), any_token=True) == '"a" OR "b"'


def test_conservative_tokens_split_at_unknown_characters() -> None:
    assert conservative_tokens(("ab\U0001e900cd",)) in (("ab", "cd"), ("ab\U0001e900cd",))
    assert conservative_tokens(("plain",)) == ("plain",)


# --- the score ---------------------------------------------------------------------------


def test_config_defaults_and_validation() -> None:
    assert RecallParams.from_config({}) == RecallParams()
    params = RecallParams.from_config({"half_life_days": 7, "weight_recency": 0})
    assert params.half_life_days == 7 and params.weight_recency == 0
    for bad in (
        {"half_life_days": 0},
        {"weight_relevance": -1},
        {"weight_relevance": "high"},
        {"weight_relevance": 0, "weight_recency": 0, "weight_importance": 0},
        {"state_mode": "widen"},
    ):
        with pytest.raises(InvalidInput):
            RecallParams.from_config(bad)


def test_recency_halves_every_half_life() -> None:
    assert recency(0, 30) == 1.0
    assert recency(30, 30) == pytest.approx(0.5)
    assert recency(60, 30) == pytest.approx(0.25)
    assert recency(-5, 30) == 1.0  # a clock ahead of us is "now"
    assert recency(None, 30) == 0.0


@given(st.floats(min_value=0, max_value=1e6), st.floats(min_value=0.01, max_value=100))
def test_relevance_is_bounded_and_monotonic(rank: float, k: float) -> None:
    value = relevance(rank, k)
    assert 0.0 <= value < 1.0 or value == pytest.approx(1.0)
    assert relevance(rank + 1, k) >= value
    assert relevance(k, k) == pytest.approx(0.5)


@given(st.floats(0, 1), st.floats(0, 1), st.floats(0, 1), st.floats(0, 5), st.floats(0, 5))
def test_the_score_is_a_weighted_mean(
    rel: float, rec: float, imp: float, a: float, b: float
) -> None:
    params = RecallParams(weight_relevance=1.0, weight_recency=a, weight_importance=b)
    score = combine(rel, rec, imp, params)
    assert min(rel, rec, imp) - 1e-9 <= score <= max(rel, rec, imp) + 1e-9


@given(st.booleans(), st.integers(0, 10_000), st.integers(0, 1000))
def test_importance_is_between_0_and_1(cited: bool, messages: int, errors: int) -> None:
    value, reason = importance(ImportanceSignals(None, cited, messages, errors))
    assert 0.0 <= value <= 1.0 and reason


def test_importance_rule_order() -> None:
    owner, _ = importance(ImportanceSignals(marked=0.9, cited=False, messages=1))
    cited_short, why = importance(ImportanceSignals(cited=True, messages=1))
    long_erroring, _ = importance(ImportanceSignals(messages=10_000, tool_errors=50))
    assert "cited by a principle" in why
    assert owner > cited_short > long_erroring
    demoted, why = importance(ImportanceSignals(marked=0.0, cited=True, messages=500))
    assert demoted == 0.0 and "owner" in why


# --- snippets ----------------------------------------------------------------------------


def test_snippet_centres_and_highlights_the_match() -> None:
    text = "lorem ipsum " * 40 + "the Zanzibar plan worked " + "dolor sit " * 40
    snippet = make_snippet(text, {"zanzibar"}, width=80)
    assert snippet.text.startswith("…") and snippet.text.endswith("…")
    assert "Zanzibar" in snippet.text and len(snippet.text) <= 90
    (start, end), *_ = snippet.highlights
    assert snippet.text[start:end] == "Zanzibar"
    assert "[Zanzibar]" in snippet.marked()


def test_snippet_of_text_without_a_match_is_its_start() -> None:
    snippet = make_snippet("short   text\n\nhere", {"absent"})
    assert snippet.text == "short text here" and snippet.highlights == ()


def test_snippet_matches_accents_and_case() -> None:
    snippet = make_snippet("Un CAFÉ noir", {"cafe"})
    assert snippet.marked() == "Un [CAFÉ] noir"


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("Cache_layer: the CACHE, cache2 and re-cache; cached", {"cache"}),
        ("x1 X1 ax1 x1b 1x1 x1_", {"x1"}),
        ("Run the tests, then TESTS again: tests-pass", {"tests", "pass"}),
        ("nothing to see here", {"absent"}),
    ],
)
def test_the_ascii_fast_path_finds_what_the_tokenizer_finds(
    text: str, terms: set[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from viva_store.recall import snippet as module

    fast = make_snippet(text, terms, width=40)
    monkeypatch.setattr(module, "_ascii_pattern", lambda _terms: None)
    assert make_snippet(text, terms, width=40) == fast
