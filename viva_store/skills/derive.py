"""Skill uses from the recovered transcripts of sessions Viva launched (DESIGN §3).

Run by the importer once an execution has ended (its outcome values the uses): the
skills its transcript shows being read, and those read live with ``viva skill show``
during it, get one credited use each. An attribution change refreshes the axis rows and
rebuilds the weights of the members whose axis moved. See :mod:`viva_store.skills.uses`.
"""

from __future__ import annotations

from sqlalchemy import Connection, and_, select

from viva_store.access import require_owner
from viva_store.db.schema import (
    ATTRIBUTION,
    CLASSIFICATION,
    EXECUTION,
    MESSAGE,
    SESSION,
    SKILL,
    SKILL_EVENT,
)
from viva_store.skills.axis import refresh_axes, session_count
from viva_store.skills.credit import SLACK, SessionRef, credit, execution_ref, session_ref
from viva_store.skills.events import VIVA, append_event, day_of, skill_params
from viva_store.skills.forget import settle
from viva_store.skills.rebuild import rebuild_members
from viva_store.skills.state import cache_row
from viva_store.skills.transcript import skills_read
from viva_store.store import Context


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
        select(CLASSIFICATION.c.execution_id)
        .where(CLASSIFICATION.c.session_id == session_id, CLASSIFICATION.c.action == "execution")
        .order_by(CLASSIFICATION.c.id.desc())
    ).scalar()
    row = conn.execute(select(EXECUTION).where(EXECUTION.c.id == xid)).first() if xid else None
    if row is None or row.ended_at is None or row.outcome not in ("success", "failure"):
        return []
    execution = execution_ref(row)
    sess = session_ref(conn, execution.member, session_id)
    if sess is None:
        return []
    from viva_store.knowledge.derive import derive_knowledge_uses

    derive_knowledge_uses(conn, ctx, execution.member, session_id)  # items read, likewise
    native = conn.execute(
        select(SESSION.c.harness, SESSION.c.native_id).where(SESSION.c.id == session_id)
    ).one()
    children = select(SESSION.c.id).where(
        and_(SESSION.c.harness == native.harness, SESSION.c.parent_native_id == native.native_id)
    )
    calls = conn.execute(
        select(MESSAGE.c.seq, MESSAGE.c.tool, MESSAGE.c.tool_input)
        .where(
            (MESSAGE.c.session_id == session_id) | MESSAGE.c.session_id.in_(children),
            MESSAGE.c.tool.is_not(None),
        )
        .order_by(MESSAGE.c.session_id, MESSAGE.c.seq)
    )
    settle(conn, params, now, execution.member)  # what is due is forgotten first
    library = set(conn.execute(select(SKILL.c.name)).scalars())
    found = skills_read(((r.seq, r.tool, r.tool_input) for r in calls), library)
    live: dict[str, list[int]] = {}
    for event_id, skill in conn.execute(
        select(SKILL_EVENT.c.id, SKILL_EVENT.c.skill).where(
            (SKILL_EVENT.c.member + "") == execution.member,
            SKILL_EVENT.c.kind == "read",
            SKILL_EVENT.c.execution_id == execution.id,
            SKILL_EVENT.c.at >= execution.started_at - SLACK,
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
                session_pos=float(session_count(conn, execution.member)),
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
            select(SKILL_EVENT.c.id)
            .where(
                (SKILL_EVENT.c.member + "") == member,
                SKILL_EVENT.c.skill == skill,
                SKILL_EVENT.c.kind == "read",
                SKILL_EVENT.c.session_id == sess.id,
                SKILL_EVENT.c.at >= sess.started_at - SLACK,
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
        refresh_axes(conn, changed)
        rebuild_members(conn, params, ctx.store.now(), changed)
    if session_ids:
        by_execution = conn.execute(
            select(ATTRIBUTION.c.session_id).where(
                ATTRIBUTION.c.session_id.in_(sorted(session_ids)),
                ATTRIBUTION.c.source == "execution",
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
            select(CLASSIFICATION.c.session_id).where(
                CLASSIFICATION.c.execution_id == execution_id,
                CLASSIFICATION.c.action == "execution",
            )
        ).scalars()
        out: list[str] = []
        for sid in sorted(set(sids)):
            out += derive_uses(conn, ctx, sid)
        return out

    return ctx.store.write(work)
