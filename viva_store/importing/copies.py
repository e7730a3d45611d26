"""Copies of a session under another id: linked, and their shared usage credited once.

Claude Code can start a session with lines of another one (same ``uuid`` and response
ids, ``sessionId`` rewritten). A response is counted once, by its usage key; here it
goes to the session that had it first — the one that started first, and of two that
start together (a copy keeps its lines' timestamps) the one that ended first, since
a resumed copy goes on after its original — whatever order the files are read in.
Every other session holding the key is in ``usage_copy`` and is linked to the owner
(``relation`` ``continues``, or ``copy_of`` when it holds nothing of its own).

Run inside each batch's transaction, over the sessions the batch touched: a decision
taken while a file was half read is taken again when the rest of it arrives. The
sessions whose link changed are returned, so that the same transaction settles what
follows a link (attribution, skill uses) whichever run stored each file.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, delete, insert, select, update

from viva_store.clock import as_utc
from viva_store.db.schema import SESSION, USAGE, USAGE_COPY
from viva_store.importing.prepare import Batch

TOKENS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)
LINKS = ("continues", "copy_of")
_IN = 500
_LAST = datetime.max.replace(tzinfo=None)


def settle_copies(conn: Connection, batch: Batch) -> set[str]:
    """Record the batch's shared usage keys, then give each shared key of the sessions
    it touched to its first holder and link the others to it; returns both ends of
    every link made or undone."""
    harness = batch.harness
    holders: dict[str, set[str]] = {}
    for sid, prepared in batch.sessions.items():
        for u in prepared.usage:
            holders.setdefault(u["usage_key"], set()).add(sid)
    owners = _owners(conn, harness, list(holders))
    copies = {
        (key, sid)
        for key, sids in holders.items()
        for sid in sids
        if key in owners and owners[key] != sid
    }
    _add_copies(conn, harness, copies)
    touched = sorted(batch.sessions)
    if not touched or not (copies or _any_copies(conn, harness, touched)):
        return set()
    shared = _shared(conn, harness, touched)
    if not shared:
        return set()
    owners = _owners(conn, harness, list(shared))
    everyone = set(owners.values()).union(*shared.values())
    rows = _sessions(conn, everyone)
    pairs: set[tuple[str, str]] = set()
    for key, others in shared.items():
        owner = owners.get(key)
        if owner is None:
            continue
        first = min({owner, *others}, key=lambda sid: _rank(rows[sid]))
        if first != owner:
            _move(conn, harness, key, owner, first)
        pairs.update((sid, first) for sid in {owner, *others} - {first})
    return _link(conn, harness, pairs, rows)


def _rank(row: Any) -> tuple[datetime, datetime, str]:
    start = as_utc(row.started_at).replace(tzinfo=None) if row.started_at else _LAST
    end = as_utc(row.ended_at).replace(tzinfo=None) if row.ended_at else _LAST
    return (start, end, row.id)


def _owners(conn: Connection, harness: str, keys: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    for start in range(0, len(keys), _IN):
        part = keys[start : start + _IN]
        query = select(USAGE.c.usage_key, USAGE.c.session_id).where(
            USAGE.c.harness == harness, USAGE.c.usage_key.in_(part)
        )
        out.update((k, s) for k, s in conn.execute(query))
    return out


def _add_copies(conn: Connection, harness: str, copies: Iterable[tuple[str, str]]) -> None:
    wanted = sorted(copies)
    if not wanted:
        return
    keys = sorted({k for k, _ in wanted})
    have: set[tuple[str, str]] = set()
    for start in range(0, len(keys), _IN):
        query = select(USAGE_COPY.c.usage_key, USAGE_COPY.c.session_id).where(
            USAGE_COPY.c.harness == harness, USAGE_COPY.c.usage_key.in_(keys[start : start + _IN])
        )
        have.update((k, s) for k, s in conn.execute(query))
    fresh = [{"harness": harness, "usage_key": k, "session_id": s} for k, s in wanted]
    fresh = [r for r in fresh if (r["usage_key"], r["session_id"]) not in have]
    if fresh:
        conn.execute(insert(USAGE_COPY), fresh)


def _any_copies(conn: Connection, harness: str, sids: list[str]) -> bool:
    """Whether any copy row names one of ``sids`` or a key one of them owns."""
    return bool(_shared(conn, harness, sids, probe=True))


def _shared(
    conn: Connection, harness: str, sids: list[str], probe: bool = False
) -> dict[str, set[str]]:
    """Shared usage keys of ``sids`` (held as a copy, or owned while others copy them),
    each with its copy holders."""
    found: dict[str, set[str]] = {}
    for start in range(0, len(sids), _IN):
        part = sids[start : start + _IN]
        held = select(USAGE_COPY.c.usage_key).where(
            USAGE_COPY.c.harness == harness, USAGE_COPY.c.session_id.in_(part)
        )
        owned = (
            select(USAGE_COPY.c.usage_key)
            .join(
                USAGE,
                (USAGE.c.harness == USAGE_COPY.c.harness)
                & (USAGE.c.usage_key == USAGE_COPY.c.usage_key),
            )
            .where(USAGE_COPY.c.harness == harness, USAGE.c.session_id.in_(part))
        )
        keys = set(conn.execute(held).scalars()) | set(conn.execute(owned).scalars())
        if probe and keys:
            return {k: set() for k in keys}
        ordered = sorted(keys)
        for at in range(0, len(ordered), _IN):
            query = select(USAGE_COPY.c.usage_key, USAGE_COPY.c.session_id).where(
                USAGE_COPY.c.harness == harness,
                USAGE_COPY.c.usage_key.in_(ordered[at : at + _IN]),
            )
            for key, sid in conn.execute(query):
                found.setdefault(key, set()).add(sid)
    return found


def _sessions(conn: Connection, sids: Iterable[str]) -> dict[str, Any]:
    ordered = sorted(sids)
    out: dict[str, Any] = {}
    for start in range(0, len(ordered), _IN):
        query = select(
            SESSION.c.id,
            SESSION.c.native_id,
            SESSION.c.started_at,
            SESSION.c.ended_at,
            SESSION.c.parent_native_id,
            SESSION.c.relation,
        ).where(SESSION.c.id.in_(ordered[start : start + _IN]))
        out.update((r.id, r) for r in conn.execute(query))
    return out


def _move(conn: Connection, harness: str, key: str, old: str, new: str) -> None:
    """Give the response ``key`` (and its tokens) from ``old`` to ``new``."""
    where = (USAGE.c.harness == harness) & (USAGE.c.usage_key == key)
    figures = conn.execute(select(*(USAGE.c[t] for t in TOKENS)).where(where)).one()
    conn.execute(update(USAGE).where(where).values(session_id=new))
    for sid, sign in ((old, -1), (new, 1)):
        conn.execute(
            update(SESSION)
            .where(SESSION.c.id == sid)
            .values(
                {
                    SESSION.c[t]: SESSION.c[t] + sign * int(v or 0)
                    for t, v in zip(TOKENS, figures, strict=True)
                }
            )
        )
    copy = (USAGE_COPY.c.harness == harness) & (USAGE_COPY.c.usage_key == key)
    conn.execute(delete(USAGE_COPY).where(copy, USAGE_COPY.c.session_id == new))
    conn.execute(insert(USAGE_COPY).values(harness=harness, usage_key=key, session_id=old))


def _link(
    conn: Connection, harness: str, pairs: set[tuple[str, str]], rows: dict[str, Any]
) -> set[str]:
    """Point each copy at the session it copies (``continues`` when it has responses of
    its own, ``copy_of`` when not); a link of that kind the other way round is undone.
    A session linked otherwise (a sub-agent, a fork) keeps its link. Returns both ends
    of every link that changed."""
    changed: set[str] = set()
    for copy, first in sorted(pairs):
        row, parent = rows[copy], rows[first]
        owns = conn.execute(
            select(USAGE.c.usage_key)
            .where(USAGE.c.harness == harness, USAGE.c.session_id == copy)
            .limit(1)
        ).first()
        relation = "continues" if owns is not None else "copy_of"
        if row.parent_native_id is None or row.relation in LINKS:
            values = {"parent_native_id": parent.native_id, "relation": relation}
            if (row.parent_native_id, row.relation) != tuple(values.values()):
                conn.execute(update(SESSION).where(SESSION.c.id == copy).values(**values))
                changed |= {copy, first}
        if parent.relation in LINKS and parent.parent_native_id == row.native_id:
            conn.execute(
                update(SESSION)
                .where(SESSION.c.id == first)
                .values(parent_native_id=None, relation=None)
            )
            changed |= {copy, first}
    return changed
