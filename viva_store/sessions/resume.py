"""The command that reopens a recovered session in its own harness.

Each harness resumes a session by its own id (Claude Code ``--resume``, Codex
``resume``, Gemini CLI ``--resume``, OpenCode ``--session``, Hermes ``--resume``); pi
opens a session by its file (``--session PATH``). Claude Code and Gemini CLI cannot
reopen a sub-agent's transcript on its own: its parent is resumed instead.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import select

from viva_store.access import require_owner
from viva_store.db.schema import SESSION
from viva_store.errors import InvalidInput
from viva_store.records import JsonRecord, SessionRecord
from viva_store.store import Context

_BY_ID: dict[str, Callable[[str], list[str]]] = {
    "claude-code": lambda sid: ["claude", "--resume", sid],
    "codex": lambda sid: ["codex", "resume", sid],
    "gemini": lambda sid: ["gemini", "--resume", sid],
    "opencode": lambda sid: ["opencode", "--session", sid],
    "hermes": lambda sid: ["hermes", "--resume", sid],
}
NO_SUBAGENT_RESUME = ("claude-code", "gemini")


@dataclass(frozen=True, slots=True)
class ResumeCommand(JsonRecord):
    """How to reopen one session: ``argv`` run in ``cwd``; ``shell`` is the same as one
    line to paste (``cd <cwd> && …``)."""

    session_id: str
    harness: str
    cwd: str
    argv: tuple[str, ...]
    shell: str
    cwd_exists: bool


def _source_path(ctx: Context, session_id: str) -> str:
    query = select(SESSION.c.source_path).where(SESSION.c.id == session_id)
    return str(ctx.store.read(lambda c: c.execute(query).scalar_one()) or "")


def build_resume(ctx: Context, session: SessionRecord) -> ResumeCommand:
    """The command for ``session`` (the owner only); refused with one line for a
    session its harness cannot reopen."""
    require_owner(ctx.actor, "resume a session")
    harness = session.harness
    if session.relation == "subagent" and harness in NO_SUBAGENT_RESUME:
        raise InvalidInput(
            f"{harness} cannot resume a sub-agent's session on its own; "
            f"resume its parent {session.parent_id or '(not recovered)'}"
        )
    if harness == "pi":
        path = _source_path(ctx, session.id)
        if not path or not Path(path).is_file():
            raise InvalidInput(f"pi resumes a session by its file, and {path or 'it'} is gone")
        argv = ["pi", "--session", path]
    elif harness in _BY_ID:
        argv = _BY_ID[harness](session.native_id)
    else:
        raise InvalidInput(f"{harness} sessions cannot be resumed from Viva")
    if not session.cwd:
        raise InvalidInput(f"session {session.id} has no recorded working directory")
    return ResumeCommand(
        session_id=session.id,
        harness=harness,
        cwd=session.cwd,
        argv=tuple(argv),
        shell=f"cd {shlex.quote(session.cwd)} && {shlex.join(argv)}",
        cwd_exists=Path(session.cwd).is_dir(),
    )
