"""The owner's decisions on principles (DESIGN §4, I7, I8). Owner only, append-only.

Approve (optionally in the owner's own wording), reject (a reason is required),
defer; roll an approved principle back to an earlier version; retire it. Each is
one new ``principle_event``; nothing is updated or deleted. This module holds
the only code that writes an "approved" event, and every function here starts
with :func:`~viva_store.access.require_owner`.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, insert, select

from viva_store.access import require_owner
from viva_store.db.schema import PRINCIPLE, PRINCIPLE_EVENT, PRINCIPLE_VERSION
from viva_store.errors import InvalidInput, NotFound
from viva_store.principles.load import Loaded, active_record, candidates, event_records, load, lock
from viva_store.principles.propose import MAX_TEXT, candidate
from viva_store.principles.records import (
    CandidateRecord,
    PrincipleEventRecord,
    PrincipleRecord,
)
from viva_store.principles.state import (
    APPROVED,
    DEFERRED,
    OPEN,
    REJECTED,
    RETIRED,
    ROLLED_BACK,
)
from viva_store.redact import RULESET_VERSION, redact_typed
from viva_store.store import Context

OWNER_NAME = "owner"


class StaleCandidate(InvalidInput):
    """The version a candidate would replace changed since it was proposed."""


def _short(text: str | None, width: int = 60) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _find(conn: Connection, ctx: Context, ref: str) -> tuple[Loaded, Any]:
    """A candidate by its id, or by its principle's id when exactly one is open."""
    ref = ref.strip()
    row = conn.execute(
        select(PRINCIPLE_VERSION.c.principle_id).where(PRINCIPLE_VERSION.c.id == ref)
    ).first()
    pid = row.principle_id if row else ref
    lock(conn, pid)
    found = load(conn, ctx, principle_ids=[pid])
    if not found:
        raise NotFound(f"no principle candidate {ref!r} (see `viva principle queue`)")
    item = found[0]
    if row is not None:
        return item, item.versions[ref]
    open_ = [v for vid, v in item.versions.items() if item.state.status.get(vid) in OPEN]
    if len(open_) != 1:
        listed = ", ".join(v.id for v in open_) or "none"
        raise InvalidInput(f"{ref!r} is a principle; name one of its open candidates ({listed})")
    return item, open_[0]


def _principle(conn: Connection, ctx: Context, ref: str) -> Loaded:
    """A principle by its id (a candidate id names its principle too)."""
    ref = ref.strip()
    row = conn.execute(
        select(PRINCIPLE_VERSION.c.principle_id).where(PRINCIPLE_VERSION.c.id == ref)
    ).first()
    pid = row.principle_id if row else ref
    if conn.execute(select(PRINCIPLE.c.id).where(PRINCIPLE.c.id == pid)).first() is None:
        raise NotFound(f"no principle {ref!r} (see `viva principle history`)")
    lock(conn, pid)
    return load(conn, ctx, principle_ids=[pid])[0]


def _require_open(item: Loaded, row: Any, action: str) -> None:
    status = item.state.status.get(row.id, "pending")
    if status not in OPEN:
        raise InvalidInput(f"cannot {action} {row.id}: it is already {status}")


def _describe(item: Loaded, event_id: int | None) -> str:
    event = next((e for e in item.events if e.id == event_id), None)
    if event is None or event.version is None:
        return "not in force"
    row = item.version_row(event.version)
    wording = event.text or (row.text if row else "")
    return f"version {event.version} ({_short(wording)!r})"


def _stale_message(item: Loaded, row: Any) -> str:
    now_event = item.state.active_event
    now = _describe(item, now_event.id if now_event else None)
    changed = (
        f"{now_event.action.replace('_', ' ')} on {now_event.at:%Y-%m-%d}"
        if now_event
        else "retired"
    )
    return (
        f"{row.id} is stale: when it was proposed, {item.member}'s principle {item.id} was "
        f"{_describe(item, item.proposed_against(row.id))}; it is now {now} ({changed}). "
        f"Read it again, then re-propose against it (`viva principle propose {item.member} "
        f"--replaces {item.id} --text ...`) or reject {row.id}"
    )


def _event(
    conn: Connection,
    item: Loaded,
    version_id: str | None,
    action: str,
    at: Any,
    text: str | None = None,
    reason: str = "",
    basis: dict[str, Any] | None = None,
) -> None:
    """Record one of the owner's decisions; what the owner typed is redacted first."""
    conn.execute(
        insert(PRINCIPLE_EVENT).values(
            principle_id=item.id,
            version_id=version_id,
            action=action,
            actor=OWNER_NAME,
            text=redact_typed(text),
            reason=redact_typed(reason),
            batch_id=None,
            at=at,
            basis=basis,
            ruleset=RULESET_VERSION,
        )
    )


def principle_history_of(ctx: Context, principle_id: str) -> list[PrincipleEventRecord]:
    """One principle's events, oldest first (owner only: used after a decision)."""
    require_owner(ctx.actor, "read a principle's events")
    return event_records(ctx.store.read(lambda c: load(c, ctx, principle_ids=[principle_id])))


def _active(ctx: Context, principle_id: str) -> PrincipleRecord:
    item = ctx.store.read(lambda c: load(c, ctx, principle_ids=[principle_id]))[0]
    record = active_record(item)
    assert record is not None
    return record


def approve(
    ctx: Context, candidate_id: str, text: str | None = None, note: str = ""
) -> PrincipleRecord:
    """Owner: approve a candidate; it becomes the member's active version of the principle.

    ``text`` is the owner's wording when it differs from the proposal (recorded as the
    owner's edit). Refused when the candidate is stale: the version it would replace
    changed since it was proposed.
    """
    require_owner(ctx.actor, "approve principles")
    edited = redact_typed(text).strip() if text is not None else None
    if edited is not None and not edited:
        raise InvalidInput("--text is empty; leave it out to approve the proposed wording")
    if edited is not None and len(edited) > MAX_TEXT:
        raise InvalidInput(f"--text is {len(edited)} characters; keep it under {MAX_TEXT}")
    now = ctx.store.now()

    def work(conn: Connection) -> str:
        item, row = _find(conn, ctx, candidate_id)
        _require_open(item, row, "approve")
        if item.is_stale(row.id):
            raise StaleCandidate(_stale_message(item, row))
        wording = edited if edited is not None and edited != row.text else None
        # Duplicates merged into this candidate may live in other principles of the member.
        entry = next(c for c in candidates(load(conn, ctx, member=item.member)) if c.id == row.id)
        _event(
            conn,
            item,
            row.id,
            APPROVED,
            now,
            text=wording,
            reason=note.strip(),
            basis={
                "candidate": row.id,
                "proposed_by": row.proposed_by,
                "evidence": list(entry.evidence),
                "merged": list(entry.merged),
                "replaced_version": item.state.active,
                "edited_from": row.text if wording is not None else None,
            },
        )
        return str(item.id)

    return _active(ctx, ctx.store.write(work))


def reject(ctx: Context, candidate_id: str, reason: str) -> CandidateRecord:
    """Owner: reject a candidate. A reason is required (it is what the proposer learns)."""
    require_owner(ctx.actor, "reject principles")
    reason = reason.strip()
    if not reason:
        raise InvalidInput("a reason is required to reject a principle (--reason)")
    now = ctx.store.now()

    def work(conn: Connection) -> str:
        item, row = _find(conn, ctx, candidate_id)
        _require_open(item, row, "reject")
        _event(conn, item, row.id, REJECTED, now, reason=reason)
        return str(row.id)

    return candidate(ctx, ctx.store.write(work))


def defer(ctx: Context, candidate_id: str, note: str = "") -> CandidateRecord:
    """Owner: leave a candidate pending for now (recorded, it stays in the queue)."""
    require_owner(ctx.actor, "defer principles")
    now = ctx.store.now()

    def work(conn: Connection) -> str:
        item, row = _find(conn, ctx, candidate_id)
        _require_open(item, row, "defer")
        _event(conn, item, row.id, DEFERRED, now, reason=note.strip())
        return str(row.id)

    return candidate(ctx, ctx.store.write(work))


def rollback(ctx: Context, principle_id: str, to_version: int, reason: str = "") -> PrincipleRecord:
    """Owner: make an earlier approved version active again, as a new event.

    The version comes back in the wording the owner approved for it. Nothing is deleted:
    the versions and decisions in between stay in the history.
    """
    require_owner(ctx.actor, "roll principles back")
    now = ctx.store.now()

    def work(conn: Connection) -> str:
        item = _principle(conn, ctx, principle_id)
        approval = item.state.approvals.get(to_version)
        if approval is None:
            approved = ", ".join(str(v) for v in sorted(item.state.approvals)) or "none"
            raise InvalidInput(
                f"version {to_version} of {item.id} was never approved "
                f"(approved versions: {approved})"
            )
        if item.state.active == to_version:
            raise InvalidInput(f"version {to_version} of {item.id} is already active")
        row = item.version_row(to_version)
        assert row is not None
        current = item.state.active_event
        _event(
            conn,
            item,
            row.id,
            ROLLED_BACK,
            now,
            text=approval.text or row.text,
            reason=reason.strip(),
            basis={
                "from_version": item.state.active,
                "from_event": current.id if current else None,
                "to_version": to_version,
                "approval_event": approval.id,
            },
        )
        return str(item.id)

    return _active(ctx, ctx.store.write(work))


def retire(ctx: Context, principle_id: str, reason: str) -> PrincipleEventRecord:
    """Owner: retire a principle in force (a reason is required); it has no active version
    afterwards until the owner approves or rolls back to one. Returns the event."""
    require_owner(ctx.actor, "retire principles")
    reason = reason.strip()
    if not reason:
        raise InvalidInput("a reason is required to retire a principle (--reason)")
    now = ctx.store.now()

    def work(conn: Connection) -> str:
        item = _principle(conn, ctx, principle_id)
        current = item.state.active_event
        if item.state.active is None or current is None:
            raise InvalidInput(f"principle {item.id} is not in force; nothing to retire")
        row = item.version_row(item.state.active)
        _event(
            conn,
            item,
            row.id if row else None,
            RETIRED,
            now,
            reason=reason,
            basis={"version": item.state.active, "from_event": current.id},
        )
        return str(item.id)

    pid = ctx.store.write(work)
    return principle_history_of(ctx, pid)[-1]
