"""Reading principles, their versions and events in one transaction, within scope.

Every query carries :func:`~viva_store.access.member_scope` on ``principle.member``:
a member-scoped call loads only its own member's principles (DESIGN I5), and of their
evidence only the sessions it may see (the coordinator cites its own sessions).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, select

from viva_store.access import member_scope
from viva_store.clock import as_utc
from viva_store.db.schema import PRINCIPLE, PRINCIPLE_EVENT, PRINCIPLE_VERSION
from viva_store.principles.records import (
    CandidateRecord,
    PrincipleEventRecord,
    PrincipleRecord,
)
from viva_store.principles.state import (
    APPROVED,
    OPEN,
    PROPOSED,
    RETIRED,
    ROLLED_BACK,
    Event,
    State,
    approved_wording,
    fold,
)
from viva_store.sessions.service import visible_session_ids
from viva_store.store import Context


@dataclass(frozen=True, slots=True)
class Loaded:
    """One principle with its versions (by id), its events (log order) and folded state.

    ``hidden`` are the evidence references (``SESSION`` or ``SESSION#SEQ``) the caller may
    not see; every record made from this item leaves them out.
    """

    id: str
    member: str
    versions: dict[str, Any]
    events: tuple[Event, ...]
    state: State
    hidden: frozenset[str] = frozenset()

    def shown(self, evidence: Iterable[str]) -> tuple[list[str], int]:
        """The evidence the caller may see, and how many references are left out."""
        refs = list(evidence)
        kept = [ref for ref in refs if ref not in self.hidden]
        return kept, len(refs) - len(kept)

    def wordings(self) -> dict[int, str | None]:
        """Per event id, the wording it is about (see ``PrincipleEventRecord.wording``)."""
        approved: dict[int, str] = {}
        in_force: str | None = None
        out: dict[int, str | None] = {}
        for ev in self.events:
            row = self.version_row(ev.version) if ev.version is not None else None
            wording: str | None = row.text if row is not None else None
            if ev.action == APPROVED and ev.version is not None:
                wording = ev.text or wording
                if wording is not None:
                    approved[ev.version] = wording
                in_force = wording
            elif ev.action == ROLLED_BACK and ev.version is not None:
                wording = ev.text or approved.get(ev.version) or wording
                in_force = wording
            elif ev.action == RETIRED:
                wording, in_force = in_force, None
            out[ev.id] = wording
        return out

    def version_row(self, number: int) -> Any | None:
        """The version row numbered ``number``."""
        return next((v for v in self.versions.values() if v.version == number), None)

    def active_text(self) -> str | None:
        """The wording in force, or ``None``."""
        if self.state.active is None:
            return None
        row = self.version_row(self.state.active)
        return approved_wording(self.state, self.state.active, row.text if row else "")

    def proposal_event(self, version_id: str) -> int:
        """The id of the event that proposed ``version_id`` (its place in the log)."""
        return next(
            (e.id for e in self.events if e.action == PROPOSED and e.version_id == version_id), 0
        )

    def proposed_against(self, version_id: str) -> int | None:
        """The id of the event that put the then-active version in force when proposed."""
        for ev in self.events:
            if ev.action == PROPOSED and ev.version_id == version_id:
                value = (ev.basis or {}).get("active_event_id")
                return value if isinstance(value, int) else None
        return None

    def is_stale(self, version_id: str) -> bool:
        """Whether the active version changed since ``version_id`` was proposed."""
        current = self.state.active_event.id if self.state.active_event else None
        return current != self.proposed_against(version_id)


def lock(conn: Connection, principle_id: str) -> None:
    """Hold ``principle_id``'s row until the transaction ends (PostgreSQL), so two decisions
    on one principle are serialized and the second sees the first (the stale check).
    SQLite writes are serialized by ``BEGIN IMMEDIATE`` already."""
    conn.execute(select(PRINCIPLE.c.id).where(PRINCIPLE.c.id == principle_id).with_for_update())


def load(
    conn: Connection,
    ctx: Context,
    member: str | None = None,
    principle_ids: Iterable[str] | None = None,
) -> list[Loaded]:
    """Principles the actor may see, optionally narrowed to ``member`` or ``principle_ids``."""
    query = select(PRINCIPLE.c.id, PRINCIPLE.c.member).where(
        member_scope(ctx.actor, PRINCIPLE.c.member)
    )
    if member is not None:
        query = query.where(PRINCIPLE.c.member == member)
    if principle_ids is not None:
        query = query.where(PRINCIPLE.c.id.in_(list(principle_ids)))
    heads = {
        row.id: row.member
        for row in conn.execute(query.order_by(PRINCIPLE.c.created_at, PRINCIPLE.c.id))
    }
    if not heads:
        return []
    ids = list(heads)
    versions: dict[str, dict[str, Any]] = {pid: {} for pid in ids}
    numbers: dict[str, int] = {}
    for row in conn.execute(
        select(PRINCIPLE_VERSION)
        .where(PRINCIPLE_VERSION.c.principle_id.in_(ids))
        .order_by(PRINCIPLE_VERSION.c.principle_id, PRINCIPLE_VERSION.c.version)
    ):
        versions[row.principle_id][row.id] = row
        numbers[row.id] = row.version
    events: dict[str, list[Event]] = {pid: [] for pid in ids}
    for row in conn.execute(
        select(PRINCIPLE_EVENT)
        .where(PRINCIPLE_EVENT.c.principle_id.in_(ids))
        .order_by(PRINCIPLE_EVENT.c.id)
    ):
        events[row.principle_id].append(
            Event(
                id=row.id,
                principle_id=row.principle_id,
                version_id=row.version_id,
                version=numbers.get(row.version_id) if row.version_id else None,
                action=row.action,
                actor=row.actor,
                text=row.text,
                reason=row.reason,
                batch_id=row.batch_id,
                at=as_utc(row.at),
                basis=row.basis,
            )
        )
    hidden = _hidden_evidence(conn, ctx, versions, events)
    return [
        Loaded(pid, heads[pid], versions[pid], tuple(events[pid]), fold(events[pid]), hidden)
        for pid in ids
    ]


def _cited(basis: dict[str, Any] | None) -> list[str]:
    refs = (basis or {}).get("evidence")
    return [r for r in refs if isinstance(r, str)] if isinstance(refs, list) else []


def _hidden_evidence(
    conn: Connection,
    ctx: Context,
    versions: dict[str, dict[str, Any]],
    events: dict[str, list[Event]],
) -> frozenset[str]:
    """The evidence references of these principles that cite a session the actor cannot see."""
    if ctx.actor.is_owner:
        return frozenset()
    refs = {ref for rows in versions.values() for row in rows.values() for ref in row.evidence}
    refs |= {ref for evs in events.values() for ev in evs for ref in _cited(ev.basis)}
    seen = visible_session_ids(conn, ctx, {ref.partition("#")[0] for ref in refs})
    return frozenset(ref for ref in refs if ref.partition("#")[0] not in seen)


def active_record(item: Loaded) -> PrincipleRecord | None:
    """The active principle of ``item`` as a record, or ``None``."""
    state = item.state
    if state.active is None or state.active_event is None:
        return None
    row = item.version_row(state.active)
    if row is None:
        return None
    evidence, hidden = item.shown(row.evidence)
    return PrincipleRecord(
        id=item.id,
        member=item.member,
        version=state.active,
        version_id=row.id,
        text=approved_wording(state, state.active, row.text),
        rationale=row.rationale,
        evidence=tuple(evidence),
        proposed_by=row.proposed_by,
        week=row.week,
        approved_at=state.active_event.at,
        activated_by=state.active_event.action,
        event_id=state.active_event.id,
        evidence_hidden=hidden,
    )


def candidates(items: list[Loaded]) -> list[CandidateRecord]:
    """Every candidate of ``items``, duplicates' evidence folded into what they merged into."""
    merged: dict[str, list[str]] = {}
    for item in items:
        for dup, into in item.state.merged_into.items():
            merged.setdefault(into, []).append(dup)
    rows = {vid: row for item in items for vid, row in item.versions.items()}
    out: list[CandidateRecord] = []
    for item in items:
        active_text = item.active_text()
        for vid, row in item.versions.items():
            status = item.state.status.get(vid, "pending")
            dups = sorted(merged.get(vid, []))
            evidence = list(row.evidence)
            for dup in dups:
                if dup in rows:
                    evidence += [e for e in rows[dup].evidence if e not in evidence]
            evidence, hidden = item.shown(evidence)
            out.append(
                CandidateRecord(
                    id=vid,
                    member=item.member,
                    text=row.text,
                    rationale=row.rationale,
                    evidence=tuple(evidence),
                    proposed_by=row.proposed_by,
                    week=row.week,
                    status=status,
                    principle_id=item.id,
                    version=row.version,
                    replaces_version=row.replaces_version,
                    active_version=item.state.active,
                    active_text=active_text,
                    stale=status in OPEN and item.is_stale(vid),
                    batch_id=item.state.batch.get(vid),
                    merged=tuple(dups),
                    proposed_at=as_utc(row.created_at),
                    proposal_event=item.proposal_event(vid),
                    evidence_hidden=hidden,
                )
            )
    return out


def _shown_basis(item: Loaded, basis: dict[str, Any] | None) -> dict[str, Any] | None:
    """``basis`` with the evidence the caller may not see left out."""
    if basis is None or not item.hidden or "evidence" not in basis:
        return basis
    return {**basis, "evidence": item.shown(_cited(basis))[0]}


def event_records(items: list[Loaded]) -> list[PrincipleEventRecord]:
    """Every event of ``items`` as records, oldest first."""
    wordings = {ev_id: w for item in items for ev_id, w in item.wordings().items()}
    events = [
        PrincipleEventRecord(
            id=ev.id,
            principle_id=item.id,
            member=item.member,
            version=ev.version,
            version_id=ev.version_id,
            action=ev.action,
            actor=ev.actor,
            text=ev.text,
            reason=ev.reason,
            batch_id=ev.batch_id,
            at=ev.at,
            basis=_shown_basis(item, ev.basis),
            wording=wordings.get(ev.id),
        )
        for item in items
        for ev in item.events
    ]
    return sorted(events, key=lambda e: e.id)
