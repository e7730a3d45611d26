"""A skill's weight curve: its history on its track and its projected decay (DESIGN §3).

The data behind ``viva skill curve`` and the TUI plot: one point per step from the first
entry to now (plus the exact weight just after each event), the events as marks, and the
decay to come with no further use, up to where it would cross the forgetting threshold.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from viva_store.skills.params import SkillParams, Track
from viva_store.skills.weights import (
    EventLike,
    effective_values,
    last_positive_use,
    latest_enter,
    position,
    rebuild,
    weight_at,
)

MAX_POINTS = 100_000
"""A guard against a step so small that a curve would not fit in memory."""


@dataclass(frozen=True, slots=True)
class Curve:
    """A skill's weight over its track's axis (session ordinals, or days).

    ``points`` are ``(a, weight)`` in axis order; ``marks`` are ``(a, kind, value)`` for
    each "enter" and "use" at its position, and each "revalue" at the position of the use
    it corrects, with the new value. ``projection`` is the decay from now with no further
    use, one point per step until the weight crosses ``forget_below`` and one step beyond,
    plus the exact crossing. ``crosses_at`` is where the weight would fall below
    ``forget_below`` (now, if it already has; None if it never can). ``forget_due_at`` is
    the earliest position at which rule 1 could forget the skill: the crossing, the idle
    threshold after the last positive use (or the entry), and on the session track the end
    of the protection. ``protected_until_pos`` (session axis, whatever the track) is where
    the protection of the latest entry lapses. Rule 2 (capacity) depends on the other
    skills and is not shown here.
    """

    track: Track
    points: list[tuple[float, float]]
    marks: list[tuple[float, str, float]]
    projection: list[tuple[float, float]]
    weight_now: float
    crosses_at: float | None
    forget_due_at: float | None
    protected_until_pos: float | None


def _grid(start: float, stop: float, step: float) -> list[float]:
    count = math.floor((stop - start) / step)
    if count > MAX_POINTS:
        raise ValueError(f"step: {step} gives more than {MAX_POINTS} points")
    grid = [start + k * step for k in range(count + 1)]
    if grid[-1] < stop:
        grid.append(stop)
    return grid


def _history(
    items: list[tuple[float, int, str, float]], samples: list[float], half_life: float
) -> list[tuple[float, float]]:
    """Sweep the axis once: at each sample, the weight of the log restricted to it.

    ``items`` are (position, seq, kind, effective value), sorted. At a position p the
    weight counts the events positioned at or before p that are logged after the latest
    of those entries, exactly as ``closed_form`` of that part of the log.
    """
    points: list[tuple[float, float]] = []
    swept: list[tuple[float, int, str, float]] = []
    epoch: int | None = None
    w, a_ref = 0.0, -math.inf
    i = 0
    for p in samples:
        while i < len(items) and items[i][0] <= p:
            item = items[i]
            swept.append(item)
            a, seq, kind, value = item
            if kind == "enter" and (epoch is None or seq > epoch):
                # A re-entry resets the weight; late-logged uses positioned before it stay.
                epoch = seq
                w = math.fsum(
                    v * math.exp2(-(a - b) / half_life) for b, s, _, v in swept if s >= seq
                )
                a_ref = a
            elif epoch is None or seq > epoch:
                w = w * math.exp2(-(a - a_ref) / half_life) + value
                a_ref = a
            i += 1
        points.append((p, w * math.exp2(-(p - a_ref) / half_life) if p > a_ref else w))
    return points


def curve(
    events: Iterable[EventLike],
    track: Track,
    params: SkillParams,
    a_from: float | None,
    a_now: float,
    step: float = 1.0,
) -> Curve:
    """The weight curve of one (member, skill) log on ``track``, from ``a_from`` to ``a_now``.

    ``a_from`` None starts at the first entry (or the first event). Re-valuations rewrite
    history: a corrected use shows its corrected value at its own position. Raises
    ``ValueError`` for a non-positive step, ``a_now < a_from`` or too many points.
    """
    if not step > 0 or not math.isfinite(step):
        raise ValueError(f"step: must be a positive number, got {step!r}")
    log = list(events)
    values = effective_values(log)
    by_seq = {e.seq: e for e in log}
    items = sorted(
        (position(e, track), e.seq, e.kind, values.get(e.seq, float(e.value)))
        for e in log
        if e.kind in ("enter", "use")
    )
    enter = latest_enter(log)
    if a_from is None:
        enter_positions = [a for a, _, kind, _ in items if kind == "enter"]
        a_from = min(enter_positions or [a for a, *_ in items] or [a_now])
    if a_now < a_from:
        raise ValueError(f"a_now: {a_now} is before a_from {a_from}")
    marks: list[tuple[float, int, str, float]] = []
    for e in log:
        at = by_seq[e.target_seq] if e.kind == "revalue" and e.target_seq is not None else e
        a = position(at, track)
        if a_from <= a <= a_now:
            marks.append((a, e.seq, e.kind, float(e.value)))
    marks.sort()
    after_events = {a for a, *_ in marks}
    samples = sorted(set(_grid(a_from, a_now, step)) | after_events)
    half_life = params.half_life(track)
    points = _history(items, samples, half_life)

    state = rebuild(log, track, params)
    w_now = weight_at(state, a_now, track, params)
    a_eff = max(a_now, state.a_ref)
    threshold = params.forget_below
    crosses_at: float | None = None
    projection: list[tuple[float, float]] = []
    if items and threshold > 0:
        crosses_at = (
            a_eff + half_life * math.log2(w_now / threshold) if w_now >= threshold else a_now
        )
        # Grid points up to the crossing, then the first one strictly beyond it.
        beyond = math.floor((crosses_at - a_now) / step) + 1
        if beyond > MAX_POINTS:
            raise ValueError(f"step: {step} gives more than {MAX_POINTS} points")
        grid = [a_now + k * step for k in range(beyond + 1)]
        projection = [(a, weight_at(state, a, track, params)) for a in grid]
        if crosses_at > a_now and crosses_at not in grid:
            projection.append((crosses_at, threshold))
            projection.sort()
    elif items:
        projection = [(a_now, w_now)]

    forget_due_at: float | None = None
    protected_until: float | None = None
    if crosses_at is not None:
        anchor = position(enter, track) if enter is not None else items[0][0]
        used = last_positive_use(log)
        if used is not None:
            anchor = max(anchor, position(used, track))
        forget_due_at = max(crosses_at, anchor + params.idle_threshold(track))
    if enter is not None:
        protected_until = float(enter.session_pos) + params.protect_sessions
        if track == "session" and forget_due_at is not None:
            forget_due_at = max(forget_due_at, protected_until)
    return Curve(
        track=track,
        points=points,
        marks=[(a, kind, value) for a, _, kind, value in marks],
        projection=projection,
        weight_now=w_now,
        crosses_at=crosses_at,
        forget_due_at=forget_due_at,
        protected_until_pos=protected_until,
    )
