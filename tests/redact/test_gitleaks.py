"""gitleaks' default rules in Viva's table: all there, faithfully translated, each with a
true and a false positive built from its pattern, and where Viva tries them sound."""

from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from viva_store.redact import GITLEAKS_SOURCE, RULES_BY_ID, Rule, redact_text
from viva_store.redact.rules import GITLEAKS_RULES, VIVA_RULES
from viva_store.redact.rules_gitleaks import TABLE, Stopwords, shannon_entropy

from .gitleaks_examples import false_positive, prose, true_positive
from .sampler import sample
from .support import survivors

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from gen_gitleaks_rules import rule_regex
from gitleaks_regex import FLAGS, translate

RAW: list[dict[str, Any]] = json.loads(TABLE.read_text(encoding="utf-8"))["rules"]
_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]+\]")


def _gitleaks_id(rule: Rule) -> str:
    m = re.match(r"gitleaks '([a-z0-9-]+)'", rule.source)
    assert m, rule.source
    return m.group(1)


BY_GITLEAKS_ID = {_gitleaks_id(r): r for r in GITLEAKS_RULES}


def test_every_content_rule_of_the_source_is_in_the_table() -> None:
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    assert len(GITLEAKS_RULES) == len(RAW) == 220
    # A rule on file names only, and one that marks a fixed public prefix as the secret.
    skipped = {s["id"] for s in table["skipped"]}
    assert skipped == {"pkcs12-file", "aws-amazon-bedrock-api-key-short-lived"}
    assert "aws-bedrock-short-term-api-key" in RULES_BY_ID
    assert "v8.30.0" in GITLEAKS_SOURCE["version"]
    assert re.fullmatch(r"[0-9a-f]{64}", GITLEAKS_SOURCE["sha256"])
    licence = (TABLE.parent / "LICENSE").read_text(encoding="utf-8")
    assert "MIT License" in licence and "Zachary Rice" in licence


def test_viva_rules_come_first_and_a_shared_id_gets_a_prefix() -> None:
    ids = [r.id for r in (*VIVA_RULES, *GITLEAKS_RULES)]
    assert ids[: len(VIVA_RULES)] == [r.id for r in VIVA_RULES]
    assert RULES_BY_ID["gitleaks-github-pat"].source.startswith("gitleaks 'github-pat'")
    assert RULES_BY_ID["github-pat"] in VIVA_RULES


@pytest.mark.parametrize("raw", RAW, ids=lambda r: r["id"])
def test_stored_regex_is_the_translation_of_its_go_source(raw: dict[str, Any]) -> None:
    assert rule_regex(raw["go"]) == (raw["regex"], raw["left_context"])
    for allowlist in raw.get("allowlists", []):
        for entry in allowlist.get("regexes", []):
            assert translate(entry["go"]) == entry["regex"]


@pytest.mark.parametrize(
    ("go", "yes", "no"),
    [
        # A flag group lasts to the end of its group, across `|`.
        (r"\b(p8e-(?i)[a-z]{3}|xy)", ["p8e-ABC", "XY"], ["P8E-abc"]),
        (r"a(?i)b|c", ["aB", "C"], ["AB"]),
        (r"(?i)ab(?-i:C)d", ["ABCD", "abCd"], ["abcd"]),
        (r"key\z", ["key"], ["key\n"]),
        (r"key$", ["key"], ["key\n"]),  # `$` is the end of the text in Go
        (r"\bpat[[:alnum:]]{2}\b", ["patA9"], ["pat_9", "pat[:"]),
        (r"a\sb", ["a b", "a\tb"], ["a\vb", "a\u2003b"]),
        (r"\w\d", ["a1"], ["é1", "a\u0661"]),  # ASCII classes, as in Go
        (r"x{,2}", ["x{,2}"], ["x", "xx"]),  # a literal in Go
    ],
)
def test_go_syntax_is_translated_faithfully(go: str, yes: list[str], no: list[str]) -> None:
    pattern = re.compile(translate(go), FLAGS)
    assert all(pattern.fullmatch(t) for t in yes), pattern.pattern
    assert not any(pattern.fullmatch(t) for t in no), pattern.pattern


@pytest.mark.parametrize("gitleaks_id", ["databricks-api-token", "azure-ad-client-secret"])
def test_a_json_escape_counts_as_a_word_boundary(gitleaks_id: str) -> None:
    _, secret = true_positive(BY_GITLEAKS_ID[gitleaks_id]) or ("", "")
    raw = json.dumps({"t": "line\n" + secret + "\nnext"})
    assert secret and not survivors(secret, redact_text(raw)[0])
    # The same escape in a shell command that prints the secret (``printf %s 'a\nb'``).
    command = f"printf %s {('line' + chr(10) + secret + chr(10) + 'next')!r}"
    assert not survivors(secret, redact_text(command)[0])


@pytest.mark.parametrize("rule", GITLEAKS_RULES, ids=lambda r: r.id)
def test_true_positive_is_found_and_redacted(rule: Rule) -> None:
    example = true_positive(rule)
    assert example is not None, f"no sample of {rule.id} is reported by the rule itself"
    text, secret = example
    out, hits = redact_text(text)
    assert hits
    assert not survivors(secret, _MARKER.sub("", out)), out


@pytest.mark.parametrize("rule", GITLEAKS_RULES, ids=lambda r: r.id)
def test_false_positives_are_left_alone(rule: Rule) -> None:
    assert list(rule.spans(false_positive(rule))) == []
    sentence = prose(rule)
    assert redact_text(sentence) == (sentence, [])


_DERIVED = [r for r in RAW if r["gate"] != "gitleaks"]


@pytest.mark.parametrize("raw", _DERIVED, ids=lambda r: r["id"])
def test_every_match_holds_a_keyword_where_viva_looks(raw: dict[str, Any]) -> None:
    """Keywords taken from the pattern are sound: every match starts with one (anchored)
    or contains one, in the case the pattern allows."""
    rule = BY_GITLEAKS_ID[raw["id"]]
    matches = [m for m in (rule.compiled.search(sample(rule.compiled, s)) for s in range(40)) if m]
    assert matches
    for m in matches:
        text = m.group()
        low = text.lower()
        if raw["anchored"]:
            assert any(text.startswith(k) for k in rule.keywords) or any(
                low.startswith(k) for k in rule.caseless
            ), text
        else:
            assert any(k in text for k in rule.keywords) or any(k in low for k in rule.caseless)


def test_a_caseless_keyword_is_found_in_any_case() -> None:
    rule = BY_GITLEAKS_ID["adafruit-api-key"]
    text, secret = true_positive(rule) or ("", "")
    for variant in (text.upper(), text.lower()):
        assert rule.caseless == ("adafruit",)
        out, _ = redact_text(variant)
        assert variant.upper().find(secret.upper()) >= 0 and secret.upper() not in out.upper()


def test_entropy_and_allowlists_behave_as_in_gitleaks() -> None:
    assert shannon_entropy("") == 0 and shannon_entropy("aaaa") == 0
    assert shannon_entropy("abcd") == pytest.approx(2.0)
    dapi = BY_GITLEAKS_ID["databricks-api-token"]  # entropy 3
    assert list(dapi.spans("dapi" + "0" * 32 + " ")) == []
    generic = BY_GITLEAKS_ID["generic-api-key"]
    assert list(generic.spans('api_key = "only_letters_here_"')) == []  # ^[a-zA-Z_.-]+$
    assert list(generic.spans('primary_key = "a1b2c3d4e5f6a7b8c9"')) == []  # the match list
    assert list(generic.spans('client_secret = "sample9Xy7Qw2Lp"')) == []  # a stopword
    assert list(generic.spans('client_secret = "Zq8Xy7Qw2Lp3Mn9"'))


_CLAIM = re.compile(r"(?<!after )gitleaks default rules? ((?:'[a-z0-9-]+'(?:, | and )?)+)")


@pytest.mark.parametrize("rule", VIVA_RULES, ids=lambda r: r.id)
def test_a_viva_rule_covers_the_gitleaks_rules_its_source_names(rule: Rule) -> None:
    """``gitleaks default rule 'x'`` in a source is a claim, checked on x's own samples;
    ``after gitleaks 'x'`` credits the idea only."""
    named = [n for m in _CLAIM.finditer(rule.source) for n in re.findall(r"'([^']+)'", m[1])]
    for name in named:
        theirs = BY_GITLEAKS_ID[name]
        for seed in range(5):
            text = sample(theirs.compiled, seed)
            for start, end in theirs.spans(text):
                assert any(s <= start and end <= e for s, e in rule.spans(text)), (name, text)


@pytest.mark.parametrize("rule", GITLEAKS_RULES, ids=lambda r: r.id)
def test_worst_case_inputs_stay_fast(rule: Rule) -> None:
    keyword = (rule.keywords or rule.caseless)[0]
    for text in (
        (keyword + " = ") * 4000,
        keyword + "a" * 60_000,
        (keyword + "\n") * 4000,
        keyword + "A1" * 30_000,
    ):
        start = time.perf_counter()
        list(rule.spans(text))
        assert time.perf_counter() - start < 2.0


@given(st.text(alphabet="abcektoyn_-01é", max_size=30))
def test_a_stopword_is_found_wherever_it_occurs(text: str) -> None:
    words = ["key", "token", "ab", "é", "keyed", "n_1"]
    assert Stopwords(words).any_in(text) == any(w in text for w in words)
