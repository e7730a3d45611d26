"""The batch keyword gate answers exactly what the per-text prefilter answers, and the
engine's keyword positions are the same with Hyperscan and without."""

from __future__ import annotations

import importlib.util
import platform
import secrets
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from viva_store.redact import RuleSet, active, gate
from viva_store.redact.engine import may_hold_secret, redact_text, secret_spans
from viva_store.redact.rule import Rule

# Compile the Hyperscan database now, not inside a timed example.
gate.flagged(["warm up"])
active().index.find("warm up")
gate.accelerated()  # builds it even so: the first texts of a process are searched directly

keywords = st.sampled_from(gate.KEYWORDS + gate.CASELESS)
filler = st.one_of(
    st.text(max_size=80),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=80),
    # What decides a bounded keyword: the character before it, escapes, colour codes.
    st.sampled_from(["", "x", "_", "9", " ", "\\n", "\\u001b", "\x1b[1m", "\u212a", "é"]),
)


@st.composite
def texts_with_keywords(draw: st.DrawFn) -> str:
    """Text around zero or more keywords, some cut at either end, some in another case."""
    parts = [draw(filler)]
    for kw in draw(st.lists(keywords, max_size=3)):
        cut = draw(st.sampled_from(["whole", "head", "tail", "upper", "title"]))
        piece = {
            "whole": kw,
            "head": kw[:-1],
            "tail": kw[1:],
            "upper": kw.upper(),
            "title": kw[:1].upper() + kw[1:],
        }[cut]
        parts += [piece, draw(filler)]
    return "".join(parts)


batches = st.lists(texts_with_keywords(), max_size=12)


@settings(max_examples=100)
@given(batches)
def test_gate_flags_exactly_the_texts_holding_a_keyword(texts: list[str]) -> None:
    expected = {i for i, text in enumerate(texts) if may_hold_secret(text)}
    assert gate.flagged(texts) == expected
    assert gate.flagged(texts, fast=False) == expected


def _as_sets(found: dict[int, list[int]]) -> dict[int, set[int]]:
    return {rule: set(positions) for rule, positions in found.items()}


@given(texts_with_keywords())
def test_keyword_positions_are_the_same_with_and_without_hyperscan(text: str) -> None:
    index = active().index
    assert _as_sets(index.find(text)) == _as_sets(index.find(text, fast=False))
    rules = active().rules
    expected = any(
        not rules[i].needs_start or rules[i].start_positions(text)
        for i in index.find(text, fast=False)
    )
    assert may_hold_secret(text) == expected


@given(st.lists(texts_with_keywords(), max_size=6))
def test_the_first_texts_searched_directly_give_the_same_answers(texts: list[str]) -> None:
    """A rule set that has built no automaton yet looks for keywords directly."""
    fresh = RuleSet(active().rules, "fresh")
    index = active().index
    for text in texts:
        found = _as_sets(fresh.index.find(text))
        assert found == _as_sets(index.find(text)) == _as_sets(index.find(text, fast=False))
    assert fresh.flagged(texts) == gate.flagged(texts) == gate.flagged(texts, fast=False)
    assert [fresh.occurs(text) for text in texts] == [may_hold_secret(t) for t in texts]
    assert fresh.index._database is None and fresh.index._regexes is None  # still direct


rule_examples = st.sampled_from([r for r in active().rules if r.tp_example])


@settings(max_examples=300)
@given(rule_examples, filler, filler, st.sampled_from(["", "test_", "live_", "lob", "https://"]))
def test_a_text_a_rule_finds_a_secret_in_is_always_flagged(
    rule: Rule, before: str, after: str, extra: str
) -> None:
    """Soundness: whatever any rule would find, the gate sends to the redactor."""
    text = before + extra + rule.tp_example + after
    if any(True for _ in rule.spans(text)) or secret_spans(text):
        assert may_hold_secret(text)
        assert gate.flagged(["plain", text]) == {1}
        assert gate.flagged(["plain", text], fast=False) == {1}


def test_a_common_keyword_alone_sends_no_text_to_the_redactor() -> None:
    """``test_`` gates the Lob rules, which also need ``lob``: pytest output is not redacted."""
    lines = ["tests/test_gate.py::test_flags PASSED", "def test_parse_dates(): ..."]
    assert gate.flagged(lines) == set()
    assert gate.flagged(lines, fast=False) == set()
    assert not any(may_hold_secret(line) for line in lines)
    secret = "test_" + secrets.token_hex(18)[:35]  # built at run time
    key = f"lob_key = {secret}"
    assert gate.flagged([*lines, key]) == {2}
    assert may_hold_secret(key)
    assert secret not in redact_text(key)[0]


def test_a_bounded_keyword_counts_only_where_a_word_may_start() -> None:
    # vault-service-token's legacy `s.` tokens start at a word boundary.
    index = active().index
    rules = active().rules
    vault = next(i for i, r in enumerate(rules) if r.id == "vault-service-token")
    for fast in (True, False):
        assert vault not in index.find("import os.path", fast=fast)
        assert index.find("see s.x", fast=fast)[vault] == [4]
        assert index.find("a\\ns.x", fast=fast)[vault] == [3]  # after a JSON escape
        assert index.find("\x1b[1ms.x", fast=fast)[vault] == [4]  # after a colour code


def test_caseless_keywords_ignore_ascii_case_only() -> None:
    index = active().index
    for fast in (True, False):
        assert index.find("my ADAFRUIT key", fast=fast)
        assert not index.find("\u212a", fast=fast)  # the Kelvin sign lower-cases to k
    assert gate.flagged(["ADAFRUIT", "adafruit", "AdaFruit", "nothing"]) == {0, 1, 2}


def test_keyword_at_the_edges_of_joined_texts_belongs_to_its_own_text() -> None:
    kw = gate.KEYWORDS[0]
    texts = ["plain", kw, "x" + kw, kw + "y", "", "é" * 3 + kw, "plain again"]
    assert gate.flagged(texts) == {1, 2, 3, 5}


def test_a_keyword_split_across_two_texts_flags_neither() -> None:
    kw = "AKIA"
    assert kw in gate.KEYWORDS
    assert gate.flagged(["xx AK", "IA yy"]) == set()


def test_lone_surrogates_and_nul_do_not_break_the_scan() -> None:
    texts = ["\ud800 broken", "a\x00b AKIA", "\udfff"]
    assert gate.flagged(texts) == {1}


def test_the_fast_path_is_live_wherever_hyperscan_is_installed() -> None:
    """The project depends on Hyperscan on Linux x86-64 (pyproject); where it is
    installed, the gate must use it rather than fall back silently."""
    installed = importlib.util.find_spec("hyperscan") is not None
    if sys.platform == "linux" and platform.machine() == "x86_64":
        assert installed
    assert gate.accelerated() is installed
