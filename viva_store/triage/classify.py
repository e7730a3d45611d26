"""The owner's triage queue: file sessions into a member's experience (DESIGN job 1).

Classifying is owner only and append-only: each decision is a new
``classification`` event; undo is a new event too. The bulk path writes all
events with one ``executemany`` in one transaction and rebuilds the derived
attribution set-wise, so 10,000 sessions take seconds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sqlalchemy import Connection, func, insert, or_, select

from viva_store.access import require_owner
from viva_store.db.schema import ATTRIBUTION, CLASSIFICATION, SESSION
from viva_store.errors import InvalidInput, VivaError
from viva_store.members.roster import member_names
from viva_store.sessions.service import resolve_many
from viva_store.skills.uses import after_attribution
from viva_store.store import Context
from viva_store.triage import attribution


@dataclass(frozen=True, slots=True)
class Classified:
    """What a classify / unclassify call did."""

    session_ids: tuple[str, ...]
    action: str
    member: str | None


Expected = tuple[str, str | None]
"""A session's attribution as the caller last saw it: ``(status, member)``, e.g.
``("unattributed", None)`` or ``("attributed", "deven")``."""
Expectation = Expected | Mapping[str, Expected]
"""One state every session must have, or each session's own."""


class SessionChanged(VivaError):
    """A session is no longer as the caller saw it (someone else filed it meanwhile)."""


def _said(status: str, member: str | None) -> str:
    if status == "attributed":
        return f"filed into {member}"
    return "marked nobody's" if status == "nobody" else "back in the queue"


def _check_expected(conn: Connection, ids: list[str], expect: Expectation) -> None:
    """Refuse (changing nothing) when any session's attribution is not as expected."""
    now: dict[str, Expected] = {sid: ("unattributed", None) for sid in ids}
    for start in range(0, len(ids), attribution.IN_BATCH):
        part = ids[start : start + attribution.IN_BATCH]
        rows = conn.execute(
            select(ATTRIBUTION.c.session_id, ATTRIBUTION.c.status, ATTRIBUTION.c.member).where(
                ATTRIBUTION.c.session_id.in_(part)
            )
        )
        for row in rows:
            now[row.session_id] = (row.status, row.member)
    wanted = expect if isinstance(expect, Mapping) else dict.fromkeys(ids, expect)
    moved = [(sid, state) for sid, state in now.items() if state != wanted.get(sid, state)]
    if moved:
        sid, (status, member) = moved[0]
        others = f" (and {len(moved) - 1} more)" if len(moved) > 1 else ""
        raise SessionChanged(
            f"session {sid}{others} was {_said(status, member)} meanwhile; nothing was changed"
        )


def _apply(
    ctx: Context,
    refs: Sequence[str],
    action: str,
    member: str | None,
    note: str,
    expect: Expectation | None = None,
) -> Classified:
    if not refs:
        raise InvalidInput("give at least one session id")
    now = ctx.store.now()
    from viva_store.redact import RULESET_VERSION, redact_typed  # the rules load when used

    note = redact_typed(note)

    def work(conn: Connection) -> Classified:
        ids = list(dict.fromkeys(resolve_many(conn, ctx, refs)))
        if expect is not None:
            _check_expected(conn, ids, expect)
        events = [
            {
                "session_id": sid,
                "action": action,
                "member": member,
                "execution_id": None,
                "actor": "owner",
                "at": now,
                "note": note,
                "ruleset": RULESET_VERSION,
            }
            for sid in ids
        ]
        conn.execute(insert(CLASSIFICATION), events)
        changed = attribution.rebuild(conn, ids)
        # Their session axis moved: their skill weights are rebuilt in this transaction.
        after_attribution(conn, ctx, changed)
        return Classified(tuple(ids), action, member)

    return ctx.store.write(work)


def classify(
    ctx: Context,
    refs: Sequence[str],
    member: str,
    note: str = "",
    *,
    expect: Expectation | None = None,
) -> Classified:
    """Owner: file these sessions into ``member``'s experience.

    With ``expect`` (one state for all, or one per session id), every session must
    still be as the caller saw it, else
    :class:`SessionChanged` is raised and nothing is written (a stale screen never
    overrides another window's decision).
    """
    require_owner(ctx.actor, "classify sessions")
    if member not in member_names(ctx):
        raise InvalidInput(f"no member named {member!r} (see `viva members`)")
    return _apply(ctx, refs, "member", member, note, expect)


def classify_nobody(
    ctx: Context, refs: Sequence[str], note: str = "", *, expect: Expectation | None = None
) -> Classified:
    """Owner: these sessions were recovered but belong to no member (``expect``: as in
    :func:`classify`)."""
    require_owner(ctx.actor, "classify sessions")
    return _apply(ctx, refs, "nobody", None, note, expect)


def unclassify(
    ctx: Context, refs: Sequence[str], note: str = "", *, expect: Expectation | None = None
) -> Classified:
    """Owner: put these sessions back in the triage queue (a new event; nothing is deleted;
    ``expect``: as in :func:`classify`)."""
    require_owner(ctx.actor, "unclassify sessions")
    return _apply(ctx, refs, "unclassify", None, note, expect)


def queue_size(ctx: Context) -> int:
    """Owner: how many sessions wait in the triage queue (one counting query)."""
    require_owner(ctx.actor, "see the triage queue")
    joined = SESSION.outerjoin(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id)
    waiting = or_(ATTRIBUTION.c.status.is_(None), ATTRIBUTION.c.status == "unattributed")
    query = select(func.count()).select_from(joined).where(waiting)
    return int(ctx.store.read(lambda conn: conn.execute(query).scalar_one()))
