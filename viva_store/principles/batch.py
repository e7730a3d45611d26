"""The coordinator's weekly batch: one week's open candidates, duplicates merged.

Deterministic code, no model: candidates for the same member whose texts are equal
once case, spacing and end punctuation are ignored are one entry; the earliest
proposal stays, the others get a ``merged`` event naming it and their evidence is
listed with it. Merging is not a decision: the entry still waits for the owner.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from sqlalchemy import Connection, insert, select

from viva_store.access import OWNER, require_owner
from viva_store.clock import as_utc
from viva_store.db.schema import PRINCIPLE_BATCH, PRINCIPLE_EVENT
from viva_store.errors import AccessDenied, InvalidInput
from viva_store.members.roster import get_member
from viva_store.principles.load import candidates, load
from viva_store.principles.propose import proposer_name
from viva_store.principles.records import BatchRecord, CandidateRecord
from viva_store.principles.state import (
    BATCHED,
    MERGED,
    OPEN,
    iso_week,
    normalize_text,
    parse_week,
)
from viva_store.redact import RULESET_VERSION
from viva_store.store import Context


def require_coordinator(ctx: Context, action: str) -> None:
    """Refuse unless the owner or the coordinator (``member.coordinator``) asks."""
    if ctx.actor.member is not None and get_member(ctx, ctx.actor.member).coordinator:
        return
    try:
        require_owner(ctx.actor, action)
    except AccessDenied:
        raise AccessDenied(
            f"only the coordinator or the owner can {action} ({ctx.actor.describe()} is acting)"
        ) from None


def group_duplicates(open_: Sequence[CandidateRecord]) -> list[list[CandidateRecord]]:
    """Candidates grouped by (member, normalized text), each group in proposal order."""
    groups: dict[tuple[str, str], list[CandidateRecord]] = {}
    for cand in sorted(open_, key=lambda c: c.proposal_event):
        groups.setdefault((cand.member, normalize_text(cand.text)), []).append(cand)
    return sorted(groups.values(), key=lambda g: (g[0].member, g[0].proposal_event))


def summarize(week: str, groups: Sequence[Sequence[CandidateRecord]]) -> str:
    """A short deterministic summary of a batch."""
    per_member = Counter(group[0].member for group in groups)
    members = ", ".join(f"{name} {count}" for name, count in sorted(per_member.items()))
    revising = sum(1 for group in groups if group[0].replaces_version is not None)
    merged = sum(len(group) - 1 for group in groups)
    deferred = sum(1 for group in groups if group[0].status != "pending")
    n = len(groups)
    parts = [
        f"{week}: {n} candidate{'s' * (n != 1)} for {len(per_member)} "
        f"member{'s' * (len(per_member) != 1)} ({members})"
    ]
    if revising:
        parts.append(f"{revising} revising a principle in force")
    if deferred:
        parts.append(f"{deferred} deferred earlier")
    if merged:
        parts.append(f"{merged} duplicate{'s' * (merged != 1)} merged")
    return ", ".join(parts) + "."


def batch(ctx: Context, week: str | None = None) -> BatchRecord:
    """Coordinator or owner: gather ``week``'s open candidates (default: this week).

    Returns the newest batch of the week unchanged when nothing is new since it.
    """
    require_coordinator(ctx, "batch principle candidates")
    now = ctx.store.now()
    week = parse_week(week) if week is not None else iso_week(now)
    store_ctx = ctx.as_actor(OWNER)

    def work(conn: Connection) -> tuple[str, bool]:
        open_ = [
            c for c in candidates(load(conn, store_ctx)) if c.week == week and c.status in OPEN
        ]
        if not open_:
            raise InvalidInput(f"no candidates wait for the owner in {week}")
        groups = group_duplicates(open_)
        ids = [c.id for group in groups for c in group]
        earlier = list(
            conn.execute(
                select(PRINCIPLE_BATCH.c.id, PRINCIPLE_BATCH.c.candidates).where(
                    PRINCIPLE_BATCH.c.week == week
                )
            )
        )
        newest = max(earlier, key=lambda r: int(r.id.rsplit("-", 1)[1]), default=None)
        # Nothing new since the newest batch: every open candidate is already in it.
        unchanged = newest is not None and set(ids) <= set(newest.candidates)
        if unchanged and all(len(g) == 1 for g in groups):
            assert newest is not None
            return str(newest.id), False
        batch_id = f"batch-{week}-{len(earlier) + 1}"
        conn.execute(
            insert(PRINCIPLE_BATCH).values(
                id=batch_id,
                week=week,
                created_by=proposer_name(ctx),
                summary=summarize(week, groups),  # of stored, redacted wordings
                candidates=ids,
                created_at=now,
                ruleset=RULESET_VERSION,
            )
        )
        events = []
        for group in groups:
            primary = group[0]
            for cand in group:
                events.append(
                    {
                        "principle_id": cand.principle_id,
                        "version_id": cand.id,
                        "action": BATCHED if cand is primary else MERGED,
                        "actor": proposer_name(ctx),
                        "text": None,
                        "reason": "" if cand is primary else f"same text as {primary.id}",
                        "batch_id": batch_id,
                        "at": now,
                        "basis": None if cand is primary else {"into": primary.id},
                        "ruleset": RULESET_VERSION,
                    }
                )
        conn.execute(insert(PRINCIPLE_EVENT), events)
        return batch_id, True

    batch_id, new = ctx.store.write(work)
    return _batch_record(ctx, batch_id, new)


def _batch_record(ctx: Context, batch_id: str, new: bool) -> BatchRecord:
    """A batch with the entries the actor may see (its open candidates, merged)."""
    row = ctx.store.read(
        lambda c: c.execute(select(PRINCIPLE_BATCH).where(PRINCIPLE_BATCH.c.id == batch_id)).first()
    )
    if row is None:
        raise InvalidInput(f"no batch {batch_id!r}")
    in_batch = set(row.candidates)
    items = ctx.store.read(lambda c: load(c, ctx))
    entries = [c for c in candidates(items) if c.id in in_batch and c.status in OPEN]
    return BatchRecord(
        id=row.id,
        week=row.week,
        created_by=row.created_by,
        summary=row.summary,
        candidates=tuple(row.candidates),
        entries=tuple(entries),
        created_at=as_utc(row.created_at),
        new=new,
    )
