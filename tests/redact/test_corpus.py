"""The two measures of benchmarks/bench_redact.py at a small size: planted secrets never
come back, and a benign corpus loses (almost) nothing to redaction."""

from __future__ import annotations

import pytest

from viva_store.redact import RULES, redact_text

from .benign import benign, jwt_samples
from .planted import SHAPES, leaked, planted

# The benchmark's target; at this size it allows no wrong redaction at all.
WRONG_PER_MB = 0.05
MB = 1.5


@pytest.mark.parametrize("shape", SHAPES)
def test_every_rule_planted_in_every_shape_never_comes_back(shape: str) -> None:
    leaks = [
        f"{plant.rule}: {plant.text[:80]!r}"
        for plant in planted(RULES)
        if plant.shape == shape and leaked(plant, redact_text(plant.text)[0])
    ]
    assert leaks == []


@pytest.mark.parametrize("seed", [1, 2])
def test_the_benign_corpus_keeps_its_text(seed: int) -> None:
    size = 0
    wrong: list[str] = []
    for label, text in benign(MB, seed):
        size += len(text.encode())
        out, hits = redact_text(text)
        wrong += [f"{label}: {h.rule} {out[max(0, h.start - 40) : h.end + 10]!r}" for h in hits]
    assert size > MB * (1 << 20) * 0.9
    assert len(wrong) <= WRONG_PER_MB * size / (1 << 20), "\n".join(wrong)


def test_the_benign_corpus_holds_what_it_says() -> None:
    labels = {label for label, _ in benign(MB, 1)}
    assert {
        "env_example",
        "shell_session",
        "test_literals",
        "hashes",
        "jwt_text",
        "image",
    } <= labels
    assert any(label.endswith(".py") and "python3" in label for label in labels)
    assert len(jwt_samples()) == 3
