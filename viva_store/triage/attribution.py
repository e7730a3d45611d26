"""Attribution (DESIGN I6): who a recovered session belongs to, and why.

The log is ``classification`` (append-only): the owner's ``member`` /
``nobody`` / ``unclassify`` decisions and ``execution`` events written when
a session matches the record of a launch through Viva. ``attribution`` is
derived from it and can be rebuilt at any time:

* a session's own latest event decides;
* with none, a sub-agent session follows its parent;
* otherwise it is unattributed and waits in the owner's queue.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from sqlalchemy import Connection, delete, func, insert, or_, select, text, update

from viva_store.clock import as_utc
from viva_store.db.schema import ATTRIBUTION, CLASSIFICATION, EXECUTION, SESSION

IN_BATCH = 500


@dataclass(frozen=True, slots=True)
class Derived:
    status: str
    member: str | None
    source: str
    classification_id: int | None
    note: str = ""


UNATTRIBUTED = Derived("unattributed", None, "none", None)


def _chunks(values: list[Any]) -> Iterable[list[Any]]:
    for start in range(0, len(values), IN_BATCH):
        yield values[start : start + IN_BATCH]


def _own(event: Any) -> Derived:
    if event.action in ("member", "execution"):
        source = "execution" if event.action == "execution" else "owner"
        return Derived("attributed", event.member, source, event.id, event.note)
    if event.action == "nobody":
        return Derived("nobody", None, "owner", event.id, event.note)
    return Derived("unattributed", None, "none", event.id, event.note)


def _latest_events(conn: Connection, ids: list[str]) -> dict[str, Any]:
    latest: dict[str, Any] = {}
    for part in _chunks(ids):
        newest = (
            select(CLASSIFICATION.c.session_id, func.max(CLASSIFICATION.c.id).label("id"))
            .where(CLASSIFICATION.c.session_id.in_(part))
            .group_by(CLASSIFICATION.c.session_id)
            .subquery()
        )
        for row in conn.execute(
            select(CLASSIFICATION).join(newest, CLASSIFICATION.c.id == newest.c.id)
        ):
            latest[row.session_id] = row
    return latest


def rebuild(conn: Connection, session_ids: Iterable[str] | None = None) -> set[str]:
    """Recompute ``attribution`` for these sessions (all when None) and their sub-agents.

    Returns the members whose attributed sessions may have changed (their
    session axis moved, so their skill weights need rebuilding).
    """
    sessions: dict[str, Any]
    if session_ids is None:
        sessions = {
            r.id: r
            for r in conn.execute(
                select(
                    SESSION.c.id, SESSION.c.harness, SESSION.c.native_id, SESSION.c.parent_native_id
                )
            )
        }
    else:
        sessions = {}
        for part in _chunks(sorted(set(session_ids))):
            for row in conn.execute(
                select(
                    SESSION.c.id, SESSION.c.harness, SESSION.c.native_id, SESSION.c.parent_native_id
                ).where(SESSION.c.id.in_(part))
            ):
                sessions[row.id] = row
        frontier = list(sessions.values())
        while frontier:  # sub-agents (and their sub-agents) follow their parent
            parents = {(r.harness, r.native_id) for r in frontier}
            children: list[Any] = []
            for part in _chunks(sorted({native for _, native in parents})):
                query = select(
                    SESSION.c.id, SESSION.c.harness, SESSION.c.native_id, SESSION.c.parent_native_id
                )
                for row in conn.execute(query.where(SESSION.c.parent_native_id.in_(part))):
                    if (row.harness, row.parent_native_id) in parents and row.id not in sessions:
                        sessions[row.id] = row
                        children.append(row)
            frontier = children
    ids = list(sessions)
    before = {}
    for part in _chunks(ids):
        for att in conn.execute(
            select(ATTRIBUTION.c.session_id, ATTRIBUTION.c.member).where(
                ATTRIBUTION.c.session_id.in_(part)
            )
        ):
            before[att.session_id] = att.member
    latest = _latest_events(conn, ids)
    by_native = {(r.harness, r.native_id): r.id for r in sessions.values()}
    derived: dict[str, Derived] = {}

    def resolve(sid: str, depth: int = 0) -> Derived:
        if sid in derived:
            return derived[sid]
        row = sessions[sid]
        result = UNATTRIBUTED
        if sid in latest:
            result = _own(latest[sid])
        elif row.parent_native_id and depth < 32:
            parent = by_native.get((row.harness, row.parent_native_id))
            if parent is not None:
                from_parent = resolve(parent, depth + 1)
            else:
                from_parent = _stored(conn, row.harness, row.parent_native_id)
            if from_parent.status != "unattributed":
                result = Derived(from_parent.status, from_parent.member, "parent", None)
        derived[sid] = result
        return result

    for sid in ids:
        resolve(sid)
    keep_notes = _notes(conn, ids)
    for part in _chunks(ids):
        conn.execute(delete(ATTRIBUTION).where(ATTRIBUTION.c.session_id.in_(part)))
    rows = [
        {
            "session_id": sid,
            "status": d.status,
            "member": d.member,
            "source": d.source,
            "classification_id": d.classification_id,
            "note": d.note or (keep_notes.get(sid, "") if d.status == "unattributed" else ""),
        }
        for sid, d in derived.items()
    ]
    if rows:
        conn.execute(insert(ATTRIBUTION), rows)
    changed = {
        m
        for sid, d in derived.items()
        for m in (d.member, before.get(sid))
        if m and d.member != before.get(sid)
    }
    return changed


def _stored(conn: Connection, harness: str, native_id: str) -> Derived:
    row = conn.execute(
        select(ATTRIBUTION)
        .join(SESSION, SESSION.c.id == ATTRIBUTION.c.session_id)
        .where(SESSION.c.harness == harness, SESSION.c.native_id == native_id)
    ).first()
    if row is None:
        return UNATTRIBUTED
    return Derived(row.status, row.member, row.source, row.classification_id)


def _notes(conn: Connection, ids: list[str]) -> dict[str, str]:
    notes: dict[str, str] = {}
    for part in _chunks(ids):
        for row in conn.execute(
            select(ATTRIBUTION.c.session_id, ATTRIBUTION.c.note).where(
                ATTRIBUTION.c.session_id.in_(part), ATTRIBUTION.c.note != ""
            )
        ):
            notes[row.session_id] = row.note
    return notes


_OWN_RUN = ("continues", "copy_of")
"""Links to a parent that do not make a session part of the parent's run."""


def match_executions(
    conn: Connection, session_ids: Iterable[str], window: timedelta, now: Any
) -> set[str]:
    """Attribute new sessions that match an execution record; note ambiguous ones.

    A session matches by the harness's own session id when the execution knows
    it; else by harness, cwd and a start within ``window`` of the execution's
    start. Exactly one candidate attributes; several attribute nothing and the
    reason is kept as the session's note. Sessions with a classification of
    their own, and sub-agent sessions (they follow their parent), are left alone; a
    session that continues another (a resumed copy) is a run of its own and matches.
    """
    from viva_store.redact import RULESET_VERSION  # loaded already by the import

    ids = sorted(set(session_ids))
    if not ids:
        return set()
    latest = _latest_events(conn, ids)
    claimed = set(
        conn.execute(
            select(CLASSIFICATION.c.execution_id).where(CLASSIFICATION.c.execution_id.is_not(None))
        ).scalars()
    )
    events: list[dict[str, Any]] = []
    notes: dict[str, str] = {}
    sessions = [
        s
        for part in _chunks(ids)
        for s in conn.execute(select(SESSION).where(SESSION.c.id.in_(part)))
        if s.id not in latest and (not s.parent_native_id or s.relation in _OWN_RUN)
    ]
    # Executions are few next to sessions: index the relevant ones in memory once.
    harnesses = sorted({s.harness for s in sessions})
    by_native: dict[tuple[str, str], list[Any]] = {}
    by_place: dict[tuple[str, str], list[Any]] = {}
    for e in (
        conn.execute(select(EXECUTION).where(EXECUTION.c.harness.in_(harnesses)))
        if harnesses
        else ()
    ):
        if e.native_session_id:
            by_native.setdefault((e.harness, e.native_session_id), []).append(e)
        else:
            by_place.setdefault((e.harness, e.cwd), []).append(e)
    for s in sessions:
        candidates = by_native.get((s.harness, s.native_id), [])
        if not candidates and s.started_at is not None and s.cwd:
            start = as_utc(s.started_at)
            candidates = [
                e
                for e in by_place.get((s.harness, s.cwd), [])
                if e.id not in claimed and abs(as_utc(e.started_at) - start) <= window
            ]
        if len(candidates) == 1:
            execution = candidates[0]
            claimed.add(execution.id)
            events.append(
                {
                    "session_id": s.id,
                    "action": "execution",
                    "member": execution.member,
                    "execution_id": execution.id,
                    "actor": "viva",
                    "at": now,
                    "note": f"launched through Viva as execution {execution.id}",
                    "ruleset": RULESET_VERSION,  # the note holds nothing but an id
                }
            )
        elif len(candidates) > 1:
            names = ", ".join(f"{e.id} ({e.member})" for e in candidates)
            notes[s.id] = (
                f"ambiguous: {len(candidates)} executions match ({names}); left for the owner"
            )
    if events:
        conn.execute(insert(CLASSIFICATION), events)
    changed = rebuild(conn, ids)
    for sid, note in notes.items():
        conn.execute(
            update(ATTRIBUTION)
            .where(ATTRIBUTION.c.session_id == sid, ATTRIBUTION.c.status == "unattributed")
            .values(note=note)
        )
    return changed


def unclaimed_executions(conn: Connection) -> list[Any]:
    """The execution records no session has claimed (id, harness, cwd, native session
    id, start): launches whose session is not stored yet, or was left unmatched."""
    return list(conn.execute(_UNCLAIMED).all())


def awaiting_launch(conn: Connection, waiting: list[Any], window: timedelta) -> list[str]:
    """Stored sessions the unclaimed execution records ``waiting`` may attribute: with
    no classification event of their own, matching a record by native id or by harness,
    cwd and a start within ``window`` (what :func:`match_executions` decides).

    A run killed between storing a launched session and matching it (as older Viva
    did it, after the run) left such sessions.
    """
    found: set[str] = set()
    natives = sorted({(e.harness, e.native_session_id) for e in waiting if e.native_session_id})
    for part in _chunks(natives):
        pairs = [(SESSION.c.harness == h) & (SESSION.c.native_id == n) for h, n in part]
        found.update(conn.execute(select(SESSION.c.id).where(or_(*pairs))).scalars())
    places: dict[tuple[str, str], list[Any]] = {}
    for e in waiting:
        if not e.native_session_id:
            places.setdefault((e.harness, e.cwd), []).append(as_utc(e.started_at))
    if places:
        starts = [t for ts in places.values() for t in ts]
        query = select(SESSION.c.id, SESSION.c.harness, SESSION.c.cwd, SESSION.c.started_at).where(
            SESSION.c.harness.in_(sorted({h for h, _ in places})),
            SESSION.c.cwd.in_(sorted({c for _, c in places})),
            SESSION.c.started_at.between(min(starts) - window, max(starts) + window),
        )
        for s in conn.execute(query):
            near = places.get((s.harness, s.cwd), [])
            if any(abs(as_utc(s.started_at) - t) <= window for t in near):
                found.add(s.id)
    matched = sorted(found)
    owned = set(_latest_events(conn, matched))
    return [sid for sid in matched if sid not in owned]


# Asked by every import run: a set difference, not a correlated NOT EXISTS
# (classification.execution_id has no index), so one pass over each table whatever
# their sizes; text, so that the common answer (none) costs one short statement.
_UNCLAIMED = text(
    f"SELECT id, harness, cwd, native_session_id, started_at FROM {EXECUTION.name} "
    f"WHERE id IN (SELECT id FROM {EXECUTION.name} EXCEPT "
    f"SELECT execution_id FROM {CLASSIFICATION.name} WHERE execution_id IS NOT NULL)"
).columns(
    EXECUTION.c.id,
    EXECUTION.c.harness,
    EXECUTION.c.cwd,
    EXECUTION.c.native_session_id,
    EXECUTION.c.started_at,
)
