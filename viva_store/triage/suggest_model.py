"""A small, calibrated classifier: which member a session most likely belongs to.

Naive Bayes over a session's features (project, cwd, harness, branch, words
of its title and first prompts) gives a raw posterior; naive Bayes is
famously over-confident, so the raw confidence is mapped through a
histogram-binning calibrator (made monotone with pool-adjacent-violators)
fitted on out-of-fold predictions of the training data itself. The result is
a confidence that means what it says: among suggestions made at 0.8, about
80% match what the owner would have chosen (measured in the tests and in
the README).
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

WORD_RE = re.compile(r"[a-z][a-z0-9_-]{2,24}")
STOP = frozenset(
    (
        "the",
        "and",
        "for",
        "with",
        "that",
        "this",
        "from",
        "have",
        "you",
        "are",
        "was",
        "not",
        "but",
        "can",
        "all",
        "any",
        "our",
        "use",
        "into",
        "please",
        "what",
        "when",
        "then",
        "them",
        "there",
        "here",
        "will",
        "would",
        "could",
        "should",
        "just",
        "also",
        "about",
        "your",
        "make",
        "sure",
    )
)
MAX_WORDS = 60


def features(
    project: str | None, cwd: str | None, harness: str, branch: str | None, texts: Iterable[str]
) -> list[str]:
    """The feature strings of one session."""
    out = [f"h:{harness}"]
    if project:
        out.append(f"p:{project.lower()}")
    if cwd:
        out.append(f"c:{cwd.lower()}")
    if branch:
        out.append(f"b:{branch.lower()}")
    words: dict[str, None] = {}
    for text in texts:
        for word in WORD_RE.findall(text.lower()):
            if word not in STOP:
                words.setdefault(f"w:{word}")
            if len(words) >= MAX_WORDS:
                break
    out.extend(words)
    return out


@dataclass
class NaiveBayes:
    """Multinomial-style naive Bayes with Laplace smoothing over feature strings."""

    alpha: float = 0.5
    label_counts: Counter[str] = field(default_factory=Counter)
    feature_counts: dict[str, Counter[str]] = field(default_factory=lambda: defaultdict(Counter))
    totals: Counter[str] = field(default_factory=Counter)
    vocabulary: set[str] = field(default_factory=set)

    def fit(self, samples: Sequence[tuple[Sequence[str], str]]) -> NaiveBayes:
        for feats, label in samples:
            self.label_counts[label] += 1
            for f in feats:
                self.feature_counts[label][f] += 1
                self.totals[label] += 1
                self.vocabulary.add(f)
        return self

    def posterior(self, feats: Sequence[str]) -> dict[str, float]:
        """P(label | features) for every label seen in training."""
        if not self.label_counts:
            return {}
        n = sum(self.label_counts.values())
        v = len(self.vocabulary) + 1
        scores: dict[str, float] = {}
        known = [f for f in feats if f in self.vocabulary]
        for label, count in self.label_counts.items():
            score = math.log(count / n)
            denom = self.totals[label] + self.alpha * v
            counts = self.feature_counts[label]
            for f in known:
                score += math.log((counts.get(f, 0) + self.alpha) / denom)
            scores[label] = score
        top = max(scores.values())
        exp = {label: math.exp(s - top) for label, s in scores.items()}
        total = sum(exp.values())
        return {label: e / total for label, e in exp.items()}


@dataclass
class Calibrator:
    """Maps a raw confidence to the accuracy observed at that confidence."""

    edges: list[float] = field(default_factory=list)  # upper edges of the bins
    values: list[float] = field(default_factory=list)

    @classmethod
    def fit(cls, pairs: Sequence[tuple[float, bool]], bins: int = 10) -> Calibrator:
        """Histogram binning on ``(raw confidence, was it right)`` pairs, then PAV."""
        if not pairs:
            return cls()
        ordered = sorted(pairs)
        size = max(1, math.ceil(len(ordered) / bins))
        blocks: list[list[float]] = []  # [upper edge, hits, count]
        for start in range(0, len(ordered), size):
            part = ordered[start : start + size]
            blocks.append([part[-1][0], float(sum(ok for _, ok in part)), float(len(part))])
        merged: list[list[float]] = []
        for block in blocks:  # pool adjacent violators: accuracy must not fall as raw rises
            merged.append(block)
            while len(merged) > 1 and merged[-2][1] / merged[-2][2] > merged[-1][1] / merged[-1][2]:
                top = merged.pop()
                merged[-1] = [top[0], merged[-1][1] + top[1], merged[-1][2] + top[2]]
        # Shrink each bin toward 0.5 a little (Beta(1,1) prior) so tiny bins stay humble.
        return cls(
            edges=[b[0] for b in merged],
            values=[(b[1] + 1.0) / (b[2] + 2.0) for b in merged],
        )

    def __call__(self, raw: float) -> float:
        if not self.edges:
            return raw
        for edge, value in zip(self.edges, self.values, strict=True):
            if raw <= edge:
                return value
        return self.values[-1]


@dataclass
class Suggester:
    """A trained model: naive Bayes plus its calibrator."""

    model: NaiveBayes
    calibrate: Calibrator
    trained_on: int

    def suggest(self, feats: Sequence[str]) -> tuple[str, float] | None:
        """The most likely label and its calibrated confidence (None when untrained)."""
        post = self.model.posterior(feats)
        if not post:
            return None
        label = max(sorted(post), key=lambda k: post[k])
        return label, self.calibrate(post[label])


def train(samples: Sequence[tuple[Sequence[str], str]], folds: int = 5) -> Suggester:
    """Fit on ``samples``; calibrate on out-of-fold predictions (deterministic folds)."""
    pairs: list[tuple[float, bool]] = []
    if len(samples) >= folds * 2:
        for k in range(folds):
            train_part = [s for i, s in enumerate(samples) if i % folds != k]
            held_out = [s for i, s in enumerate(samples) if i % folds == k]
            model = NaiveBayes().fit(train_part)
            for feats, label in held_out:
                post = model.posterior(feats)
                if post:
                    best = max(sorted(post), key=lambda key: post[key])
                    pairs.append((post[best], best == label))
    return Suggester(NaiveBayes().fit(samples), Calibrator.fit(pairs), len(samples))
