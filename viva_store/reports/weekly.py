"""``viva report weekly``: what happened in one ISO week, per member (DESIGN §4).

Read straight from the append-only logs: principle proposals and decisions
(``principle_version``, ``principle_event``), skill events (``skill_event``:
additions, uses, forgets and trial would-forgets, reclaims, track changes),
sessions recovered (``session.imported_at``) and triaged (``classification``), and the
knowledge gate's decisions and recorded uses (``knowledge_event``).

The owner sees every member and the team's totals; a member-scoped call sees
only its own section (DESIGN I5), with no team totals.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, and_, func, select

from viva_store.access import member_scope
from viva_store.db.schema import (
    ATTRIBUTION,
    CLASSIFICATION,
    KNOWLEDGE_EVENT,
    KNOWLEDGE_ITEM,
    PRINCIPLE_BATCH,
    SESSION,
    SKILL_EVENT,
)
from viva_store.members.roster import list_members
from viva_store.principles.load import load
from viva_store.principles.state import (
    APPROVED,
    DEFERRED,
    PROPOSED,
    REJECTED,
    RETIRED,
    ROLLED_BACK,
    iso_week,
    parse_week,
    week_bounds,
)
from viva_store.registry import reader
from viva_store.reports.records import MemberWeek, WeeklyReport
from viva_store.store import Context

DECISIONS = (APPROVED, REJECTED, DEFERRED, ROLLED_BACK, RETIRED)
ENTERS = ("added", "synced")


def _in(column: Any, start: datetime, end: datetime) -> Any:
    return and_(column >= start, column < end)


def _principles(
    conn: Connection, ctx: Context, week: str, start: datetime, end: datetime
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, list[dict[str, Any]]]]:
    proposed: dict[str, list[dict[str, Any]]] = defaultdict(list)
    decided: dict[str, list[dict[str, Any]]] = defaultdict(list)
    order: dict[str, int] = {}
    for item in load(conn, ctx):
        order.update(
            {e.version_id: e.id for e in item.events if e.action == PROPOSED and e.version_id}
        )
        for row in item.versions.values():
            if row.week == week:
                proposed[item.member].append(
                    {
                        "id": row.id,
                        "principle_id": item.id,
                        "text": row.text,
                        "proposed_by": row.proposed_by,
                        "replaces_version": row.replaces_version,
                        "status": item.state.status.get(row.id, "pending"),
                    }
                )
        for ev in item.events:
            if ev.action in DECISIONS and start <= ev.at < end:
                row = item.version_row(ev.version) if ev.version is not None else None
                decided[item.member].append(
                    {
                        "principle_id": item.id,
                        "candidate": ev.version_id,
                        "version": ev.version,
                        "action": ev.action,
                        "text": ev.text or (row.text if row is not None else None),
                        "reason": ev.reason,
                        "at": ev.at,
                        "event": ev.id,
                    }
                )
    for cands in proposed.values():
        cands.sort(key=lambda p: order.get(p["id"], 0))  # log order, not the clock
    for events in decided.values():
        events.sort(key=lambda e: e["event"])
        for e in events:
            del e["event"]
    return proposed, decided


def _skills(
    conn: Connection, ctx: Context, start: datetime, end: datetime
) -> dict[str, dict[str, Any]]:
    """The week's skill events per member. A use is valued as it stands now: an owner's
    correction (``revalued``, whenever it came) replaces the value the use was recorded with."""
    rows = list(
        conn.execute(
            select(
                SKILL_EVENT.c.id,
                SKILL_EVENT.c.member,
                SKILL_EVENT.c.skill,
                SKILL_EVENT.c.kind,
                SKILL_EVENT.c.value,
                SKILL_EVENT.c.track,
            )
            .where(_in(SKILL_EVENT.c.at, start, end), member_scope(ctx.actor, SKILL_EVENT.c.member))
            .order_by(SKILL_EVENT.c.id)
        )
    )
    uses = [r.id for r in rows if r.kind == "used"]
    corrected: dict[int, float] = {}
    for part in range(0, len(uses), 500):
        for fix in conn.execute(
            select(SKILL_EVENT.c.target_id, SKILL_EVENT.c.value)
            .where(
                SKILL_EVENT.c.kind == "revalued",
                SKILL_EVENT.c.target_id.in_(uses[part : part + 500]),
            )
            .order_by(SKILL_EVENT.c.id)
        ):
            corrected[fix.target_id] = float(fix.value or 0.0)
    out: dict[str, dict[str, Any]] = defaultdict(_skills_empty)
    for r in rows:
        mine = out[r.member]
        if r.kind in ENTERS:
            mine["added"].append({"skill": r.skill, "how": r.kind})
        elif r.kind == "used":
            mine["uses"][r.skill] += 1
            mine["value"][r.skill] += corrected.get(r.id, float(r.value or 0.0))
            mine["corrected"][r.skill] += r.id in corrected
        elif r.kind in ("forgotten", "would_forget", "reclaimed"):
            if r.skill not in mine[r.kind]:
                mine[r.kind].append(r.skill)
        elif r.kind == "track_changed":
            mine["tracks"].append({"skill": r.skill, "track": r.track})
    return out


KNOWLEDGE_ACTIONS = ("admitted", "declined", "used", "retracted", "superseded")


def _knowledge(
    conn: Connection, ctx: Context, start: datetime, end: datetime
) -> dict[str, list[dict[str, Any]]]:
    """The week's knowledge events per item member (a member: its own items only)."""
    E, K = KNOWLEDGE_EVENT.c, KNOWLEDGE_ITEM.c
    query = (
        select(
            E.item_id, E.action, E.actor, E.reason, E.session_id, E.at, K.member, K.kind, K.summary
        )
        .join(KNOWLEDGE_ITEM, K.id == E.item_id)
        .where(
            _in(E.at, start, end),
            E.action.in_(KNOWLEDGE_ACTIONS),
            member_scope(ctx.actor, K.member),
        )
        .order_by(E.id)
    )
    out: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in conn.execute(query):
        out[r.member].append(
            {"item": r.item_id, "kind": r.kind, "summary": r.summary, "action": r.action,
             "actor": r.actor, "reason": r.reason, "session": r.session_id, "at": r.at}
        )  # fmt: skip
    return out


def _sessions(
    conn: Connection, ctx: Context, start: datetime, end: datetime
) -> tuple[Counter[str | None], Counter[tuple[str, str | None]]]:
    """Sessions recovered per current owner (``None``: unattributed/nobody's), and
    owner triage events per (action, member)."""
    recovered: Counter[str | None] = Counter()
    query = (
        select(ATTRIBUTION.c.status, ATTRIBUTION.c.member, func.count())
        .select_from(SESSION.outerjoin(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id))
        .where(_in(SESSION.c.imported_at, start, end))
        .group_by(ATTRIBUTION.c.status, ATTRIBUTION.c.member)
    )
    if not ctx.actor.is_owner:
        query = query.where(
            ATTRIBUTION.c.status == "attributed", member_scope(ctx.actor, ATTRIBUTION.c.member)
        )
    for status, member, n in conn.execute(query):
        recovered[member if status == "attributed" else f"~{status or 'unattributed'}"] += n
    triage: Counter[tuple[str, str | None]] = Counter()
    query = (
        select(CLASSIFICATION.c.action, CLASSIFICATION.c.member, func.count())
        .where(
            _in(CLASSIFICATION.c.at, start, end),
            CLASSIFICATION.c.action.in_(("member", "nobody", "unclassify")),
        )
        .group_by(CLASSIFICATION.c.action, CLASSIFICATION.c.member)
    )
    if not ctx.actor.is_owner:
        query = query.where(
            CLASSIFICATION.c.action == "member", member_scope(ctx.actor, CLASSIFICATION.c.member)
        )
    for action, member, n in conn.execute(query):
        triage[(action, member)] += n
    return recovered, triage


@reader
def weekly_report(ctx: Context, week: str | None = None) -> WeeklyReport:
    """The report of ``week`` (``YYYY-Www``; default: the store clock's current week)."""
    now = ctx.store.now()
    week = parse_week(week) if week is not None else iso_week(now)
    start, end = week_bounds(week)
    names = [m.name for m in list_members(ctx) if ctx.actor.is_owner or m.name == ctx.actor.member]

    def work(conn: Connection) -> tuple[Any, ...]:
        proposed, decided = _principles(conn, ctx, week, start, end)
        skills = _skills(conn, ctx, start, end)
        recovered, triage = _sessions(conn, ctx, start, end)
        knowledge = _knowledge(conn, ctx, start, end)
        batches = []
        if ctx.actor.is_owner:
            batches = [
                {"id": r.id, "created_by": r.created_by, "summary": r.summary}
                for r in conn.execute(
                    select(PRINCIPLE_BATCH)
                    .where(PRINCIPLE_BATCH.c.week == week)
                    .order_by(PRINCIPLE_BATCH.c.created_at)
                )
            ]
        return proposed, decided, skills, recovered, triage, batches, knowledge

    proposed, decided, skills, recovered, triage, batches, knowledge = ctx.store.read(work)
    sections = []
    for name in names:
        sk = skills.get(name) or _skills_empty()
        sections.append(
            MemberWeek(
                member=name,
                principles_proposed=tuple(proposed.get(name, [])),
                principle_decisions=tuple(decided.get(name, [])),
                skills_added=tuple(sk["added"]),
                skill_uses=tuple(
                    {
                        "skill": s,
                        "uses": n,
                        "value": round(sk["value"][s], 4),
                        "corrected": sk["corrected"][s],
                    }
                    for s, n in sorted(sk["uses"].items())
                ),
                skills_forgotten=tuple(sk["forgotten"]),
                skills_would_forget=tuple(sk["would_forget"]),
                skills_reclaimed=tuple(sk["reclaimed"]),
                track_changes=tuple(sk["tracks"]),
                sessions_recovered=recovered.get(name, 0),
                sessions_triaged=triage.get(("member", name), 0),
                knowledge=tuple(knowledge.get(name, [])),
            )
        )
    team = None
    if ctx.actor.is_owner:
        team = {
            "sessions_recovered": sum(recovered.values()),
            "sessions_unattributed": recovered.get("~unattributed", 0),
            "sessions_nobody": recovered.get("~nobody", 0),
            "sessions_triaged": sum(n for (a, _), n in triage.items() if a != "unclassify"),
            "sessions_filed_nobody": sum(n for (a, _), n in triage.items() if a == "nobody"),
            "sessions_unclassified": sum(n for (a, _), n in triage.items() if a == "unclassify"),
            "principle_batches": batches,
            "knowledge": {
                action: sum(1 for evs in knowledge.values() for e in evs if e["action"] == action)
                for action in KNOWLEDGE_ACTIONS
            },
        }
    return WeeklyReport(week, start, end, now, tuple(sections), team)


def _skills_empty() -> dict[str, Any]:
    return {
        "added": [],
        "uses": Counter(),
        "value": Counter(),
        "corrected": Counter(),
        "forgotten": [],
        "would_forget": [],
        "reclaimed": [],
        "tracks": [],
    }
