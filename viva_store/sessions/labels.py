"""Labels on a session and a title shown instead of the harness's, as append-only events.

The current labels and title are derived from the log (``session_label``): a label is on
while its last event is ``label``; the last ``title`` event names the title (``''``: the
harness's own). The owner labels any session, a member its own; text is redacted first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import datetime

from sqlalchemy import Connection, insert, select

from viva_store.db.schema import SESSION_LABEL
from viva_store.errors import InvalidInput
from viva_store.records import JsonRecord, SessionRecord
from viva_store.store import Context

KINDS = ("label", "unlabel", "title")
MAX_LABEL = 80
MAX_TITLE = 300


@dataclass(frozen=True, slots=True)
class Labelled(JsonRecord):
    """A session's labels and shown title after a labelling event."""

    session_id: str
    kind: str
    text: str
    labels: tuple[str, ...]
    title: str | None
    at: datetime


def _check(kind: str, text: str) -> str:
    if kind not in KINDS:
        raise InvalidInput(f"unknown label event {kind!r}")
    text = " ".join(text.split())
    if kind != "title" and not text:
        raise InvalidInput("a label needs some text")
    limit = MAX_TITLE if kind == "title" else MAX_LABEL
    if len(text) > limit:
        raise InvalidInput(
            f"a {'title' if kind == 'title' else 'label'} is at most {limit} characters"
        )
    return text


def record_label(
    conn: Connection, ctx: Context, sid: str, kind: str, text: str, at: datetime
) -> str:
    """Append one event (the text redacted); the text as stored."""
    from viva_store.redact import RULESET_VERSION, redact_typed  # the rules load when used

    stored = redact_typed(_check(kind, text))
    if kind == "unlabel" and stored not in current(conn, [sid]).get(sid, ((), None))[0]:
        raise InvalidInput(f"session {sid} has no label {stored!r}")
    conn.execute(
        insert(SESSION_LABEL).values(
            session_id=sid,
            kind=kind,
            text=stored,
            actor=ctx.actor.member or "owner",
            at=at,
            ruleset=RULESET_VERSION,
        )
    )
    return stored


def current(conn: Connection, sids: Sequence[str]) -> dict[str, tuple[tuple[str, ...], str | None]]:
    """Per session id with any event: its labels (in the order added) and its title
    override (None: none, or back to the harness's)."""
    out: dict[str, tuple[list[str], str | None]] = {}
    wanted = sorted(set(sids))
    for start in range(0, len(wanted), 500):
        query = (
            select(SESSION_LABEL.c.session_id, SESSION_LABEL.c.kind, SESSION_LABEL.c.text)
            .where(SESSION_LABEL.c.session_id.in_(wanted[start : start + 500]))
            .order_by(SESSION_LABEL.c.id)
        )
        for sid, kind, text in conn.execute(query):
            labels = out.setdefault(sid, ([], None))[0]
            if kind == "title":
                out[sid] = (labels, text or None)
            elif text in labels:
                labels.remove(text)
            if kind == "label":
                labels.append(text)
    return {sid: (tuple(labels), title) for sid, (labels, title) in out.items()}


def with_labels(conn: Connection, records: list[SessionRecord]) -> list[SessionRecord]:
    """``records`` with their labels and title overrides applied (one query)."""
    found = current(conn, [r.id for r in records])
    if not found:
        return records
    out = []
    for r in records:
        if r.id not in found:
            out.append(r)
            continue
        labels, title = found[r.id]
        out.append(replace(r, labels=labels, title=title if title is not None else r.title))
    return out
