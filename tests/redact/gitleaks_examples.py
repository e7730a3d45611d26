"""True- and false-positive examples of the generated gitleaks rules, built from their patterns.

A true positive is a sample of the rule's pattern that the rule itself
reports (the first of a few seeds), with one of the rule's keywords beside it
when the pattern does not hold one (gitleaks tries such a rule only where its
keyword occurs). A false positive is the same shape with every repetition
below its minimum: too short to be the secret; and a sentence naming the
rule's keyword is none either.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from pathlib import Path

from viva_store.redact import Rule
from viva_store.redact.rules_gitleaks import TABLE

from .sampler import sample

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from gen_gitleaks_rules import bound_dot_runs, strip_identifier_prefix
from gitleaks_regex import FLAGS, translate

SEEDS = range(60)
_GO = {r["id"]: r["go"] for r in json.loads(TABLE.read_text(encoding="utf-8"))["rules"]}


@functools.cache
def shape(rule: Rule) -> re.Pattern[str]:
    """The pattern samples are drawn from: gitleaks' own, translated, without the widenings
    Viva adds for undecoded JSON (a sample is a secret as gitleaks means it)."""
    name = re.match(r"gitleaks '([a-z0-9-]+)'", rule.source)
    if name is None:
        return rule.compiled
    go, _ = strip_identifier_prefix(_GO[name.group(1)])
    return re.compile(translate(bound_dot_runs(go)), FLAGS)


def _with_keyword(rule: Rule, text: str) -> str:
    if rule.keyword_starts(text):
        return text
    keyword = (rule.keywords or rule.caseless)[0]
    return f"{text}\n# {keyword}"


@functools.cache
def true_positive(rule: Rule) -> tuple[str, str] | None:
    """``(text, secret)``: a text holding a secret ``rule`` reports, or None if no seed gave one."""
    for seed in SEEDS:
        text = _with_keyword(rule, sample(shape(rule), seed))
        spans = list(rule.spans(text))
        if spans:
            start, end = spans[0]
            return text, text[start:end]
    return None


def false_positive(rule: Rule) -> str:
    """The rule's shape, every repetition cut below its minimum (a pattern without
    repetitions loses its last character)."""
    short = sample(shape(rule), 1, short=True)
    return short[:-1] if short == sample(shape(rule), 1) else short


def prose(rule: Rule) -> str:
    """A sentence naming the rule's keyword (half of one that is a whole token prefix):
    a keyword alone is no secret."""
    keyword = (rule.keywords or rule.caseless)[0]
    if len(keyword) > 16:
        keyword = keyword[: len(keyword) // 2]
    return f"See how to create a {keyword} token in the {keyword} docs (rotate it yearly)."
