"""Where skill uses come from (DESIGN §3): direct records, live reads, transcripts.

* ``viva skill use M NAME --outcome success|failure [--session ID]`` — :func:`record_use`.
  With a session the use is credited to it; a member acting under a launch grant
  without ``--session`` credits its execution; otherwise the use stands alone and is
  credited at most once per UTC day.
* ``--outcome corrected`` (owner only) — :func:`correct_use` re-values an earlier use at
  0.0 with a ``revalued`` event; the original is never edited.
* ``viva skill show NAME`` under a member's grant — :func:`read_skill` logs a ``read``.
  The use it evidences is valued by the execution's outcome, which is known only when
  the execution has ended: a read after the end is credited at once; a read during a
  running execution is credited when the execution's session is recovered
  (:func:`derive_uses`), together with what the transcript shows. A read with no
  execution at all is logged and not credited (no execution, no outcome).
* A recovered transcript of a session Viva launched — :func:`derive_uses`, run by the
  importer once the execution has ended: one use per skill read (see
  :mod:`viva_store.services.skill_transcript`), valued by the outcome.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, and_, select

from viva_store.access import Actor, require_owner, require_self_or_owner
from viva_store.clock import as_utc
from viva_store.errors import InvalidInput, NotFound
from viva_store.records import SkillRecord
from viva_store.services.library import get_skill
from viva_store.services.registry import reader
from viva_store.services.sessions import resolve_ids
from viva_store.services.skill_axis import axis_now, load_axes, on_axis
from viva_store.services.skill_credit import (
    SLACK,
    Credit,
    ExecutionRef,
    SessionRef,
    append_event,
    cache_row,
    credit,
    locate,
)
from viva_store.services.skill_forget import settle
from viva_store.services.skill_rebuild import rebuild_members, rebuild_pair
from viva_store.services.skill_sql import (
    MSG,
    SE,
    SK,
    VIVA,
    A,
    C,
    E,
    S,
    actor_name,
    day_of,
    skill_params,
)
from viva_store.services.skill_transcript import skills_read
from viva_store.store import Context

OUTCOMES = ("success", "failure", "corrected")


def _session(conn: Connection, member: str, session_id: str) -> SessionRef | None:
    row = conn.execute(
        select(S.c.id, S.c.started_at)
        .join_from(S, A, A.c.session_id == S.c.id)
        .where(S.c.id == session_id, A.c.member == member, *on_axis())
    ).first()
    return None if row is None else SessionRef(row.id, as_utc(row.started_at))


def _execution(row: Any) -> ExecutionRef:
    return ExecutionRef(
        row.id, row.member, as_utc(row.started_at), row.outcome, row.ended_at is not None
    )


def execution_of(conn: Connection, actor: Actor, execution_id: str | None) -> ExecutionRef | None:
    """The execution a member acts in: the one its grant was minted for, else the id given."""
    if actor.is_owner:
        return None
    row = None
    if actor.grant_id is not None:
        row = conn.execute(
            select(E).where(E.c.grant_id == actor.grant_id).order_by(E.c.started_at.desc())
        ).first()
    if row is None and execution_id:
        row = conn.execute(
            select(E).where(E.c.id == execution_id, E.c.member == actor.member)
        ).first()
    return None if row is None else _execution(row)


def session_of_execution(conn: Connection, member: str, execution_id: str) -> SessionRef | None:
    """The session an execution's record attributed, if it is on the member's axis."""
    sid = conn.execute(
        select(C.c.session_id)
        .where(C.c.execution_id == execution_id, C.c.action == "execution")
        .order_by(C.c.id.desc())
    ).scalar()
    return None if sid is None else _session(conn, member, sid)


def record_use(
    ctx: Context, member: str, skill: str, outcome: str, session: str | None = None
) -> Credit:
    """Record a use of ``skill`` by ``member`` directly (``viva skill use``).

    ``session`` (an id or unique prefix) names the session the use belongs to; it must be
    one of the member's. The owner, or the member itself, may record; only the owner may
    record ``corrected`` (see :func:`correct_use`).
    """
    require_self_or_owner(ctx.actor, member, "record skill uses")
    if outcome not in OUTCOMES:
        raise InvalidInput(f"outcome: expected one of {', '.join(OUTCOMES)}, got {outcome!r}")
    if outcome == "corrected":
        return correct_use(ctx, member, skill, session)
    params = skill_params(ctx.store.config.section("skills"))
    now = ctx.store.now()

    def work(conn: Connection) -> Credit:
        sess: SessionRef | None = None
        execution: ExecutionRef | None = None
        if session is not None:
            sid = resolve_ids(conn, ctx, session)
            sess = _session(conn, member, sid)
            if sess is None:
                raise InvalidInput(f"session {sid} is not one of {member}'s sessions")
        else:
            execution = execution_of(conn, ctx.actor, None)
            if execution is not None:
                sess = session_of_execution(conn, member, execution.id)
        return credit(
            conn,
            params,
            now,
            member,
            skill,
            outcome,
            sess,
            execution,
            actor_name(ctx.actor.member),
            "viva skill use",
        )

    return ctx.store.write(work)


def correct_use(ctx: Context, member: str, skill: str, session: str | None = None) -> Credit:
    """Owner: re-value a credited use at ``value_corrected`` (0.0) with a ``revalued`` event.

    The use is the one credited for ``session`` if given, else the latest one since the
    skill last entered the set. The original event is never edited; the pair is rebuilt.
    """
    require_owner(ctx.actor, "correct a skill use")
    params = skill_params(ctx.store.config.section("skills"))
    now = ctx.store.now()

    def work(conn: Connection) -> Credit:
        state = cache_row(conn, member, skill)
        if state is None:
            raise InvalidInput(f"{skill} was never in {member}'s skill set")
        query = select(SE).where(
            SE.c.member == member,
            SE.c.skill == skill,
            SE.c.kind == "used",
            SE.c.id > (state.epoch_seq or 0),
        )
        if session is not None:
            sid = resolve_ids(conn, ctx, session)
            xids = select(C.c.execution_id).where(C.c.session_id == sid, C.c.action == "execution")
            query = query.where((SE.c.session_id == sid) | SE.c.execution_id.in_(xids))
        target = conn.execute(query.order_by(SE.c.id.desc())).first()
        if target is None:
            raise NotFound(f"no credited use of {skill} by {member} to correct")
        done = conn.execute(
            select(SE.c.id).where(
                SE.c.member == member,
                SE.c.skill == skill,
                SE.c.kind == "revalued",
                SE.c.target_id == target.id,
            )
        ).first()
        if done is not None:
            raise InvalidInput(f"use {target.id} of {skill} is already corrected")
        event_id = append_event(
            conn,
            member=member,
            skill=skill,
            kind="revalued",
            value=params.value_corrected,
            outcome="corrected",
            session_id=target.session_id,
            execution_id=target.execution_id,
            target_id=target.id,
            session_pos=target.session_pos,
            day=target.day,
            at=now,
            actor="owner",
            reason="corrected by the owner",
            basis={"target": target.id, "was": target.value},
        )
        axis = load_axes(conn, [member])[member]
        new = rebuild_pair(conn, params, member, skill, axis, now)
        assert new is not None
        weight = new.weight(axis.now, day_of(now), params)
        return Credit(
            member,
            skill,
            True,
            event_id,
            params.value_corrected,
            weight,
            target.session_id,
            target.execution_id,
        )

    return ctx.store.write(work)


@reader
def read_skill(ctx: Context, name: str, execution_id: str | None = None) -> SkillRecord:
    """A team skill with its body; a member's read is logged (``viva skill show``).

    The read is tied to the member's execution (found from its grant, else
    ``execution_id``, i.e. ``VIVA_EXECUTION``). It is credited as a use at once when that
    execution has ended, else when its session is recovered (:func:`derive_uses`).
    """
    skill = get_skill(ctx, name)
    if ctx.actor.is_owner or ctx.actor.member is None:
        return skill
    member = ctx.actor.member
    params = skill_params(ctx.store.config.section("skills"))
    now = ctx.store.now()

    def work(conn: Connection) -> None:
        execution = execution_of(conn, ctx.actor, execution_id)
        sess = session_of_execution(conn, member, execution.id) if execution else None
        now_pos = axis_now(conn, member)
        pos, tau = locate(conn, member, now_pos, sess, execution, now)
        append_event(
            conn,
            member=member,
            skill=name,
            kind="read",
            session_id=sess.id if sess else None,
            execution_id=execution.id if execution else None,
            session_pos=float(pos),
            day=day_of(tau),
            at=now,
            actor=member,
            reason="viva skill show",
        )
        state = cache_row(conn, member, name)
        active = state is not None and state.status == "active"
        if execution is not None and execution.ended and execution.outcome and active:
            credit(
                conn,
                params,
                now,
                member,
                name,
                execution.outcome,
                sess,
                execution,
                VIVA,
                "read during the execution (viva skill show)",
            )

    ctx.store.write(work)
    return skill


def derive_uses(conn: Connection, ctx: Context, session_id: str) -> list[str]:
    """Credit the uses a recovered session launched by Viva shows (once per skill).

    The session must be attributed by an execution record that has ended with an outcome;
    the skills read in its transcript (and its sub-agents'), and those read live with
    ``viva skill show`` during the execution, each get one use valued by the outcome.
    Skills not in the member's set get a ``read`` event instead. Idempotent.
    """
    params = skill_params(ctx.store.config.section("skills"))
    now = ctx.store.now()
    xid = conn.execute(
        select(C.c.execution_id)
        .where(C.c.session_id == session_id, C.c.action == "execution")
        .order_by(C.c.id.desc())
    ).scalar()
    row = conn.execute(select(E).where(E.c.id == xid)).first() if xid else None
    if row is None or row.ended_at is None or row.outcome not in ("success", "failure"):
        return []
    execution = _execution(row)
    sess = _session(conn, execution.member, session_id)
    if sess is None:
        return []
    native = conn.execute(select(S.c.harness, S.c.native_id).where(S.c.id == session_id)).one()
    children = select(S.c.id).where(
        and_(S.c.harness == native.harness, S.c.parent_native_id == native.native_id)
    )
    calls = conn.execute(
        select(MSG.c.seq, MSG.c.tool, MSG.c.tool_input)
        .where(
            (MSG.c.session_id == session_id) | MSG.c.session_id.in_(children),
            MSG.c.tool.is_not(None),
        )
        .order_by(MSG.c.session_id, MSG.c.seq)
    )
    settle(conn, params, now, execution.member)  # what is due is forgotten first
    library = set(conn.execute(select(SK.c.name)).scalars())
    found = skills_read(((r.seq, r.tool, r.tool_input) for r in calls), library)
    live: dict[str, list[int]] = {}
    for event_id, skill in conn.execute(
        select(SE.c.id, SE.c.skill).where(
            (SE.c.member + "") == execution.member,
            SE.c.kind == "read",
            SE.c.execution_id == execution.id,
            SE.c.at >= execution.started_at - SLACK,
        )
    ):
        live.setdefault(skill, []).append(int(event_id))
    credited: list[str] = []
    for skill in sorted(set(found) | set(live)):
        basis = {"messages": found.get(skill, []), "reads": live.get(skill, [])}
        state = cache_row(conn, execution.member, skill)
        if state is not None and state.status == "active":
            done = credit(
                conn,
                params,
                now,
                execution.member,
                skill,
                execution.outcome or "failure",
                sess,
                execution,
                VIVA,
                "read in the recovered transcript",
                basis,
            )
            if done.credited:
                credited.append(skill)
        elif skill in found and not _read_logged(conn, execution.member, skill, sess):
            append_event(
                conn,
                member=execution.member,
                skill=skill,
                kind="read",
                session_id=sess.id,
                execution_id=execution.id,
                session_pos=float(axis_now(conn, execution.member)),
                day=day_of(sess.started_at),
                at=now,
                actor=VIVA,
                reason="read in the recovered transcript (not in the set)",
                basis=basis,
            )
    return credited


def _read_logged(conn: Connection, member: str, skill: str, sess: SessionRef) -> bool:
    return (
        conn.execute(
            select(SE.c.id)
            .where(
                (SE.c.member + "") == member,
                SE.c.skill == skill,
                SE.c.kind == "read",
                SE.c.session_id == sess.id,
                SE.c.at >= sess.started_at - SLACK,
            )
            .limit(1)
        ).first()
        is not None
    )


def after_attribution(
    conn: Connection, ctx: Context, changed: set[str], session_ids: set[str] | None = None
) -> None:
    """Inside an attribution change's transaction: rebuild the members whose session axis
    moved, then credit the uses of newly recovered sessions that Viva launched."""
    params = skill_params(ctx.store.config.section("skills"))
    if changed:
        rebuild_members(conn, params, ctx.store.now(), changed)
    if session_ids:
        by_execution = conn.execute(
            select(A.c.session_id).where(
                A.c.session_id.in_(sorted(session_ids)), A.c.source == "execution"
            )
        ).scalars()
        for sid in sorted(by_execution):
            derive_uses(conn, ctx, sid)


def credit_execution(ctx: Context, execution_id: str) -> list[str]:
    """Owner: credit the uses of an ended execution whose session is already recovered.

    ``viva launch`` calls this after recording the end, for a session the importer saw
    before the execution ended. Idempotent.
    """
    require_owner(ctx.actor, "credit an execution's skill uses")

    def work(conn: Connection) -> list[str]:
        sids = conn.execute(
            select(C.c.session_id).where(
                C.c.execution_id == execution_id, C.c.action == "execution"
            )
        ).scalars()
        out: list[str] = []
        for sid in sorted(set(sids)):
            out += derive_uses(conn, ctx, sid)
        return out

    return ctx.store.write(work)
