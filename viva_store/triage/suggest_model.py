"""A small, calibrated classifier: which member a session most likely belongs to.

Naive Bayes over a session's features (project, cwd, harness, branch, words
of its title and first prompts) gives a raw posterior; naive Bayes is
famously over-confident, so its log scores are divided by a temperature
fitted on out-of-fold predictions of the training data itself. The result is
a confidence that means what it says — among suggestions made at 0.8, about
80% match what the owner would have chosen — and that still varies from
session to session (measured in ``benchmarks/bench_triage.py`` and the README).
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

    def scores(self, feats: Sequence[str]) -> dict[str, float]:
        """log P(label) + Σ log P(feature | label) for every label seen in training."""
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
        return scores


def softmax(scores: dict[str, float], temperature: float = 1.0) -> dict[str, float]:
    """The scores as probabilities, flattened by ``temperature`` (1: naive Bayes's own)."""
    if not scores:
        return {}
    top = max(scores.values())
    exp = {label: math.exp((s - top) / temperature) for label, s in scores.items()}
    total = sum(exp.values())
    return {label: e / total for label, e in exp.items()}


MAX_TEMPERATURE = 300.0
FIT_SAMPLES = 2000
"""At most this many held-out predictions fit the temperature (evenly spread)."""


def fit_temperature(held_out: Sequence[tuple[dict[str, float], str]]) -> float:
    """The temperature that makes held-out predictions most likely (least log loss).

    Naive Bayes multiplies many correlated likelihoods, so its raw posteriors sit at 0 or
    1; dividing its log scores by one fitted temperature spreads them to what the
    held-out sessions bear out, and keeps their order. The log loss is convex in the
    inverse temperature, so a golden-section search over its logarithm finds it.
    """
    usable = [(scores, label) for scores, label in held_out if label in scores]
    if not usable:
        return 1.0
    step = max(1, len(usable) // FIT_SAMPLES)
    usable = usable[::step]

    def loss(log_t: float) -> float:
        t = math.exp(log_t)
        return -sum(math.log(max(softmax(s, t)[label], 1e-12)) for s, label in usable)

    low, high = 0.0, math.log(MAX_TEMPERATURE)
    ratio = (math.sqrt(5) - 1) / 2
    a, b = high - ratio * (high - low), low + ratio * (high - low)
    fa, fb = loss(a), loss(b)
    for _ in range(30):
        if fa <= fb:
            high, b, fb = b, a, fa
            a = high - ratio * (high - low)
            fa = loss(a)
        else:
            low, a, fa = a, b, fb
            b = low + ratio * (high - low)
            fb = loss(b)
    return math.exp((low + high) / 2)


@dataclass
class Calibrator:
    """Maps a confidence to the accuracy observed near it: pool-adjacent-violators over
    equal-count bins, read by linear interpolation between the bins' centres (so nearby
    confidences stay apart instead of collapsing onto one value per bin)."""

    points: list[tuple[float, float]] = field(default_factory=list)

    @classmethod
    def fit(cls, pairs: Sequence[tuple[float, bool]], bins: int = 10) -> Calibrator:
        """Fit on ``(confidence, was it right)`` pairs."""
        if not pairs:
            return cls()
        ordered = sorted(pairs)
        size = max(1, math.ceil(len(ordered) / bins))
        blocks: list[list[float]] = []  # [sum of confidences, hits, count]
        for start in range(0, len(ordered), size):
            part = ordered[start : start + size]
            blocks.append([sum(c for c, _ in part), float(sum(ok for _, ok in part)), len(part)])
        merged: list[list[float]] = []
        for block in blocks:  # pool adjacent violators: accuracy must not fall as raw rises
            merged.append(block)
            while len(merged) > 1 and merged[-2][1] / merged[-2][2] > merged[-1][1] / merged[-1][2]:
                top = merged.pop()
                merged[-1] = [a + b for a, b in zip(merged[-1], top, strict=True)]
        # Each bin shrinks toward 0.5 a little (a Beta(1, 1) prior): tiny bins stay humble.
        return cls([(b[0] / b[2], (b[1] + 1.0) / (b[2] + 2.0)) for b in merged])

    def __call__(self, raw: float) -> float:
        if not self.points:
            return raw
        if raw <= self.points[0][0]:
            return self.points[0][1]
        for (x0, y0), (x1, y1) in zip(self.points, self.points[1:], strict=False):
            if raw <= x1:
                return y0 + (y1 - y0) * (raw - x0) / (x1 - x0) if x1 > x0 else y1
        return self.points[-1][1]


@dataclass(frozen=True, slots=True)
class Guess:
    """The most likely member with its calibrated confidence, and the next most likely."""

    member: str
    confidence: float
    runner_up: str | None
    runner_up_confidence: float


@dataclass
class Suggester:
    """A trained model: naive Bayes, the temperature that spreads it, its calibrator."""

    model: NaiveBayes
    temperature: float
    calibrate: Calibrator
    trained_on: int

    def suggest(self, feats: Sequence[str]) -> Guess | None:
        """The two likeliest labels and their calibrated confidences (None when untrained)."""
        post = softmax(self.model.scores(feats), self.temperature)
        if not post:
            return None
        ranked = sorted(sorted(post), key=lambda k: post[k], reverse=True)
        first = post[ranked[0]]
        confidence = self.calibrate(first)
        if len(ranked) < 2:
            return Guess(ranked[0], confidence, None, 0.0)
        second = post[ranked[1]] * confidence / first  # in proportion to the first
        return Guess(ranked[0], confidence, ranked[1], min(second, 1.0 - confidence))


def train(samples: Sequence[tuple[Sequence[str], str]], folds: int = 5) -> Suggester:
    """Fit on ``samples``; fit the temperature, then the calibrator, on out-of-fold
    predictions (deterministic folds)."""
    held_out: list[tuple[dict[str, float], str]] = []
    if len(samples) >= folds * 2:
        for k in range(folds):
            model = NaiveBayes().fit([s for i, s in enumerate(samples) if i % folds != k])
            held_out += [
                (model.scores(feats), label)
                for i, (feats, label) in enumerate(samples)
                if i % folds == k
            ]
    temperature = fit_temperature(held_out)
    pairs = []
    for scores, label in held_out:
        post = softmax(scores, temperature)
        best = max(sorted(post), key=lambda key: post[key])
        pairs.append((post[best], best == label))
    calibrate = Calibrator.fit(pairs)
    return Suggester(NaiveBayes().fit(samples), temperature, calibrate, len(samples))
