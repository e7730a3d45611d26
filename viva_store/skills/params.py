"""Skill-weight and forgetting parameters (DESIGN §3), with the DESIGN values as defaults.

Every number the skill maths uses lives here, so configuration can change any of them
without touching code. The values are the owner's decision record, taken verbatim.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal

Track = Literal["session", "time"]
"""The axis a skill decays on: the member's session ordinal, or days."""

Outcome = Literal["success", "failure", "corrected"]
"""How an execution that used a skill ended; "corrected" is the owner's re-valuation."""

TRACKS: tuple[Track, ...] = ("session", "time")

# (field, minimum, minimum is exclusive) — every field is also required to be finite.
_FLOAT_RANGES: dict[str, tuple[float, bool]] = {
    "value_success": (0.0, False),
    "value_failure": (0.0, False),
    "value_corrected": (0.0, False),
    "initial_weight": (0.0, True),
    "half_life_sessions": (0.0, True),
    "half_life_days": (0.0, True),
    "forget_below": (0.0, False),
    "idle_days": (0.0, False),
    "trial_days": (0.0, False),
}
_INT_MINIMUMS: dict[str, int] = {
    "idle_sessions": 0,
    "capacity": 0,
    "protect_sessions": 0,
    "projection_limit": 0,
}


@dataclass(frozen=True, slots=True)
class SkillParams:
    """The tunable numbers of skill weights and forgetting (DESIGN §3).

    Values per use: success 1.0, failure 0.25, corrected 0.0; 1.0 on entering a set.
    Half-lives: 30 sessions (session track) or 60 days (time track). A skill is forgotten
    below 0.1 once idle for 20 sessions or 60 days; at most 30 non-native skills; a skill
    added or reclaimed fewer than 10 sessions ago is protected; a store's first 30 days are
    a trial; at most 10 skills are projected into one session.

    Construction validates every field and raises ``ValueError`` naming the bad one.
    """

    value_success: float = 1.0
    value_failure: float = 0.25
    value_corrected: float = 0.0
    initial_weight: float = 1.0
    half_life_sessions: float = 30.0
    half_life_days: float = 60.0
    forget_below: float = 0.1
    idle_sessions: int = 20
    idle_days: float = 60.0
    capacity: int = 30
    protect_sessions: int = 10
    trial_days: float = 30.0
    projection_limit: int = 10

    def __post_init__(self) -> None:
        for name, (minimum, exclusive) in _FLOAT_RANGES.items():
            value = getattr(self, name)
            # bool is an int subclass; `True` as a half-life is a config mistake, not 1.0.
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ValueError(f"{name}: expected a number, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"{name}: must be finite, got {value!r}")
            if value < minimum or (exclusive and value == minimum):
                bound = ">" if exclusive else ">="
                raise ValueError(f"{name}: must be {bound} {minimum}, got {value!r}")
            # Normalise ints given for float fields so equality and hashing are stable.
            object.__setattr__(self, name, float(value))
        for name, minimum in _INT_MINIMUMS.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ValueError(f"{name}: expected an integer, got {value!r}")
            if value < minimum:
                raise ValueError(f"{name}: must be >= {minimum}, got {value!r}")

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> SkillParams:
        """Build parameters from configuration; missing keys take the DESIGN defaults.

        Raises ``ValueError`` naming the key when a key is unknown, of the wrong type or out
        of range.
        """
        known = {f.name for f in fields(cls)}
        for key in data:
            if key not in known:
                raise ValueError(f"{key}: unknown skill parameter")
        return cls(**dict(data))

    def half_life(self, track: Track) -> float:
        """The half-life on ``track``: sessions for "session", days for "time"."""
        if track == "session":
            return self.half_life_sessions
        if track == "time":
            return self.half_life_days
        raise ValueError(f"track: expected 'session' or 'time', got {track!r}")

    def idle_threshold(self, track: Track) -> float:
        """How long a skill must be unused on ``track`` before a low weight forgets it."""
        if track == "session":
            return float(self.idle_sessions)
        if track == "time":
            return self.idle_days
        raise ValueError(f"track: expected 'session' or 'time', got {track!r}")

    def value_for(self, outcome: Outcome) -> float:
        """The value a use with ``outcome`` adds to the weight."""
        if outcome == "success":
            return self.value_success
        if outcome == "failure":
            return self.value_failure
        if outcome == "corrected":
            return self.value_corrected
        raise ValueError(f"outcome: expected success, failure or corrected, got {outcome!r}")
