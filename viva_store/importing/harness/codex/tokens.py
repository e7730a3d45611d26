"""Codex token counts: cumulative totals turned into usage counted once.

``token_count`` totals are cumulative; each increase becomes one
:class:`Usage` keyed ``f"{session}:cum:{total_tokens}"`` holding the delta
from the previous total (kept in the reader's state), so repeats add nothing
and the usage of a session sums to its last total. A total that drops (a
restarted counter) starts a new epoch (``:cum1:``...). A record with only
the per-turn figure (``last_token_usage``), or ``turn.completed`` usage,
counts per record while no cumulative total has been seen. In a child
rollout, totals at or below the replayed parent's last one are the parent's.
"""

from __future__ import annotations

from typing import Any

from viva_store.importing.harness.codex.items import CUMULATIVE_FIELDS, cumulative, usage_vector
from viva_store.importing.harness.codex.state import CodexState
from viva_store.importing.harness.common import as_dict, as_str
from viva_store.importing.harness.model import Usage


class TokenCounter:
    """Usage of one rollout's records, from its state's running total."""

    def __init__(self, state: CodexState, base: str) -> None:
        self.state = state
        self.base = base  # the file name without .zst, for per-record keys

    def replayed(self, payload: dict[str, Any]) -> None:
        """A replayed parent's ``token_count``: it sets the baseline, counts nothing."""
        cum = cumulative(payload)
        if cum is not None:
            self.state.cum = cum
            self.state.floor = max(self.state.floor, cum[5])

    def token_count(self, payload: dict[str, Any], offset: int) -> tuple[Usage | None, str | None]:
        """The usage a ``token_count`` record adds, and the model it names."""
        state = self.state
        cum = cumulative(payload)
        if cum is None:
            last = as_dict(payload.get("info")).get("last_token_usage")
            if isinstance(last, dict) and not state.token_counts:
                # Only the per-turn figure, no running total: count it per record.
                key = f"{state.sid}:last:{self.base}:{offset}"
                return self.usage(key, usage_vector(last), None), None
            return None, None
        state.token_counts = True
        info_model = as_str(as_dict(payload.get("info")).get("model"))
        total = cum[5]
        if state.child and total <= state.floor:
            return None, info_model
        prev = state.cum or [0] * CUMULATIVE_FIELDS
        if total == prev[5]:
            return None, info_model
        if total < prev[5]:
            state.epoch += 1
            prev = [0] * CUMULATIVE_FIELDS
        state.cum = cum
        delta = [max(new - old, 0) for new, old in zip(cum, prev, strict=True)]
        tag = "cum" if state.epoch == 0 else f"cum{state.epoch}"
        return self.usage(f"{state.sid}:{tag}:{total}", delta, info_model), info_model

    def turn_completed(self, usage: dict[str, Any], offset: int) -> Usage | None:
        """``turn.completed`` usage, counted while no cumulative total has been seen."""
        if self.state.token_counts:
            return None
        key = f"{self.state.sid}:turn:{self.base}:{offset}"
        return self.usage(key, usage_vector(usage), None)

    def usage(self, key: str, figures: list[int], model: str | None) -> Usage | None:
        """``[input, cached, cache write, output, reasoning, total]`` as a :class:`Usage`
        (input without its cached part); ``None`` when it counts nothing."""
        uncached = max(figures[0] - figures[1], 0)
        if not (uncached or figures[1] or figures[2] or figures[3]):
            return None
        return Usage(
            usage_key=key,
            input_tokens=uncached,
            output_tokens=figures[3],
            cache_read_tokens=figures[1],
            cache_write_tokens=figures[2],
            reasoning_tokens=figures[4],
            model=model or self.state.model,
        )
