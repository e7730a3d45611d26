"""A member's engagement state: domain, project, counterpart, activity (DESIGN §6).

The log is ``engagement_event`` (append-only); the state is its latest event
per field. A member reads and sets its own state; the owner any member's.
Setting a field that an automatic decision filled records a *correction*
naming the event it corrects. :func:`observe` applies the entry rules and
the judge at a session's start (:mod:`viva_store.engagement.rules`).

The state only ever narrows recall (:func:`viva_store.recall.search.recall`
prefers or restricts to the state's project inside the caller's scope); it
is never consulted to decide what a caller may see.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, func, insert, select

from viva_store.access import require_self_or_owner
from viva_store.clock import as_utc
from viva_store.db.schema import ENGAGEMENT_EVENT
from viva_store.engagement.rules import (
    AUTOMATIC,
    EXPLICIT,
    FIELDS,
    EntryRules,
    Judge,
    Observation,
    RuleJudge,
    resolve,
)
from viva_store.errors import InvalidInput
from viva_store.members.roster import get_member, member_names
from viva_store.records import JsonRecord
from viva_store.registry import reader
from viva_store.store import Context

__all__ = [
    "EngagementEventRecord",
    "EngagementState",
    "Observation",
    "StateField",
    "current_state",
    "entry_rules",
    "get_state",
    "observe",
    "set_state",
    "state_history",
]

MAX_VALUE = 200


@dataclass(frozen=True, slots=True)
class StateField(JsonRecord):
    """One field's current value and where it came from (``value`` None: unknown)."""

    value: str | None
    source: str | None  # explicit | correction | rule | judge | clear | None (never set)
    confidence: float | None
    pinned: bool
    at: datetime | None
    event_id: int | None
    note: str


@dataclass(frozen=True, slots=True)
class EngagementState(JsonRecord):
    """A member's engagement state."""

    member: str
    domain: str | None
    project: str | None
    counterpart: str | None
    activity: str | None
    fields: dict[str, StateField]

    def to_json(self) -> dict[str, Any]:
        out = JsonRecord.to_json(self)
        out["fields"] = {name: f.to_json() for name, f in self.fields.items()}
        return out


@dataclass(frozen=True, slots=True)
class EngagementEventRecord(JsonRecord):
    """One change (or correction) of one field."""

    id: int
    member: str
    field: str
    value: str | None
    source: str
    confidence: float | None
    corrects: int | None
    actor: str
    at: datetime
    note: str
    basis: dict[str, Any] | None


def _actor(ctx: Context) -> str:
    return ctx.actor.member or "owner"


def _latest(conn: Connection, member: str) -> dict[str, Any]:
    newest = (
        select(ENGAGEMENT_EVENT.c.field, func.max(ENGAGEMENT_EVENT.c.id).label("id"))
        .where(ENGAGEMENT_EVENT.c.member == member)
        .group_by(ENGAGEMENT_EVENT.c.field)
        .subquery()
    )
    return {
        row.field: row
        for row in conn.execute(
            select(ENGAGEMENT_EVENT).join(newest, ENGAGEMENT_EVENT.c.id == newest.c.id)
        )
    }


def _state(member: str, latest: Mapping[str, Any]) -> EngagementState:
    fields: dict[str, StateField] = {}
    for name in FIELDS:
        row = latest.get(name)
        if row is None:
            fields[name] = StateField(None, None, None, False, None, None, "never set")
            continue
        fields[name] = StateField(
            value=row.value,
            source=row.source,
            confidence=row.confidence,
            pinned=row.source in EXPLICIT,
            at=as_utc(row.at),
            event_id=row.id,
            note=row.note,
        )
    return EngagementState(
        member=member,
        domain=fields["domain"].value,
        project=fields["project"].value,
        counterpart=fields["counterpart"].value,
        activity=fields["activity"].value,
        fields=fields,
    )


def current_state(conn: Connection, member: str) -> EngagementState:
    """The state inside an open transaction (no access check: callers do it)."""
    return _state(member, _latest(conn, member))


def entry_rules(ctx: Context) -> EntryRules:
    """The entry rules of ``[state]`` in ``config.toml``."""
    return EntryRules.from_config(ctx.store.config.section("state"))


@reader
def get_state(ctx: Context, member: str) -> EngagementState:
    """A member's current engagement state (the member itself or the owner)."""
    require_self_or_owner(ctx.actor, member, "read the engagement state")
    get_member(ctx, member)
    return ctx.store.read(lambda c: current_state(c, member))


@reader
def state_history(
    ctx: Context, member: str, limit: int | None = None
) -> list[EngagementEventRecord]:
    """Every change of a member's state, newest first."""
    require_self_or_owner(ctx.actor, member, "read the engagement state")
    get_member(ctx, member)
    query = (
        select(ENGAGEMENT_EVENT)
        .where(ENGAGEMENT_EVENT.c.member == member)
        .order_by(ENGAGEMENT_EVENT.c.id.desc())
    )
    if limit is not None:
        query = query.limit(limit)
    rows = ctx.store.read(lambda c: list(c.execute(query)))
    return [
        EngagementEventRecord(
            id=r.id,
            member=r.member,
            field=r.field,
            value=r.value,
            source=r.source,
            confidence=r.confidence,
            corrects=r.corrects,
            actor=r.actor,
            at=as_utc(r.at),
            note=r.note,
            basis=r.basis,
        )
        for r in rows
    ]


def _clean(name: str, value: str) -> str:
    from viva_store.redact import redact_typed  # the rules load only when state is set

    if name not in FIELDS:
        raise InvalidInput(f"unknown state field {name!r} (one of {', '.join(FIELDS)})")
    value = redact_typed(" ".join(value.split()))
    if not value:
        raise InvalidInput(f"--{name} needs a value (use --clear {name} to return it to automatic)")
    if len(value) > MAX_VALUE:
        raise InvalidInput(f"--{name} is longer than {MAX_VALUE} characters")
    return value


def set_state(
    ctx: Context,
    member: str,
    values: Mapping[str, str],
    clear: Sequence[str] = (),
    note: str = "",
) -> EngagementState:
    """Set fields explicitly (they then win over rules and the judge) or clear them.

    Replacing a value that a rule or the judge chose is recorded as a
    correction of that event. Setting a field to the value it already has
    explicitly records nothing.
    """
    require_self_or_owner(ctx.actor, member, "set the engagement state")
    get_member(ctx, member)
    wanted = {name: _clean(name, value) for name, value in values.items()}
    for name in clear:
        if name not in FIELDS:
            raise InvalidInput(f"unknown state field {name!r} (one of {', '.join(FIELDS)})")
        if name in wanted:
            raise InvalidInput(f"cannot both set and clear {name}")
    if not wanted and not clear:
        raise InvalidInput("give at least one of --domain, --project, --counterpart, --activity")
    from viva_store.redact import RULESET_VERSION, redact_typed

    now, actor = ctx.store.now(), _actor(ctx)
    typed = {"note": redact_typed(note), "ruleset": RULESET_VERSION}

    def work(conn: Connection) -> EngagementState:
        latest = _latest(conn, member)
        events = []
        for name, value in wanted.items():
            prev = latest.get(name)
            if prev is not None and prev.source in EXPLICIT and prev.value == value:
                continue
            corrects = prev.id if prev is not None and prev.source in AUTOMATIC else None
            events.append(
                {
                    "field": name,
                    "value": value,
                    "source": "correction" if corrects is not None else "explicit",
                    "corrects": corrects,
                    "confidence": None,
                    "basis": None,
                }
            )
        for name in clear:
            prev = latest.get(name)
            if prev is None or prev.source == "clear":
                continue
            events.append(
                {
                    "field": name,
                    "value": None,
                    "source": "clear",
                    "corrects": None,
                    "confidence": None,
                    "basis": None,
                }
            )
        if events:
            conn.execute(
                insert(ENGAGEMENT_EVENT),
                [{**e, **typed, "member": member, "actor": actor, "at": now} for e in events],
            )
        return current_state(conn, member)

    return ctx.store.write(work)


def observe(
    ctx: Context,
    observation: Observation,
    judge: Judge | None = None,
) -> EngagementState:
    """A session of ``observation.member`` starts: apply entry rules, then the judge.

    Fields set explicitly are left alone. Only fields whose value changes get
    an event. ``judge`` defaults to the local :class:`RuleJudge`.
    """
    member = observation.member
    require_self_or_owner(ctx.actor, member, "record the engagement state")
    get_member(ctx, member)
    from viva_store.redact import RULESET_VERSION, redact_typed  # the rules load when used

    # What the rules read, the values they derive and the basis stored are all redacted.
    observation = replace(
        observation,
        cwd=redact_typed(observation.cwd),
        task=redact_typed(observation.task),
    )
    rules = entry_rules(ctx)
    judge = judge or RuleJudge(member_names(ctx))
    now = ctx.store.now()

    def work(conn: Connection) -> EngagementState:
        latest = _latest(conn, member)
        pinned = [name for name, row in latest.items() if row.source in EXPLICIT]
        project_now = latest["project"].value if "project" in latest else None
        events = []
        for d in resolve(observation, rules, judge, pinned, project_now):
            prev = latest.get(d.field)
            if prev is not None and prev.value == d.value and prev.source == d.source:
                continue
            events.append(
                {
                    "member": member,
                    "field": d.field,
                    "value": d.value,
                    "source": d.source,
                    "confidence": round(d.confidence, 4),
                    "corrects": None,
                    "actor": "viva",
                    "at": now,
                    "basis": {
                        **observation.to_json(),
                        **({"judge": judge.name} if d.source == "judge" else {}),
                    },
                    "note": d.reason,
                    "ruleset": RULESET_VERSION,
                }
            )
        if events:
            conn.execute(insert(ENGAGEMENT_EVENT), events)
        return current_state(conn, member)

    return ctx.store.write(work)
