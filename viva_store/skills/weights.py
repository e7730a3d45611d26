"""Skill weights as pure maths over the append-only skill event log (DESIGN §3).

A member's weight for a skill on a track (the member's session ordinal, or days) is

    W(now) = Σ v_j · 2^(−(a_now − a_j)/h)

over the effective values v_j of the events that count, where a_j is the event's position on
the track and h the track's half-life. The same number is reached three ways, and tests
hold them equal: ``fold`` (O(1) per event, in log order, positions in any order),
``rebuild`` (from scratch, in axis order) and ``closed_form`` (the sum itself).

Nothing here reads a clock or a database: the caller passes "now" as a track position.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from viva_store.skills.params import SkillParams, Track

EventKind = Literal["enter", "use", "revalue"]
"""enter: added, synced or reclaimed; use: a credited use; revalue: an owner correction."""


class EventLike(Protocol):
    """Anything with a weight event's fields: a ``WeightEvent``, or a database row."""

    @property
    def seq(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def value(self) -> float: ...
    @property
    def session_pos(self) -> float: ...
    @property
    def day(self) -> float: ...
    @property
    def target_seq(self) -> int | None: ...


@dataclass(frozen=True, slots=True)
class WeightEvent:
    """One weight-relevant entry of a (member, skill) event log.

    ``seq`` is the log order (append order). Every event carries both axis coordinates so
    that switching a skill's track is a recomputation: ``session_pos`` is the member's
    session ordinal at the event (an event between sessions sits at the ordinal of the last
    session started before it) and ``day`` is days since the epoch, fractional.

    ``value`` is the initial weight for "enter", the outcome's value for "use", and the new
    value for "revalue", which re-values the earlier use ``target_seq`` at that use's own
    position; the original use is never edited.
    """

    seq: int
    kind: EventKind
    value: float
    session_pos: float
    day: float
    target_seq: int | None = None


@dataclass(frozen=True, slots=True)
class WeightState:
    """A cached weight: ``w_ref`` is the weight at track position ``a_ref``.

    ``a_ref`` is the furthest position folded in, so decay factors are always 2^(−x) with
    x ≥ 0 and never overflow. ``epoch_seq`` is the seq of the latest "enter" (None: none
    yet); ``last_seq`` the last seq folded, so ``fold`` can insist on log order. Persist all
    four; ``EMPTY`` is the state before any event.
    """

    w_ref: float
    a_ref: float
    epoch_seq: int | None = None
    last_seq: int | None = None


EMPTY = WeightState(w_ref=0.0, a_ref=-math.inf)
"""The state of a skill with no events: weight 0 everywhere."""


def credit_key(member: str, skill: str, session_id: str) -> tuple[str, str, str]:
    """The uniqueness key of a credited use: one use per (member, skill, session).

    Reading a skill three times in one session is one use; the store enforces this key (for
    example as a unique index) before appending a "use" event.
    """
    return (member, skill, session_id)


def position(event: EventLike, track: Track) -> float:
    """The event's coordinate on ``track``: its session ordinal, or its day."""
    if track == "session":
        return float(event.session_pos)
    if track == "time":
        return float(event.day)
    raise ValueError(f"track: expected 'session' or 'time', got {track!r}")


def _decay(distance: float, half_life: float) -> float:
    # distance ≥ 0 always (see WeightState), so this is in [0, 1]; exp2(-inf) is 0.0.
    return math.exp2(-distance / half_life)


def _add(
    w_ref: float, a_ref: float, value: float, a: float, half_life: float
) -> tuple[float, float]:
    if a >= a_ref:
        return w_ref * _decay(a - a_ref, half_life) + value, a
    # A late event (a recovered transcript of an older session): decayed by its own distance.
    return w_ref + value * _decay(a_ref - a, half_life), a_ref


def fold(
    state: WeightState,
    event: EventLike,
    track: Track,
    params: SkillParams,
    target: EventLike | None = None,
    current_value: float | None = None,
) -> WeightState:
    """Fold one event into ``state`` in O(1); events must come in log (seq) order.

    Positions may come in any order: an event behind ``a_ref`` is added with its own decay
    factor. An "enter" resets the weight to its value (see ``closed_form`` for why). A
    "revalue" needs ``target``, the use it corrects, and ``current_value``, that use's
    effective value before this correction (defaults to ``target.value``, i.e. no earlier
    correction); a correction of a use logged before the latest enter changes nothing.
    Raises ``ValueError`` on an out-of-order seq or an inconsistent revaluation.
    """
    if state.last_seq is not None and event.seq <= state.last_seq:
        raise ValueError(f"seq {event.seq} folded after seq {state.last_seq}: fold needs log order")
    half_life = params.half_life(track)
    if event.kind == "enter":
        return WeightState(float(event.value), position(event, track), event.seq, event.seq)
    if event.kind == "use":
        if target is not None or current_value is not None:
            raise ValueError(f"seq {event.seq}: only a revalue takes a target")
        w, a = _add(state.w_ref, state.a_ref, event.value, position(event, track), half_life)
        return WeightState(w, a, state.epoch_seq, event.seq)
    if event.kind != "revalue":
        raise ValueError(f"seq {event.seq}: unknown kind {event.kind!r}")
    if target is None or target.seq != event.target_seq:
        raise ValueError(f"seq {event.seq}: pass the use {event.target_seq} it re-values")
    _check_target(event, target)
    if state.epoch_seq is not None and target.seq < state.epoch_seq:
        return replace(state, last_seq=event.seq)
    old = target.value if current_value is None else current_value
    revalued = apply_revalue(state, position(target, track), old, event.value, track, params)
    return replace(revalued, last_seq=event.seq)


def apply_revalue(
    state: WeightState,
    a_target: float,
    old_value: float,
    new_value: float,
    track: Track,
    params: SkillParams,
) -> WeightState:
    """Change one folded use at position ``a_target`` from ``old_value`` to ``new_value``.

    Adds ``(new − old)·2^(−(a_ref − a_target)/h)``; the result is clamped at 0 to absorb
    rounding. Raises ``ValueError`` if ``a_target`` lies beyond ``a_ref`` (never folded).
    """
    if a_target > state.a_ref:
        raise ValueError(f"re-valued use at {a_target} lies beyond a_ref {state.a_ref}")
    delta = (new_value - old_value) * _decay(state.a_ref - a_target, params.half_life(track))
    return replace(state, w_ref=max(0.0, state.w_ref + delta))


def weight_at(state: WeightState, a_now: float, track: Track, params: SkillParams) -> float:
    """The weight at track position ``a_now``: the cached weight decayed up to now.

    A weight never grows by reading it early: for ``a_now < a_ref`` it is ``w_ref``.
    """
    if a_now <= state.a_ref:
        return state.w_ref
    return state.w_ref * _decay(a_now - state.a_ref, params.half_life(track))


def _check_target(event: EventLike, target: EventLike) -> None:
    if target.kind != "use":
        raise ValueError(f"seq {event.seq}: re-values seq {target.seq}, a {target.kind!r}")
    if target.seq >= event.seq:
        raise ValueError(f"seq {event.seq}: re-values a later seq {target.seq}")


@dataclass(frozen=True, slots=True)
class _Ledger:
    """The log read once: what counts now, with every correction applied."""

    epoch_seq: int | None
    last_seq: int | None
    counted: list[tuple[EventLike, float]]  # events that count, with effective values
    values: dict[int, float]  # effective value of every use, by seq


def _read(events: Iterable[EventLike]) -> _Ledger:
    ordered = sorted(events, key=lambda e: e.seq)
    by_seq: dict[int, EventLike] = {}
    values: dict[int, float] = {}
    epoch_seq: int | None = None
    for event in ordered:
        if event.seq in by_seq:
            raise ValueError(f"seq {event.seq} appears twice")
        by_seq[event.seq] = event
        if event.kind == "enter":
            epoch_seq = event.seq
        elif event.kind == "use":
            values[event.seq] = float(event.value)
        elif event.kind == "revalue":
            target = by_seq.get(event.target_seq) if event.target_seq is not None else None
            if target is None:
                raise ValueError(f"seq {event.seq}: re-values unknown seq {event.target_seq}")
            _check_target(event, target)
            values[target.seq] = float(event.value)  # log order: the latest one wins
        else:
            raise ValueError(f"seq {event.seq}: unknown kind {event.kind!r}")
    counted: list[tuple[EventLike, float]] = []
    for event in ordered:
        if epoch_seq is not None and event.seq < epoch_seq:
            continue
        if event.kind == "enter":
            counted.append((event, float(event.value)))
        elif event.kind == "use":
            counted.append((event, values[event.seq]))
    last_seq = ordered[-1].seq if ordered else None
    return _Ledger(epoch_seq, last_seq, counted, values)


def rebuild(events: Iterable[EventLike], track: Track, params: SkillParams) -> WeightState:
    """Rebuild the state from the whole log, in any order; equals folding it in log order.

    Works in axis order (every step an in-order O(1) update), with corrections applied
    up front, so it is an independent path to the same number as ``fold``.
    """
    ledger = _read(events)
    half_life = params.half_life(track)
    w, a_ref = 0.0, -math.inf
    for event, value in sorted(ledger.counted, key=lambda c: (position(c[0], track), c[0].seq)):
        w, a_ref = _add(w, a_ref, value, position(event, track), half_life)
    return WeightState(w, a_ref, ledger.epoch_seq, ledger.last_seq)


def closed_form(
    events: Iterable[EventLike], track: Track, a_now: float, params: SkillParams
) -> float:
    """``W(now) = Σ v_j · 2^(−(a_now − a_j)/h)`` evaluated directly, events in any order.

    Counted: the latest "enter" (by seq) and the uses logged after it, each with its latest
    re-valuation (by seq) applied at the use's own position. A re-entry (a reclaim, or a
    re-add or sync) therefore RESETS the weight to the initial value: a reclaimed skill
    starts fresh at 1.0 like a new one, with a fresh protection, instead of carrying the
    decayed remains of its earlier stay. "After" is log order, not axis position: an enter
    is always a live command, so everything logged before it was known at the reset, and a
    use recovered later from an older session still counts, decayed by its own distance.
    With no enter at all, every use counts. As in ``weight_at``, no weight grows by reading
    it before its latest event: ``a_now`` is raised to the furthest counted position.
    """
    ledger = _read(events)
    if not ledger.counted:
        return 0.0
    half_life = params.half_life(track)
    a_eff = max(a_now, max(position(e, track) for e, _ in ledger.counted))
    return math.fsum(v * _decay(a_eff - position(e, track), half_life) for e, v in ledger.counted)


def effective_values(events: Iterable[EventLike]) -> dict[int, float]:
    """Each use's effective value by seq: its own value or its latest re-valuation's.

    This is the ``current_value`` a caller passes to ``fold`` for the next correction.
    """
    return _read(events).values


def latest_enter(events: Iterable[EventLike]) -> EventLike | None:
    """The latest (by seq) "enter" event: where the current stay in the set began."""
    enters = [e for e in events if e.kind == "enter"]
    return max(enters, key=lambda e: e.seq) if enters else None


def last_positive_use(events: Iterable[EventLike]) -> EventLike | None:
    """The latest use since the latest enter whose effective value is more than zero.

    Idleness is counted from it (or from the enter if there is none). A failure (0.25)
    counts; a use corrected to 0.0 does not. "Latest" is by (day, session_pos, seq).
    """
    ledger = _read(events)
    positive = [e for e, v in ledger.counted if e.kind == "use" and v > 0.0]
    if not positive:
        return None
    return max(positive, key=lambda e: (e.day, e.session_pos, e.seq))
