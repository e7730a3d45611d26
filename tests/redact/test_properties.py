"""Property tests: planted secrets never survive, redaction is idempotent and conservative."""

from __future__ import annotations

import json
import re
from typing import Any

import orjson
from hypothesis import assume, given
from hypothesis import strategies as st

from viva_store.redact import RULES, Rule, redact_obj, redact_text
from viva_store.redact.rule import ascii_lower
from viva_store.redact.rules import VIVA_RULES

from .support import secret_of, strings_in, survivors

KEYWORDS = sorted({kw for rule in RULES for kw in rule.keywords})
CASELESS = sorted({kw for rule in RULES for kw in rule.caseless})
rules = st.sampled_from(VIVA_RULES)
texts = st.text(max_size=200)
ascii_texts = st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=200)
any_text = st.one_of(texts, ascii_texts)


def _planted(rule: Rule, before: str, after: str) -> str:
    return before + " " + rule.tp_example + " " + after


@given(rules, any_text, any_text)
def test_planted_secret_never_survives(rule: Rule, before: str, after: str) -> None:
    out, hits = redact_text(_planted(rule, before, after))
    assert hits
    assert not survivors(secret_of(rule), out)


@given(rules, any_text, any_text)
def test_planted_secret_never_survives_json_escaping(rule: Rule, before: str, after: str) -> None:
    raw = orjson.dumps({"text": _planted(rule, before, after)}).decode()
    out, hits = redact_text(raw)
    assert hits
    secret = secret_of(rule)
    escaped = orjson.dumps(secret).decode()[1:-1]
    assert not survivors(escaped, out)
    (value,) = strings_in(json.loads(out))
    assert not survivors(secret, value)


@given(any_text)
def test_redacting_twice_changes_nothing(text: str) -> None:
    once, _ = redact_text(text)
    twice, hits = redact_text(once)
    assert (twice, hits) == (once, [])


@given(rules, any_text, any_text)
def test_redacting_a_planted_secret_twice_changes_nothing(
    rule: Rule, before: str, after: str
) -> None:
    once, _ = redact_text(_planted(rule, before, after))
    twice, hits = redact_text(once)
    assert (twice, hits) == (once, [])


def _has_keyword(text: str) -> bool:
    low = ascii_lower(text)
    return any(kw in text for kw in KEYWORDS) or any(
        text[i : i + len(kw)].isascii()
        for kw in CASELESS
        for i in (m.start() for m in re.finditer(re.escape(kw), low))
    )


@given(any_text)
def test_text_without_keywords_is_returned_as_is(text: str) -> None:
    assume(not _has_keyword(text))
    out, hits = redact_text(text)
    assert out is text
    assert hits == []


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | any_text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(texts, inner, max_size=4),
    max_leaves=12,
)


def _plant_in(obj: Any, secret_text: str, choice: int) -> Any:
    """Put ``secret_text`` at one of the leaves (or alongside) of ``obj``."""
    if isinstance(obj, dict) and obj:
        key = sorted(obj)[choice % len(obj)]
        return {**obj, key: _plant_in(obj[key], secret_text, choice // 2)}
    if isinstance(obj, list) and obj:
        i = choice % len(obj)
        return [*obj[:i], _plant_in(obj[i], secret_text, choice // 2), *obj[i + 1 :]]
    return [obj, "see " + secret_text]


@given(rules, json_values, st.integers(min_value=0, max_value=1000))
def test_planted_secret_never_survives_in_objects(rule: Rule, value: Any, choice: int) -> None:
    obj = _plant_in(value, rule.tp_example, choice)
    before = json.dumps(obj)
    out, hits = redact_obj(obj)
    assert hits
    assert json.dumps(obj) == before
    # A piece of the secret already among the generated values (Hypothesis draws
    # strings from the code's own constants, e.g. a rule's keyword) is not a leak.
    already = {p for text in strings_in(value) for p in survivors(secret_of(rule), text)}
    for text in strings_in(out):
        assert not set(survivors(secret_of(rule), text)) - already
    again, more = redact_obj(out)
    assert (again, more) == (out, [])


@given(json_values)
def test_objects_without_keywords_come_back_identical(value: Any) -> None:
    assume(not any(_has_keyword(s) for s in strings_in(value)))
    out, hits = redact_obj(value)
    assert hits == [] or all(h.rule == "secret-assignment" for h in hits)
    if not hits:
        assert out is value
