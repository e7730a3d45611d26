"""Proposing principle candidates and gathering a week's candidates into a batch.

Members propose for themselves, the coordinator for any member, the owner too;
every proposal waits for the owner's decision (DESIGN §4, I7). Evidence is
resolved with the proposer's own visibility: nobody can cite a session it
cannot see (I5).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from sqlalchemy import Connection, func, insert, select

from viva_store.access import OWNER, can_see_member
from viva_store.db.schema import MESSAGE, PRINCIPLE, PRINCIPLE_EVENT, PRINCIPLE_VERSION
from viva_store.errors import AccessDenied, InvalidInput, NotFound
from viva_store.members.roster import get_member
from viva_store.principles.load import Loaded, candidates, load, lock
from viva_store.principles.records import CandidateRecord
from viva_store.principles.state import PROPOSED, iso_week
from viva_store.redact import RULESET_VERSION, redact_typed
from viva_store.sessions.service import resolve_ids, visible_session_ids
from viva_store.store import Context

MAX_TEXT = 2000
MAX_EVIDENCE = 50


def proposer_name(ctx: Context) -> str:
    """How an actor is recorded as proposer or creator: ``owner`` or the member's name."""
    return "owner" if ctx.actor.member is None else ctx.actor.member


def require_proposer(ctx: Context, member: str) -> None:
    """The owner, ``member`` itself, or the coordinator may propose for ``member``."""
    if ctx.actor.is_owner or ctx.actor.member == member:
        return
    assert ctx.actor.member is not None
    if get_member(ctx, ctx.actor.member).coordinator:
        return
    raise AccessDenied(
        f"{ctx.actor.describe()} may propose principles only for itself "
        "(the coordinator may propose for any member)"
    )


def _clean(value: str, what: str) -> str:
    """What was typed, redacted and trimmed; refused when empty or too long."""
    value = redact_typed(value).strip()
    if not value:
        raise InvalidInput(f"{what} is empty")
    if len(value) > MAX_TEXT:
        raise InvalidInput(f"{what} is {len(value)} characters; keep it under {MAX_TEXT}")
    return value


def _evidence(conn: Connection, ctx: Context, refs: Sequence[str]) -> list[str]:
    """Session ids (``SESSION`` or ``SESSION#SEQ`` for one message) the proposer can see."""
    if len(refs) > MAX_EVIDENCE:
        raise InvalidInput(f"{len(refs)} pieces of evidence; at most {MAX_EVIDENCE}")
    out: list[str] = []
    for ref in refs:
        session_ref, _, seq = ref.strip().partition("#")
        try:
            sid = resolve_ids(conn, ctx, session_ref)
        except NotFound:
            raise NotFound(
                f"evidence {ref!r}: no session {ctx.actor.describe()} can see matches it"
            ) from None
        item = sid
        if seq:
            if not seq.isdigit():
                raise InvalidInput(f"evidence {ref!r}: after '#' give a message number")
            found = conn.execute(
                select(MESSAGE.c.seq).where(MESSAGE.c.session_id == sid, MESSAGE.c.seq == int(seq))
            ).first()
            if found is None:
                raise NotFound(f"evidence {ref!r}: session {sid} has no message {seq}")
            item = f"{sid}#{int(seq)}"
        if item not in out:
            out.append(item)
    return out


def _target(conn: Connection, store_ctx: Context, member: str, replaces: str) -> Loaded:
    lock(conn, replaces.strip())
    found = load(conn, store_ctx, principle_ids=[replaces.strip()])
    if not found:
        raise NotFound(f"no principle {replaces!r} (see `viva principle history`)")
    if found[0].member != member:
        raise InvalidInput(f"principle {replaces!r} is {found[0].member}'s, not {member}'s")
    return found[0]


def propose(
    ctx: Context,
    member: str,
    text: str,
    rationale: str,
    evidence: Sequence[str] = (),
    replaces: str | None = None,
) -> CandidateRecord:
    """Propose a principle (or, with ``replaces``, a new version of one) for ``member``.

    Records the proposer, the ISO week of the store's clock, and the version in force it
    would replace. The candidate waits in the owner's queue; nothing becomes active here.
    """
    get_member(ctx, member)
    require_proposer(ctx, member)
    text = _clean(text, "the principle's text")
    rationale = _clean(rationale, "the rationale")
    now = ctx.store.now()
    # Internal reads of the target principle need the whole store (the coordinator may
    # revise a principle of a member whose data it cannot read); nothing of it is returned.
    store_ctx = ctx.as_actor(OWNER)

    def work(conn: Connection) -> str:
        cited = _evidence(conn, ctx, evidence)
        if replaces is not None:
            target = _target(conn, store_ctx, member, replaces)
            pid, state = target.id, target.state
            number = 1 + (
                conn.execute(
                    select(func.max(PRINCIPLE_VERSION.c.version)).where(
                        PRINCIPLE_VERSION.c.principle_id == pid
                    )
                ).scalar()
                or 0
            )
        else:
            pid, state, number = "p" + secrets.token_hex(4), None, 1
            conn.execute(insert(PRINCIPLE).values(id=pid, member=member, created_at=now))
        vid = f"{pid}.{number}"
        active_event = state.active_event.id if state and state.active_event else None
        conn.execute(
            insert(PRINCIPLE_VERSION).values(
                id=vid,
                principle_id=pid,
                version=number,
                text=text,
                rationale=rationale,
                evidence=cited,
                proposed_by=proposer_name(ctx),
                week=iso_week(now),
                replaces_version=state.active if state else None,
                created_at=now,
                ruleset=RULESET_VERSION,
            )
        )
        basis: dict[str, Any] = {"active_event_id": active_event, "evidence": cited}
        conn.execute(
            insert(PRINCIPLE_EVENT).values(
                principle_id=pid,
                version_id=vid,
                action=PROPOSED,
                actor=proposer_name(ctx),
                text=None,
                reason="",
                batch_id=None,
                at=now,
                basis=basis,
                ruleset=RULESET_VERSION,
            )
        )
        return vid

    vid = ctx.store.write(work)
    return candidate(ctx, vid)


def candidate(ctx: Context, version_id: str) -> CandidateRecord:
    """One candidate by id, as the actor may see it (the wording in force hidden otherwise)."""
    store_ctx = ctx.as_actor(OWNER)
    pid = version_id.rsplit(".", 1)[0]
    items = ctx.store.read(lambda c: load(c, store_ctx, principle_ids=[pid]))
    found = [c for c in candidates(items) if c.id == version_id]
    if not found:
        raise NotFound(f"no principle candidate {version_id!r}")
    record = found[0]
    if not can_see_member(ctx.actor, record.member):
        record = replace(record, active_text=None)
    if not ctx.actor.is_owner:  # merged duplicates may cite sessions the proposer cannot see
        sids = {ref.partition("#")[0] for ref in record.evidence}
        seen = ctx.store.read(lambda c: visible_session_ids(c, ctx, sids))
        shown = tuple(ref for ref in record.evidence if ref.partition("#")[0] in seen)
        hidden = record.evidence_hidden + len(record.evidence) - len(shown)
        record = replace(record, evidence=shown, evidence_hidden=hidden)
    return record
