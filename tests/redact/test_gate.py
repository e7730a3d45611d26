"""The batch keyword gate answers exactly what the per-text prefilter answers."""

from __future__ import annotations

import importlib.util
import platform
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from viva_store.redact import gate
from viva_store.redact.engine import may_hold_secret

keywords = st.sampled_from(gate.KEYWORDS)
filler = st.one_of(
    st.text(max_size=80),
    st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=80),
)


@st.composite
def texts_with_keywords(draw: st.DrawFn) -> str:
    """Text around zero or more keywords, some of them cut at either end."""
    parts = [draw(filler)]
    for kw in draw(st.lists(keywords, max_size=3)):
        cut = draw(st.sampled_from(["whole", "head", "tail"]))
        piece = kw if cut == "whole" else kw[:-1] if cut == "head" else kw[1:]
        parts += [piece, draw(filler)]
    return "".join(parts)


batches = st.lists(texts_with_keywords(), max_size=12)


@settings(max_examples=100)
@given(batches)
def test_gate_flags_exactly_the_texts_holding_a_keyword(texts: list[str]) -> None:
    expected = {i for i, text in enumerate(texts) if may_hold_secret(text)}
    assert gate.flagged(texts) == expected
    assert gate.flagged(texts, fast=False) == expected


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
