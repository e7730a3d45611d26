"""A text cut to a one-line summary is redacted before the cut: a secret cut in half
no longer matches its rule, so its first half would otherwise reach the store."""

from __future__ import annotations

import pytest

from tests.redact.planted import Example, example
from viva_store.importing.harness.common import truncate
from viva_store.redact import RULES

LIMIT = 200
CUT = [
    e
    for e in map(example, RULES)
    if e.alone and "\n" not in e.secret and 16 <= len(e.secret) < LIMIT - 20
]


def test_enough_rules_are_cut() -> None:
    assert len(CUT) > 100


@pytest.mark.parametrize("plant", CUT, ids=lambda e: e.rule)
def test_a_secret_cut_in_half_leaves_no_half(plant: Example) -> None:
    secret = plant.secret
    half = len(secret) // 2
    text = " " * (LIMIT - 1 - half) + secret + " and more"
    out = truncate(text, LIMIT)
    assert len(out) <= LIMIT
    assert secret[:half] not in out


def test_a_text_within_the_limit_is_left_as_it_is() -> None:
    text = "a benign line " * 10
    assert truncate(text, LIMIT) is text
