"""Pairs rebuilt from their own events: the reference path.

:func:`load_events` places pairs' weight events on their members' axes;
:func:`viva_store.skills.state.state_from_events` turns them into a state with the pure
maths. The bulk rebuild (:mod:`viva_store.skills.rebuild`) uses this for pairs whose
history its aggregate does not take; a correction and a track change rebuild their pair
with :func:`rebuild_pair`.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select, tuple_

from viva_store.clock import as_utc
from viva_store.db.schema import MEMBER, SKILL_EVENT
from viva_store.skills.axis import Placer, load_anchors, tau
from viva_store.skills.events import STATUS_KINDS, WEIGHT_KINDS, chunks
from viva_store.skills.params import SkillParams, Track
from viva_store.skills.state import (
    WEIGHT_KIND,
    Key,
    PairState,
    PlacedEvent,
    state_from_events,
    store_state,
)


def members_natives(conn: Connection, members: Iterable[str]) -> dict[str, set[str]]:
    """Each member's native skills (from its ``soul.md``, as loaded)."""
    out: dict[str, set[str]] = {}
    for part in chunks(sorted(set(members))):
        for name, natives in conn.execute(
            select(MEMBER.c.name, MEMBER.c.native_skills).where(MEMBER.c.name.in_(part))
        ):
            out[name] = set(natives or ())
    return out


def load_events(conn: Connection, pairs: Sequence[Key]) -> dict[Key, list[PlacedEvent]]:
    """The weight events of each pair, in log order, placed on its member's axis."""
    columns = (
        SKILL_EVENT.c.id,
        SKILL_EVENT.c.member,
        SKILL_EVENT.c.skill,
        SKILL_EVENT.c.kind,
        SKILL_EVENT.c.value,
        SKILL_EVENT.c.session_id,
        SKILL_EVENT.c.execution_id,
        SKILL_EVENT.c.target_id,
        SKILL_EVENT.c.day,
        SKILL_EVENT.c.at,
    )
    rows: list[Any] = []
    for part in chunks(sorted(set(pairs))):
        if len(part) == 1:
            member, skill = part[0]
            chosen = (SKILL_EVENT.c.member == member) & (SKILL_EVENT.c.skill == skill)
        else:
            chosen = tuple_(SKILL_EVENT.c.member, SKILL_EVENT.c.skill).in_(part)
        rows += conn.execute(
            select(*columns)
            .where(chosen, SKILL_EVENT.c.kind.in_(WEIGHT_KINDS))
            .order_by(SKILL_EVENT.c.id)
        ).all()
    anchors = load_anchors(
        conn,
        [r.session_id for r in rows if r.session_id],
        [r.execution_id for r in rows if r.execution_id],
    )
    placer = Placer(conn, anchors)
    for r in rows:
        placer.want(r.member, r.session_id, r.execution_id, r.at)
    placer.resolve()
    out: dict[Key, list[PlacedEvent]] = defaultdict(list)
    for r in sorted(rows, key=lambda r: int(r.id)):
        out[(r.member, r.skill)].append(
            PlacedEvent(
                seq=int(r.id),
                kind=WEIGHT_KIND[r.kind],
                value=float(r.value or 0.0),
                session_pos=float(placer.position(r.member, r.session_id, r.execution_id, r.at)),
                day=float(r.day),
                tau=tau(anchors, r.session_id, r.execution_id, as_utc(r.at)),
                target_seq=r.target_id,
            )
        )
    return {key: out.get(key, []) for key in pairs}


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
    conn: Connection, params: SkillParams, member: str, skill: str, now: datetime
) -> PairState | None:
    """Rebuild one pair from its events and store it in the cache."""
    track, status = pair_facts(conn, member, skill)
    natives = members_natives(conn, [member]).get(member, set())
    events = load_events(conn, [(member, skill)])[(member, skill)]
    state = state_from_events(
        member, skill, events, track, status or "active", skill in natives, params
    )
    if state is not None:
        store_state(conn, state, now)
    return state
