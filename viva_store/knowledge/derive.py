"""Knowledge uses from the recovered transcripts of sessions Viva launched.

Run beside the skills' own derivation when the importer recovers such a session: every
admitted item the transcript shows being read — and that the session's member could see
— gets one ``used`` event for that session (recorded by ``viva``). Idempotent.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from viva_store.access import OWNER
from viva_store.db.schema import MESSAGE
from viva_store.knowledge.gate import record_event
from viva_store.knowledge.load import load
from viva_store.knowledge.model import ADMITTED, MEMBER_KINDS
from viva_store.knowledge.transcript import items_read
from viva_store.store import Context


def derive_knowledge_uses(
    conn: Connection, ctx: Context, member: str, session_id: str
) -> list[str]:
    """Record the uses ``session_id``'s transcript shows; returns the items newly used."""
    calls = conn.execute(
        select(MESSAGE.c.seq, MESSAGE.c.tool, MESSAGE.c.tool_input)
        .where(MESSAGE.c.session_id == session_id, MESSAGE.c.tool.is_not(None))
        .order_by(MESSAGE.c.seq)
    )
    found = items_read((r.seq, r.tool, r.tool_input) for r in calls)
    if not found:
        return []
    used: list[str] = []
    for item in load(conn, ctx.as_actor(OWNER), ids=found):
        if item.status != ADMITTED or (item.kind in MEMBER_KINDS and item.member != member):
            continue
        if any(u.session == session_id for u in item.uses):
            continue
        seqs = ", ".join(str(s) for s in found[item.id])
        record_event(
            conn, item.id, "used", "viva", ctx.store.now(), session=session_id,
            reason=f"read in the recovered transcript (messages {seqs})",
        )  # fmt: skip
        used.append(item.id)
    return used
