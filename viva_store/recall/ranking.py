"""The three-factor recall score: relevance, recency, importance (DESIGN §5).

``score = (w_rel·relevance + w_rec·recency + w_imp·importance) / (w_rel + w_rec + w_imp)``

* **relevance** — the index's own rank, mapped to 0..1 by ``s / (s + k)``:
  ``s`` is ``-bm25`` on SQLite, ``ts_rank`` on PostgreSQL, and ``k`` the rank
  at which relevance is one half (per engine; configurable).
* **recency** — ``2^(−age / half_life)`` of the hit's time (capped at 1 for
  clocks that run ahead).
* **importance** — per session, 0..1, see :func:`importance`.

The weights, the half-life and ``k`` come from ``[recall]`` in
``config.toml``. The store computes the same formula inside its query (to
rank every match, not a fixed top-K); these functions explain each hit.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from viva_store.errors import InvalidInput

RELEVANCE_K = {"sqlite": 5.0, "postgresql": 0.1}
"""Default ``k`` per engine: a rank ``s`` equal to ``k`` gives relevance 0.5."""

STATE_MODES = ("prefer", "restrict", "off")

# Importance: the owner's mark decides; otherwise signals add up to at most 1.0.
CITED_WEIGHT = 0.6
LENGTH_WEIGHT = 0.25
ERROR_WEIGHT = 0.15
LONG_SESSION = 200  # messages: a session this long gets the full length share
MANY_ERRORS = 5  # tool errors: this many get the full error share


@dataclass(frozen=True, slots=True)
class RecallParams:
    """The tunable numbers of recall (``[recall]`` in ``config.toml``)."""

    weight_relevance: float = 1.0
    weight_recency: float = 0.5
    weight_importance: float = 0.3
    half_life_days: float = 30.0
    relevance_k: float = 0.0  # 0: the engine's default (RELEVANCE_K)
    state_mode: str = "prefer"
    state_boost: float = 0.25
    max_query_chars: int = 512

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> RecallParams:
        """Read ``[recall]``; unknown keys are ignored, bad values are :class:`InvalidInput`."""
        values: dict[str, Any] = {}
        for f in fields(cls):
            if f.name not in section:
                continue
            value = section[f.name]
            if f.name == "state_mode":
                if value not in STATE_MODES:
                    raise InvalidInput(
                        f"[recall] state_mode must be one of {', '.join(STATE_MODES)}"
                    )
            elif isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
                raise InvalidInput(f"[recall] {f.name} must be a number ≥ 0, not {value!r}")
            values[f.name] = int(value) if f.name == "max_query_chars" else value
        params = cls(**values)
        if params.half_life_days <= 0:
            raise InvalidInput("[recall] half_life_days must be > 0")
        if params.weight_relevance + params.weight_recency + params.weight_importance <= 0:
            raise InvalidInput("[recall] at least one weight must be > 0")
        if params.max_query_chars < 1:
            raise InvalidInput("[recall] max_query_chars must be ≥ 1")
        return params

    def k_for(self, engine: str) -> float:
        """``k`` of the relevance mapping for ``engine``."""
        return self.relevance_k or RELEVANCE_K.get(engine, 1.0)

    @property
    def weight_sum(self) -> float:
        return self.weight_relevance + self.weight_recency + self.weight_importance


def relevance(rank: float, k: float) -> float:
    """The engine's rank (higher is better, ≥ 0) mapped to 0..1."""
    return rank / (rank + k) if rank > 0 else 0.0


def recency(age_days: float | None, half_life_days: float) -> float:
    """Exponential decay: 1 now, 0.5 one half-life ago; 0 when the time is unknown."""
    if age_days is None:
        return 0.0
    return min(1.0, math.exp(-math.log(2) * age_days / half_life_days))


def combine(rel: float, rec: float, imp: float, params: RecallParams) -> float:
    """The weighted mean of the three factors (0..1)."""
    total = (
        params.weight_relevance * rel + params.weight_recency * rec + params.weight_importance * imp
    )
    return total / params.weight_sum


@dataclass(frozen=True, slots=True)
class ImportanceSignals:
    """What a session's importance is derived from."""

    marked: float | None = None  # the owner's mark, 0..1
    cited: bool = False  # a principle cites the session as evidence
    messages: int = 0
    tool_errors: int = 0


def importance(signals: ImportanceSignals) -> tuple[float, str]:
    """A session's importance (0..1) and the reason, in words.

    The owner's mark wins outright. Otherwise: cited by a principle 0.6, the
    session's length up to 0.25 (logarithmic, full at 200 messages), tool
    errors up to 0.15 (full at 5) — so a cited session always outranks an
    uncited one of any length.
    """
    if signals.marked is not None:
        value = min(1.0, max(0.0, signals.marked))
        return value, f"marked {value:.2f} by the owner"
    cited = CITED_WEIGHT if signals.cited else 0.0
    length = LENGTH_WEIGHT * min(
        1.0, math.log1p(max(0, signals.messages)) / math.log1p(LONG_SESSION)
    )
    errors = ERROR_WEIGHT * min(1.0, max(0, signals.tool_errors) / MANY_ERRORS)
    parts = []
    if signals.cited:
        parts.append(f"cited by a principle +{cited:.2f}")
    parts.append(f"{signals.messages} messages +{length:.2f}")
    if signals.tool_errors:
        parts.append(f"{signals.tool_errors} tool errors +{errors:.2f}")
    return round(cited + length + errors, 6), ", ".join(parts)
