"""How far triage suggestions can be trusted: calibration on held-out sessions.

Trains on a generated history with known owners (``viva_store/demo/triage_history.py``),
then, on sessions it never saw, prints a reliability table (mean confidence against
accuracy per band), the expected calibration error, and how spread the confidences are
(a model that says 0.94 to everything is calibrated on average and useless).
"""

from __future__ import annotations

import statistics
from collections import Counter

from viva_store.demo.triage_history import held_out_guesses

BANDS = tuple((k / 10, (k + 1) / 10) for k in range(10))
CLOSE = 0.5
"""A call is close when the runner-up has at least this share of the first's confidence."""


def report(train_n: int = 1500, test_n: int = 1500) -> list[str]:
    """The calibration figures, as lines to print."""
    guesses = held_out_guesses(train_n, test_n)
    pairs = [(g.confidence, g.member == owner) for g, owner in guesses]
    lines = [
        f"calibration on {test_n} held-out sessions (trained on {train_n}):",
        "  band       sessions  mean confidence  accuracy",
    ]
    ece = 0.0
    for low, high in BANDS:
        inside = [(c, ok) for c, ok in pairs if low <= c < high or (high == 1.0 and c == 1.0)]
        if not inside:
            continue
        mean = statistics.fmean(c for c, _ in inside)
        accuracy = statistics.fmean(ok for _, ok in inside)
        ece += len(inside) * abs(accuracy - mean) / len(pairs)
        lines.append(f"  {low:.1f}–{high:.1f}  {len(inside):>8}  {mean:>15.2f}  {accuracy:>8.2f}")
    shown = Counter(f"{c:.2f}" for c, _ in pairs)
    value, count = shown.most_common(1)[0]
    close = sum(
        1 for g, _ in guesses if g.runner_up and g.runner_up_confidence >= CLOSE * g.confidence
    )
    confidences = [c for c, _ in pairs]
    lines += [
        f"expected calibration error: {ece:.3f}",
        f"spread: standard deviation {statistics.pstdev(confidences):.2f}; "
        f"{len(shown)} distinct shown values; the commonest ({value}) on "
        f"{count / len(pairs):.0%} of sessions",
        f"confident (>= 0.8): {sum(c >= 0.8 for c in confidences) / len(pairs):.0%} of sessions; "
        f"close calls (two members shown): {close / len(pairs):.0%}",
    ]
    return lines
