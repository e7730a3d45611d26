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
  :mod:`viva_store.skills.transcript`), valued by the outcome.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from viva_store.access import require_owner, require_self_or_owner
from viva_store.db.schema import ATTRIBUTION, CLASSIFICATION, SESSION, SKILL_EVENT
from viva_store.errors import InvalidInput, NotFound
from viva_store.records import SkillRecord
from viva_store.registry import reader
from viva_store.sessions.service import resolve_ids
from viva_store.skills.axis import session_count
from viva_store.skills.credit import (
    Credit,
    ExecutionRef,
    SessionRef,
    credit,
    execution_of,
    locate,
    session_of_execution,
    session_ref,
)
from viva_store.skills.derive import after_attribution, credit_execution, derive_uses
from viva_store.skills.events import VIVA, actor_name, append_event, day_of, skill_params
from viva_store.skills.library import get_skill
from viva_store.skills.pair import rebuild_pair
from viva_store.skills.state import cache_row
from viva_store.store import Context

OUTCOMES = ("success", "failure", "corrected")
__all__ = [
    "OUTCOMES",
    "after_attribution",
    "correct_use",
    "credit_execution",
    "derive_uses",
    "read_skill",
    "record_use",
]


def record_use(
    ctx: Context, member: str, skill: str, outcome: str, session: str | None = None
) -> Credit:
    """Record a use of ``skill`` by ``member`` directly (``viva skill use``).

    ``session`` (an id or unique prefix) names the session the use belongs to; it must be
    one of the member's. The owner, or the member itself, may record; only the owner may
    record ``corrected`` (see :func:`correct_use`). Without a session, a member acting
    under a launch grant credits its execution, and anyone else the UTC day.
    """
    require_self_or_owner(ctx.actor, member, "record skill uses")
    if outcome not in OUTCOMES:
        raise InvalidInput(f"outcome: expected one of {', '.join(OUTCOMES)}, got {outcome!r}")
    if outcome == "corrected":
        return correct_use(ctx, member, skill, session)
    params = skill_params(ctx.store.config.section("skills"))
    now = ctx.store.now()
    actor = actor_name(ctx.actor.member)

    def work(conn: Connection) -> Credit:
        sess: SessionRef | None = None
        execution: ExecutionRef | None = None
        if session is not None:
            sid = resolve_ids(conn, ctx, session)
            sess = session_ref(conn, member, sid)
            if sess is None:
                raise InvalidInput(_off_axis(conn, member, sid))
        else:
            execution = execution_of(conn, ctx.actor, None)
            if execution is not None:
                sess = session_of_execution(conn, member, execution.id)
        return credit(
            conn, params, now, member, skill, outcome, sess, execution, actor, "viva skill use"
        )

    return ctx.store.write(work)


def _off_axis(conn: Connection, member: str, sid: str) -> str:
    """Why session ``sid`` cannot carry ``member``'s skill use, in true words.

    A sub-agent session filed to the member runs inside its parent session, which is
    where its skill uses count (sub-agents are off the skill axis).
    """
    row = conn.execute(
        select(
            SESSION.c.relation, SESSION.c.parent_native_id, SESSION.c.harness, ATTRIBUTION.c.member
        )
        .select_from(SESSION.outerjoin(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id))
        .where(SESSION.c.id == sid)
    ).first()
    if row is None or row.member != member:
        return f"session {sid} is not one of {member}'s sessions"
    if row.relation != "subagent":
        return f"session {sid} has no start time: it has no place on {member}'s skill axis"
    parent = None
    if row.parent_native_id:
        parent = conn.execute(
            select(SESSION.c.id).where(
                SESSION.c.harness == row.harness, SESSION.c.native_id == row.parent_native_id
            )
        ).scalar()
    where = f"its parent session {parent}" if parent else "its parent session (not recovered yet)"
    return (
        f"session {sid} is a sub-agent session: sub-agents are off the skill axis and their "
        f"skill uses count in the session that ran them; record the use with --session on "
        f"{where}"
    )


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
        query = select(SKILL_EVENT).where(
            SKILL_EVENT.c.member == member,
            SKILL_EVENT.c.skill == skill,
            SKILL_EVENT.c.kind == "used",
            SKILL_EVENT.c.id > (state.epoch_seq or 0),
        )
        if session is not None:
            sid = resolve_ids(conn, ctx, session)
            xids = select(CLASSIFICATION.c.execution_id).where(
                CLASSIFICATION.c.session_id == sid, CLASSIFICATION.c.action == "execution"
            )
            query = query.where(
                (SKILL_EVENT.c.session_id == sid) | SKILL_EVENT.c.execution_id.in_(xids)
            )
        target = conn.execute(query.order_by(SKILL_EVENT.c.id.desc())).first()
        if target is None:
            raise NotFound(f"no credited use of {skill} by {member} to correct")
        done = conn.execute(
            select(SKILL_EVENT.c.id).where(
                SKILL_EVENT.c.member == member,
                SKILL_EVENT.c.skill == skill,
                SKILL_EVENT.c.kind == "revalued",
                SKILL_EVENT.c.target_id == target.id,
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
        new = rebuild_pair(conn, params, member, skill, now)
        assert new is not None
        weight = new.weight(session_count(conn, member), day_of(now), params)
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
        pos, tau = locate(conn, member, sess, execution, now)
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
