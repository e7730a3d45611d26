"""Reading recovered sessions, within what the actor may see (DESIGN I5).

The owner sees every session; a member sees only sessions attributed to it.
The scope is part of every query (``attribution.member`` is indexed), never a
filter applied afterwards.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import orjson
from sqlalchemy import Connection, Select, func, or_, select

from viva_store.access import member_scope, require_self_or_owner
from viva_store.clock import as_utc
from viva_store.db.schema import ATTRIBUTION, MEMBER, MESSAGE, SESSION
from viva_store.errors import InvalidInput, NotFound
from viva_store.records import JsonRecord, MessageRecord, SessionRecord
from viva_store.registry import reader
from viva_store.sessions.labels import Labelled as Labelled
from viva_store.sessions.labels import with_labels
from viva_store.sessions.related import RelatedSessions as RelatedSessions
from viva_store.sessions.resume import ResumeCommand as ResumeCommand
from viva_store.store import Context

if TYPE_CHECKING:
    from viva_store.sessions.records import TimelineItem

STATUSES = ("unattributed", "attributed", "nobody")
LINK_LABELS = {
    "subagent": "sub-agent of",
    "copy_of": "copy of",
    "continues": "continues",
    "continuation": "continues",
    "fork": "forked from",
    "branch": "branched from",
}
"""How a session's link to its parent reads, by relation (``session show``, the app)."""
TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)


@dataclass(frozen=True, slots=True)
class SessionFilter:
    """What ``viva sessions`` asks for; every field narrows."""

    status: str | None = None  # None: all the actor may see
    member: str | None = None
    harness: str | None = None
    project: str | None = None
    since: datetime | None = None
    text: str | None = None
    limit: int | None = None
    offset: int = 0


def _base(ctx: Context) -> Select[Any]:
    status = ATTRIBUTION.c.status
    query = select(
        SESSION,
        status.label("a_status"),
        ATTRIBUTION.c.member.label("a_member"),
        ATTRIBUTION.c.source,
        ATTRIBUTION.c.note,
    ).select_from(SESSION.outerjoin(ATTRIBUTION, ATTRIBUTION.c.session_id == SESSION.c.id))
    if not ctx.actor.is_owner:
        query = query.where(status == "attributed", member_scope(ctx.actor, ATTRIBUTION.c.member))
    return query


def _parent_id(harness: str, native_id: str) -> str:
    """Viva's id of a sub-agent's parent (the importer's id function, loaded only here:
    the importer's module brings its redaction rules)."""
    from viva_store.importing.prepare import session_id

    return session_id(harness, native_id)


def _record(row: Any) -> SessionRecord:
    status = row.a_status or "unattributed"
    parent = _parent_id(row.harness, row.parent_native_id) if row.parent_native_id else None
    return SessionRecord(
        id=row.id,
        harness=row.harness,
        native_id=row.native_id,
        project=row.project,
        cwd=row.cwd,
        started_at=as_utc(row.started_at) if row.started_at else None,
        ended_at=as_utc(row.ended_at) if row.ended_at else None,
        title=row.title,
        message_count=row.message_count,
        member=row.a_member if status == "attributed" else None,
        status=status,
        parent_id=parent,
        relation=row.relation,
        git_branch=row.git_branch,
        models=tuple(row.models or ()),
        entrypoint=row.entrypoint,
        originator=row.originator,
        tokens={t.removesuffix("_tokens"): int(getattr(row, t) or 0) for t in TOKENS},
        attribution_source=row.source or "none",
        note=row.note or "",
    )


def check_member(ctx: Context, member: str, action: str) -> None:
    """Refuse a member name that is not on the roster (names are exact: ``deven``, never
    ``Deven``), and another member's data under a member's grant."""
    known = ctx.store.read(
        lambda c: c.execute(select(MEMBER.c.name).where(MEMBER.c.name == member)).first()
    )
    if known is None:
        raise NotFound(f"no member named {member!r} (see `viva members`)")
    require_self_or_owner(ctx.actor, member, action)


@reader
def list_sessions(ctx: Context, flt: SessionFilter | None = None) -> list[SessionRecord]:
    """Sessions, newest first, narrowed by ``flt`` (an unknown ``member`` is refused)."""
    flt = flt or SessionFilter()
    if flt.member is not None:
        check_member(ctx, flt.member, "list the sessions")
    query = _base(ctx)
    if flt.status is not None:
        if flt.status not in STATUSES:
            raise InvalidInput(f"unknown status {flt.status!r}")
        if flt.status == "unattributed":
            query = query.where(
                or_(ATTRIBUTION.c.status.is_(None), ATTRIBUTION.c.status == "unattributed")
            )
        else:
            query = query.where(ATTRIBUTION.c.status == flt.status)
    if flt.member is not None:
        query = query.where(
            ATTRIBUTION.c.status == "attributed", ATTRIBUTION.c.member == flt.member
        )
    if flt.harness is not None:
        query = query.where(SESSION.c.harness == flt.harness)
    if flt.project is not None:
        query = query.where(or_(SESSION.c.project == flt.project, SESSION.c.cwd == flt.project))
    if flt.since is not None:
        query = query.where(SESSION.c.started_at >= flt.since)
    if flt.text:
        like = f"%{flt.text.lower()}%"
        query = query.where(
            or_(
                func.lower(SESSION.c.title).like(like),
                func.lower(SESSION.c.project).like(like),
                SESSION.c.native_id.like(like),
            )
        )
    query = query.order_by(SESSION.c.started_at.desc().nulls_last(), SESSION.c.id).offset(
        flt.offset
    )
    if flt.limit is not None:
        query = query.limit(flt.limit)
    return ctx.store.read(lambda c: with_labels(c, [_record(r) for r in c.execute(query)]))


@dataclass(frozen=True, slots=True)
class MemberActivity(JsonRecord):
    """How much experience is filed into a member's name, and how recent it is."""

    sessions: int
    last_started: datetime | None


@reader
def member_activity(ctx: Context) -> dict[str, MemberActivity]:
    """Per member the actor may see: its attributed sessions and the latest start.

    One grouped query (the roster used to load every session of every member to
    count them).
    """
    sub = _base(ctx).where(ATTRIBUTION.c.status == "attributed").subquery()
    query = select(sub.c.a_member, func.count(), func.max(sub.c.started_at)).group_by(
        sub.c.a_member
    )
    rows = ctx.store.read(lambda c: c.execute(query).all())
    return {
        member: MemberActivity(int(count), as_utc(last) if last else None)
        for member, count, last in rows
    }


MAX_PREFIX = 1000
"""Longer than any id: a ref this long is matched exactly, never as a prefix (SQLite
refuses LIKE patterns over 50,000 bytes)."""


def _shown(ref: str) -> str:
    """``ref`` quoted for a message, shortened to a line."""
    return repr(ref) if len(ref) <= 80 else repr(ref[:60]) + f"… ({len(ref):,} characters)"


def resolve_ids(conn: Connection, ctx: Context, ref: str) -> str:
    """A session id from Viva's id, the harness's id, or a unique prefix of either."""
    ref = ref.strip()
    if not ref:
        raise InvalidInput("empty session id")
    base = _base(ctx).with_only_columns(SESSION.c.id, SESSION.c.native_id, SESSION.c.harness)
    exact = list(conn.execute(base.where(or_(SESSION.c.id == ref, SESSION.c.native_id == ref))))
    if len(exact) == 1:
        return str(exact[0].id)
    if not exact and len(ref) <= MAX_PREFIX:
        escaped = ref.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
        exact = list(
            conn.execute(
                base.where(
                    or_(
                        SESSION.c.id.like(escaped + "%", escape="\\"),
                        SESSION.c.native_id.like(escaped + "%", escape="\\"),
                    )
                ).limit(6)
            )
        )
        if len(exact) == 1:
            return str(exact[0].id)
    if not exact:
        raise NotFound(f"no session matches {_shown(ref)}")
    shown = ", ".join(f"{r.id} ({r.harness} {r.native_id[:12]})" for r in exact[:5])
    raise InvalidInput(f"{ref!r} is ambiguous: {shown}; give more characters")


def visible_session_ids(conn: Connection, ctx: Context, ids: Iterable[str]) -> set[str]:
    """Which of these session ids the actor may see (the owner: every one that exists)."""
    wanted = sorted(set(ids))
    seen: set[str] = set()
    base = _base(ctx).with_only_columns(SESSION.c.id)
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        seen.update(conn.execute(base.where(SESSION.c.id.in_(part))).scalars())
    return seen


def resolve_many(conn: Connection, ctx: Context, refs: Sequence[str]) -> list[str]:
    """Like :func:`resolve_ids` for many refs: exact ids and native ids in bulk, prefixes singly.

    The bulk path is what keeps classifying 10,000 sessions a matter of seconds.
    """
    wanted = list(dict.fromkeys(r.strip() for r in refs))
    exact: dict[str, set[str]] = {}
    base = _base(ctx).with_only_columns(SESSION.c.id, SESSION.c.native_id)
    for start in range(0, len(wanted), 500):
        part = wanted[start : start + 500]
        for row in conn.execute(
            base.where(or_(SESSION.c.id.in_(part), SESSION.c.native_id.in_(part)))
        ):
            for key in (row.id, row.native_id):
                exact.setdefault(key, set()).add(row.id)
    out: list[str] = []
    for ref in wanted:
        found = exact.get(ref, set())
        out.append(next(iter(found)) if len(found) == 1 else resolve_ids(conn, ctx, ref))
    return out


def resolve_session(ctx: Context, ref: str) -> str:
    """Public form of :func:`resolve_ids` in its own read transaction."""
    return ctx.store.read(lambda c: resolve_ids(c, ctx, ref))


@reader
def get_session(ctx: Context, ref: str) -> SessionRecord:
    """One session the actor may see."""
    sid = resolve_session(ctx, ref)

    def read(conn: Connection) -> SessionRecord | None:
        row = conn.execute(_base(ctx).where(SESSION.c.id == sid)).first()
        return None if row is None else with_labels(conn, [_record(row)])[0]

    found = ctx.store.read(read)
    if found is None:
        raise NotFound(f"no session matches {ref!r}")
    return found


@reader
def session_messages(
    ctx: Context, ref: str, limit: int | None = None, offset: int = 0
) -> list[MessageRecord]:
    """A session's messages in order (redacted at import; nothing else is stored)."""
    sid = get_session(ctx, ref).id
    query = (
        select(
            MESSAGE.c.seq,
            MESSAGE.c.role,
            MESSAGE.c.at,
            MESSAGE.c.text,
            MESSAGE.c.tool,
            MESSAGE.c.tool_input,
            MESSAGE.c.tool_args,
            MESSAGE.c.tool_result,
            MESSAGE.c.sidechain,
            MESSAGE.c.synthetic,
            MESSAGE.c.model,
            MESSAGE.c.kind,
        )
        .where(MESSAGE.c.session_id == sid)
        .order_by(MESSAGE.c.seq)
        .offset(offset)
    )
    if limit is not None:
        query = query.limit(limit)
    return ctx.store.read(
        lambda c: [
            MessageRecord(
                seq=r.seq,
                role=r.role,
                at=as_utc(r.at) if r.at else None,
                text=r.text,
                tool=r.tool,
                tool_input=r.tool_input,
                tool_result=r.tool_result,
                sidechain=bool(r.sidechain),
                synthetic=bool(r.synthetic),
                model=r.model,
                kind=r.kind,
                tool_args=_whole_input(r.tool_args),
            )
            for r in c.execute(query)
        ]
    )


@reader
def member_timeline(
    ctx: Context,
    member: str,
    since: datetime | None = None,
    limit: int | None = None,
    kinds: Sequence[str] = ("session", "skill", "principle"),
) -> list[TimelineItem]:
    """``member``'s experience over time, newest first: its sessions from every harness,
    its skill events and its principle decisions (``viva timeline``); ``kinds`` narrows."""
    # Skills and principles read sessions through this module: they load on first use.
    from viva_store.sessions.timeline import timeline

    return timeline(ctx, member, since, limit, kinds)


def _whole_input(stored: str | None) -> Any:
    """A stored whole tool input as the JSON value it is (text that is not JSON as is)."""
    if stored is None:
        return None
    try:
        return orjson.loads(stored)
    except orjson.JSONDecodeError:
        return stored


@reader
def related_sessions(ctx: Context, ref: str) -> RelatedSessions:
    """A session's parent (or the original it copies) and its sub-agent and other child
    sessions, as far as the actor may see."""
    from viva_store.sessions.related import related

    session = get_session(ctx, ref)
    return ctx.store.read(lambda c: related(c, ctx, session))


def resume_command(ctx: Context, ref: str) -> ResumeCommand:
    """The owner's command that reopens a session in its harness, in its working folder."""
    from viva_store.sessions.resume import build_resume

    return build_resume(ctx, get_session(ctx, ref))


def label_session(ctx: Context, ref: str, text: str, kind: str = "label") -> Labelled:
    """Add a label to a session (``unlabel``: take it off; ``title``: show ``text`` as its
    title, ``''``: the harness's again), as an append-only event. The owner labels any
    session, a member only its own."""
    from viva_store.sessions.labels import record_label

    now = ctx.store.now()

    def work(conn: Connection) -> Labelled:
        sid = resolve_ids(conn, ctx, ref)
        stored = record_label(conn, ctx, sid, kind, text, now)
        row = conn.execute(_base(ctx).where(SESSION.c.id == sid)).one()
        session = with_labels(conn, [_record(row)])[0]
        return Labelled(sid, kind, stored, session.labels, session.title, now)

    return ctx.store.write(work)
