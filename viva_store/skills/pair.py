"""One (member, skill) pair rebuilt from its own events: the reference path.

:func:`load_pair_events` places a pair's weight events on the member's current axis;
:func:`viva_store.skills.state.state_from_events` turns them into its state with
the pure maths. The bulk rebuild (:mod:`viva_store.skills.rebuild`) uses this for
pairs whose history the aggregate does not take, and the tests use it for every pair.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import fields
from datetime import datetime
from operator import attrgetter

from sqlalchemy import Connection, delete, insert, select

from viva_store.clock import as_utc
from viva_store.db.schema import MEMBER, MEMBER_SKILL, SKILL_EVENT
from viva_store.skills.axis import Axis, load_anchors, place, tau
from viva_store.skills.events import STATUS_KINDS, WEIGHT_KINDS, chunks
from viva_store.skills.params import SkillParams, Track
from viva_store.skills.state import WEIGHT_KIND, PairState, PlacedEvent, state_from_events

Key = tuple[str, str]


def members_natives(conn: Connection, members: Iterable[str]) -> dict[str, set[str]]:
    """Each member's native skills (from its ``soul.md``, as loaded)."""
    out: dict[str, set[str]] = {}
    for part in chunks(sorted(set(members))):
        for name, natives in conn.execute(
            select(MEMBER.c.name, MEMBER.c.native_skills).where(MEMBER.c.name.in_(part))
        ):
            out[name] = set(natives or ())
    return out


def load_pair_events(conn: Connection, member: str, skill: str, axis: Axis) -> list[PlacedEvent]:
    """One pair's weight events, placed on the member's current axis."""
    rows = list(
        conn.execute(
            select(
                SKILL_EVENT.c.id,
                SKILL_EVENT.c.kind,
                SKILL_EVENT.c.value,
                SKILL_EVENT.c.session_id,
                SKILL_EVENT.c.execution_id,
                SKILL_EVENT.c.target_id,
                SKILL_EVENT.c.day,
                SKILL_EVENT.c.at,
            )
            .where(
                SKILL_EVENT.c.member == member,
                SKILL_EVENT.c.skill == skill,
                SKILL_EVENT.c.kind.in_(WEIGHT_KINDS),
            )
            .order_by(SKILL_EVENT.c.id)
        )
    )
    anchors = load_anchors(
        conn,
        [r.session_id for r in rows if r.session_id],
        [r.execution_id for r in rows if r.execution_id],
    )
    return [
        PlacedEvent(
            seq=int(r.id),
            kind=WEIGHT_KIND[r.kind],
            value=float(r.value or 0.0),
            session_pos=float(place(axis, anchors, r.session_id, r.execution_id, as_utc(r.at))),
            day=float(r.day),
            tau=tau(anchors, r.session_id, r.execution_id, as_utc(r.at)),
            target_seq=r.target_id,
        )
        for r in rows
    ]


def pair_facts(conn: Connection, member: str, skill: str) -> tuple[Track, str | None]:
    """A pair's track and status (active / forgotten / None: never in the set), from the log."""
    track: Track = "session"
    status: str | None = None
    rows = conn.execute(
        select(SKILL_EVENT.c.kind, SKILL_EVENT.c.track)
        .where(
            SKILL_EVENT.c.member == member,
            SKILL_EVENT.c.skill == skill,
            SKILL_EVENT.c.kind.in_((*STATUS_KINDS, "track_changed")),
        )
        .order_by(SKILL_EVENT.c.id)
    )
    for kind, new_track in rows:
        if kind == "track_changed" and new_track in ("session", "time"):
            track = new_track
        elif kind in STATUS_KINDS:
            status = "forgotten" if kind == "forgotten" else "active"
    return track, status


def rebuild_pair(
    conn: Connection, params: SkillParams, member: str, skill: str, axis: Axis, now: datetime
) -> PairState | None:
    """Rebuild one pair from its events and store it in the cache."""
    track, status = pair_facts(conn, member, skill)
    natives = members_natives(conn, [member]).get(member, set())
    events = load_pair_events(conn, member, skill, axis)
    state = state_from_events(
        member, skill, events, track, status or "active", skill in natives, params
    )
    conn.execute(
        delete(MEMBER_SKILL).where(MEMBER_SKILL.c.member == member, MEMBER_SKILL.c.skill == skill)
    )
    if state is not None:
        conn.execute(insert(MEMBER_SKILL).values(**state.values(), updated_at=now))
    return state


def read_cache(conn: Connection, members: Iterable[str] | None = None) -> dict[Key, PairState]:
    """The cached states (for comparison with a rebuild, and for readers)."""
    query = select(MEMBER_SKILL)
    if members is not None:
        query = query.where(MEMBER_SKILL.c.member.in_(sorted(set(members))))
    return {(r.member, r.skill): PairState.from_row(r) for r in conn.execute(query)}


_EXACT = attrgetter(*(f.name for f in fields(PairState) if f.name not in ("w_ref", "a_ref")))
"""Every field of a cached state but the weight's two numbers."""


def same_state(a: PairState, b: PairState, rel: float = 1e-9) -> bool:
    """Equal up to floating-point rounding of the weights (everything else exactly)."""
    close = math.isclose(a.w_ref, b.w_ref, rel_tol=rel, abs_tol=1e-12) and math.isclose(
        a.a_ref, b.a_ref, rel_tol=rel, abs_tol=1e-9
    )
    return close and _EXACT(a) == _EXACT(b)
