"""A generated triage history with known owners, for measuring suggestion calibration.

Each member has home projects, preferred harnesses and a working vocabulary,
but the signals overlap the way real ones do: members visit each other's
projects, share harnesses and words, and some sessions say almost nothing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from viva_store.triage.suggest_model import Guess, features, train

VOCAB = {
    "samuel": [
        "plan",
        "roadmap",
        "issue",
        "milestone",
        "priorities",
        "weekly",
        "report",
        "estimate",
        "scope",
    ],
    "deven": [
        "refactor",
        "function",
        "module",
        "migration",
        "endpoint",
        "bug",
        "fix",
        "compile",
        "typing",
        "api",
    ],
    "alice": [
        "test",
        "fixture",
        "assert",
        "regression",
        "coverage",
        "flaky",
        "snapshot",
        "hypothesis",
        "case",
    ],
    "oliver": [
        "deploy",
        "backup",
        "restore",
        "disk",
        "alert",
        "nginx",
        "postgres",
        "incident",
        "log",
        "cron",
    ],
    "victor": [
        "backtest",
        "signal",
        "returns",
        "sharpe",
        "position",
        "risk",
        "market",
        "data",
        "portfolio",
    ],
}
SHARED = [
    "please",
    "check",
    "this",
    "look",
    "into",
    "update",
    "the",
    "code",
    "file",
    "run",
    "again",
    "error",
    "output",
]
HOME = {
    "samuel": ["/home/h/work/roadmap"],
    "deven": ["/home/h/src/viva", "/home/h/src/ledger"],
    "alice": ["/home/h/src/viva", "/home/h/src/ledger-tests"],
    "oliver": ["/home/h/ops/infra"],
    "victor": ["/home/h/research/signals"],
}
HARNESS = {
    "samuel": ["claude-code"],
    "deven": ["codex", "claude-code"],
    "alice": ["claude-code", "gemini"],
    "oliver": ["pi", "codex"],
    "victor": ["claude-code", "pi"],
}


@dataclass(frozen=True, slots=True)
class Sample:
    """One session's features and who it really belonged to."""

    features: list[str]
    owner: str


def generate(n: int, seed: int = 7) -> list[Sample]:
    """``n`` sessions with known owners."""
    rng = random.Random(seed)
    members = list(VOCAB)
    all_projects = sorted({p for ps in HOME.values() for p in ps})
    out: list[Sample] = []
    for _ in range(n):
        owner = rng.choice(members)
        cwd = rng.choice(HOME[owner]) if rng.random() < 0.75 else rng.choice(all_projects)
        harness = rng.choice(HARNESS[owner]) if rng.random() < 0.8 else "claude-code"
        own = rng.random()
        words: list[str] = []
        for _ in range(rng.randint(0, 6)):
            if rng.random() < own:
                words.append(rng.choice(VOCAB[owner]))
            elif rng.random() < 0.5:
                words.append(rng.choice(VOCAB[rng.choice(members)]))
            else:
                words.append(rng.choice(SHARED))
        project = cwd.rsplit("/", 1)[-1]
        out.append(Sample(features(project, cwd, harness, None, [" ".join(words)]), owner))
    return out


def held_out_guesses(
    train_n: int = 1500, test_n: int = 1500, seed: int = 7
) -> list[tuple[Guess, str]]:
    """Train on the first ``train_n`` generated sessions; each later one's guess and owner."""
    data = generate(train_n + test_n, seed)
    model = train([(s.features, s.owner) for s in data[:train_n]])
    out: list[tuple[Guess, str]] = []
    for sample in data[train_n:]:
        guess = model.suggest(sample.features)
        assert guess is not None
        out.append((guess, sample.owner))
    return out


BANDS = ((0.0, 0.5), (0.5, 0.6), (0.6, 0.7), (0.7, 0.8), (0.8, 0.9), (0.9, 1.01))


def calibration_table(
    train_n: int = 1500,
    test_n: int = 1500,
    seed: int = 7,
    bands: tuple[tuple[float, float], ...] = BANDS,
) -> list[tuple[float, float, int, float, float]]:
    """Per confidence band: (low, high, count, mean confidence, accuracy) on held-out data."""
    results = [
        (g.confidence, g.member == owner) for g, owner in held_out_guesses(train_n, test_n, seed)
    ]
    rows: list[tuple[float, float, int, float, float]] = []
    for low, high in bands:
        inside = [(c, ok) for c, ok in results if low <= c < high]
        if inside:
            mean = sum(c for c, _ in inside) / len(inside)
            acc = sum(ok for _, ok in inside) / len(inside)
            rows.append((low, min(high, 1.0), len(inside), mean, acc))
    return rows
