"""The cached state of one (member, skill), and how it follows from placed events.

``member_skill`` holds one :class:`PairState` per skill a member has ever carried. It is
a cache: :func:`state_from_events` derives the same numbers from the append-only log
(through the pure maths of :mod:`viva_store.skills.weights`), and the service keeps the
cache equal to that derivation after every change (``viva skill rebuild --check``).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from datetime import datetime
from operator import attrgetter
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert, select

from viva_store.db.schema import MEMBER_SKILL
from viva_store.skills.events import ENTER_KINDS, finite, to_datetime
from viva_store.skills.params import SkillParams, Track
from viva_store.skills.weights import (
    EventKind,
    WeightState,
    effective_values,
    last_positive_use,
    latest_enter,
    rebuild,
    weight_at,
)

WEIGHT_KIND: dict[str, EventKind] = {
    **dict.fromkeys(ENTER_KINDS, "enter"),
    "used": "use",
    "revalued": "revalue",
}


@dataclass(frozen=True, slots=True)
class PlacedEvent:
    """A weight event of the log with its position recomputed from the current axis.

    Satisfies :class:`viva_store.skills.weights.EventLike`; ``tau`` is the instant it
    stands for (its session's start, its execution's, or when it was recorded).
    """

    seq: int
    kind: EventKind
    value: float
    session_pos: float
    day: float
    tau: datetime
    target_seq: int | None = None


@dataclass(frozen=True, slots=True)
class PairState:
    """One row of ``member_skill``: set membership and the weight as ``(w_ref, a_ref)``.

    ``w_ref`` is the weight at position ``a_ref`` of the skill's track (the furthest
    position folded in). ``uses`` counts the credited uses since the skill last entered
    the set; ``last_used_at`` is the instant of the latest of them worth more than zero
    (idleness counts from it); ``entered_pos`` / ``entered_day`` place that entry.
    """

    member: str
    skill: str
    track: Track
    status: str  # active | forgotten
    native: bool
    w_ref: float
    a_ref: float
    epoch_seq: int | None
    last_seq: int | None
    uses: int
    entered_pos: float
    entered_day: float
    last_used_at: datetime | None

    @property
    def weight_state(self) -> WeightState:
        """The pure-maths view of the cached weight."""
        return WeightState(self.w_ref, self.a_ref, self.epoch_seq, self.last_seq)

    def weight(self, now_pos: float, now_day: float, params: SkillParams) -> float:
        """The weight decayed to now on the skill's own track."""
        a_now = now_pos if self.track == "session" else now_day
        return weight_at(self.weight_state, a_now, self.track, params)

    def with_weight(self, state: WeightState) -> PairState:
        """This row with another weight state."""
        return replace(
            self,
            w_ref=finite(state.w_ref),
            a_ref=finite(state.a_ref),
            epoch_seq=state.epoch_seq,
            last_seq=state.last_seq,
        )

    def values(self) -> dict[str, Any]:
        """The row's columns (without ``updated_at``)."""
        return {
            "member": self.member,
            "skill": self.skill,
            "track": self.track,
            "status": self.status,
            "native": self.native,
            "w_ref": self.w_ref,
            "a_ref": self.a_ref,
            "epoch_seq": self.epoch_seq,
            "last_seq": self.last_seq,
            "uses": self.uses,
            "entered_pos": self.entered_pos,
            "entered_day": self.entered_day,
            "last_used_at": self.last_used_at,
        }

    @classmethod
    def from_row(cls, row: Any) -> PairState:
        """From a ``member_skill`` row."""
        m = row._mapping
        return cls(
            member=m["member"],
            skill=m["skill"],
            track=m["track"],
            status=m["status"],
            native=bool(m["native"]),
            w_ref=float(m["w_ref"]),
            a_ref=float(m["a_ref"]),
            epoch_seq=None if m["epoch_seq"] is None else int(m["epoch_seq"]),
            last_seq=None if m["last_seq"] is None else int(m["last_seq"]),
            uses=int(m["uses"]),
            entered_pos=float(m["entered_pos"]),
            entered_day=float(m["entered_day"]),
            last_used_at=to_datetime(m["last_used_at"]),
        )


COLUMNS = (
    "member",
    "skill",
    "track",
    "status",
    "native",
    "w_ref",
    "a_ref",
    "epoch_seq",
    "last_seq",
    "uses",
    "entered_pos",
    "entered_day",
    "last_used_at",
)


def entered(
    member: str,
    skill: str,
    seq: int,
    pos: float,
    day: float,
    track: Track,
    native: bool,
    params: SkillParams,
) -> PairState:
    """The state right after the skill enters the set (added, synced, reclaimed)."""
    a_ref = pos if track == "session" else day
    return PairState(
        member,
        skill,
        track,
        "active",
        native,
        params.initial_weight,
        a_ref,
        seq,
        seq,
        0,
        pos,
        day,
        None,
    )


def state_from_events(
    member: str,
    skill: str,
    events: list[PlacedEvent],
    track: Track,
    status: str,
    native: bool,
    params: SkillParams,
) -> PairState | None:
    """The state the log implies, computed from scratch (None: it never entered the set)."""
    enter = latest_enter(events)
    if enter is None:
        return None
    state = rebuild(events, track, params)
    values = effective_values(events)
    uses = sum(1 for e in events if e.kind == "use" and e.seq > enter.seq)
    last = last_positive_use(events)
    assert math.isfinite(state.a_ref)
    return PairState(
        member=member,
        skill=skill,
        track=track,
        status=status,
        native=native,
        w_ref=state.w_ref,
        a_ref=state.a_ref,
        epoch_seq=state.epoch_seq,
        last_seq=state.last_seq,
        uses=uses,
        entered_pos=float(enter.session_pos),
        entered_day=float(enter.day),
        last_used_at=None if last is None or values.get(last.seq, 0.0) <= 0 else last.tau,  # type: ignore[attr-defined]
    )


Key = tuple[str, str]
_EXACT = attrgetter(*(f.name for f in fields(PairState) if f.name not in ("w_ref", "a_ref")))
"""Every field of a cached state but the weight's two numbers."""


def same_state(a: PairState, b: PairState, rel: float = 1e-9) -> bool:
    """Equal up to floating-point rounding of the weights (everything else exactly)."""
    close = math.isclose(a.w_ref, b.w_ref, rel_tol=rel, abs_tol=1e-12) and math.isclose(
        a.a_ref, b.a_ref, rel_tol=rel, abs_tol=1e-9
    )
    return close and _EXACT(a) == _EXACT(b)


_CACHE_ROW = select(MEMBER_SKILL).where(
    MEMBER_SKILL.c.member == bindparam("member"), MEMBER_SKILL.c.skill == bindparam("skill")
)


def cache_row(conn: Connection, member: str, skill: str) -> PairState | None:
    """The cached state of one pair (None: never in the set)."""
    row = conn.execute(_CACHE_ROW, {"member": member, "skill": skill}).first()
    return None if row is None else PairState.from_row(row)


def read_cache(conn: Connection, members: Iterable[str] | None = None) -> dict[Key, PairState]:
    """The cached states of ``members`` (all when None), by pair."""
    query = select(MEMBER_SKILL)
    if members is not None:
        query = query.where(MEMBER_SKILL.c.member.in_(sorted(set(members))))
    return {(r.member, r.skill): PairState.from_row(r) for r in conn.execute(query)}


def store_state(conn: Connection, state: PairState, now: datetime) -> None:
    """Write one pair's cache row (replacing the one there)."""
    conn.execute(
        delete(MEMBER_SKILL).where(
            MEMBER_SKILL.c.member == state.member, MEMBER_SKILL.c.skill == state.skill
        )
    )
    conn.execute(insert(MEMBER_SKILL).values(**state.values(), updated_at=now))
