"""Principles (DESIGN §4, I7, I8): what is in force, the owner's queue, the history.

A principle is a member-level norm with versions. Each proposal is an immutable
``principle_version`` (a candidate); every decision about it is an append-only
``principle_event``; what is active is folded from the events
(:mod:`~viva_store.principles.state`). Only the owner decides
(:mod:`~viva_store.principles.decide`); members and the coordinator
propose (:mod:`~viva_store.principles.propose`).

The write side is re-exported here so callers need one module (loaded when first used).

Read functions here are member-scoped: a member sees only its own member's
principles (DESIGN I5).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from viva_store.access import require_self_or_owner
from viva_store.lazy import exports
from viva_store.members.roster import get_member
from viva_store.principles.load import active_record, candidates, event_records, load
from viva_store.principles.records import (
    CandidateRecord,
    PrincipleEventRecord,
    PrincipleRecord,
)
from viva_store.principles.state import OPEN, parse_week
from viva_store.registry import reader
from viva_store.store import Context

if TYPE_CHECKING:
    from viva_store.principles.batch import batch
    from viva_store.principles.decide import (
        StaleCandidate,
        approve,
        defer,
        reject,
        retire,
        rollback,
    )
    from viva_store.principles.propose import propose
else:  # the write side loads when first used (viva_store.lazy)
    __getattr__ = exports(
        globals(),
        {
            "viva_store.principles.batch": ("batch",),
            "viva_store.principles.decide": (
                "StaleCandidate",
                "approve",
                "defer",
                "reject",
                "retire",
                "rollback",
            ),
            "viva_store.principles.propose": ("propose",),
        },
    )

__all__ = [
    "CandidateRecord",
    "PrincipleEventRecord",
    "PrincipleRecord",
    "StaleCandidate",
    "active_principles",
    "approve",
    "batch",
    "defer",
    "parse_week",
    "principle_history",
    "principle_queue",
    "propose",
    "reject",
    "retire",
    "rollback",
]


@reader
def active_principles(ctx: Context, member: str) -> list[PrincipleRecord]:
    """``member``'s principles in force (version, approved wording, when it became active).

    Ordered by when each became active, then id. The owner, or the member itself, may ask.
    """
    get_member(ctx, member)
    require_self_or_owner(ctx.actor, member, "read the principles")
    items = ctx.store.read(lambda c: load(c, ctx, member=member))
    records = [r for r in (active_record(item) for item in items) if r is not None]
    return sorted(records, key=lambda r: (r.approved_at, r.id))


@reader
def principle_queue(
    ctx: Context, include_decided: bool = False, week: str | None = None
) -> list[CandidateRecord]:
    """Candidates waiting for the owner (pending or deferred), by week, batch, member.

    ``include_decided`` adds approved, rejected and merged ones; ``week`` narrows to one
    ISO week. A member sees only candidates for itself.
    """
    week = parse_week(week) if week is not None else None
    items = ctx.store.read(lambda c: load(c, ctx))
    out = [
        c
        for c in candidates(items)
        if (include_decided or c.status in OPEN) and (week is None or c.week == week)
    ]
    return sorted(out, key=lambda c: (c.week, c.batch_id or "~", c.member, c.proposal_event))


@reader
def principle_history(ctx: Context, member: str | None = None) -> list[PrincipleEventRecord]:
    """Every principle event (proposals, batching, decisions), oldest first.

    ``member`` narrows to one member; a member-scoped call sees only its own.
    """
    if member is not None:
        get_member(ctx, member)
        require_self_or_owner(ctx.actor, member, "read the principle history")
    return event_records(ctx.store.read(lambda c: load(c, ctx, member=member)))
