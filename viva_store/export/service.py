"""Exporting sessions the actor may see, as files a person can read or a tool can load.

A member exports only its own sessions (the sessions service scopes every read); the
owner exports any. The renderers are pure (:mod:`viva_store.export.render`); this module
reads the transcript and writes the files.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from viva_store.errors import InvalidInput
from viva_store.export.model import FORMATS, SUFFIX, ExportTranscript, SubAgent
from viva_store.export.render import render
from viva_store.records import JsonRecord, MessageRecord, SessionRecord
from viva_store.registry import reader
from viva_store.sessions.service import (
    SessionFilter,
    get_session,
    list_sessions,
    session_messages,
)
from viva_store.store import Context

__all__ = ["FORMATS", "ExportTranscript", "ExportedFile", "export_sessions", "export_transcript"]
__all__ += ["check_format", "filename", "render", "write_export"]

MAX_DEPTH = 4
"""Sub-agents of sub-agents are nested this deep at most (a loop in bad data stops)."""


def check_format(fmt: str) -> str:
    if fmt not in FORMATS:
        raise InvalidInput(f"unknown format {fmt!r} (one of {', '.join(FORMATS)})")
    return fmt


def _after_seq(messages: tuple[MessageRecord, ...], child: SessionRecord) -> int:
    """The seq of the last parent message at or before the child's start (the end when
    either has no time)."""
    last = messages[-1].seq if messages else -1
    if child.started_at is None:
        return last
    before = [m.seq for m in messages if m.at is not None and m.at <= child.started_at]
    return before[-1] if before else (-1 if any(m.at for m in messages) else last)


def _transcript(ctx: Context, session: SessionRecord, depth: int) -> ExportTranscript:
    from viva_store.sessions.related import SUBAGENT, children_of

    messages = tuple(session_messages(ctx, session.id))
    subagents: list[SubAgent] = []
    if depth < MAX_DEPTH:
        kids = ctx.store.read(lambda c: children_of(c, ctx, [session])[session.id])
        for kid in kids:
            if kid.relation == SUBAGENT:
                nested = _transcript(ctx, kid, depth + 1)
                subagents.append(SubAgent(_after_seq(messages, kid), nested))
    return ExportTranscript(session, messages, tuple(subagents))


@reader
def export_transcript(ctx: Context, ref: str) -> ExportTranscript:
    """One session the actor may see, whole, with its sub-agent sessions nested."""
    return _transcript(ctx, get_session(ctx, ref), 0)


def filename(session: SessionRecord, fmt: str) -> str:
    """``<date>_<harness>_<id>.<ext>``: sorts by time, names the session exactly."""
    day = f"{session.started_at:%Y-%m-%d}" if session.started_at else "undated"
    return f"{day}_{session.harness}_{session.id}{SUFFIX[check_format(fmt)]}"


@dataclass(frozen=True, slots=True)
class ExportedFile(JsonRecord):
    """A file an export wrote."""

    session_id: str
    harness: str
    format: str
    path: str
    bytes: int


def write_export(
    ctx: Context, ref: str, fmt: str, path: Path | None, folder: bool = False
) -> ExportedFile:
    """Export one session to ``path`` (a folder, or ``folder``: its :func:`filename` in
    it; None: that name in the current folder)."""
    check_format(fmt)
    t = export_transcript(ctx, ref)
    target = path if path is not None else Path(filename(t.session, fmt))
    if folder or target.is_dir():
        target = target / filename(t.session, fmt)
    return _write(t, fmt, target)


def _write(t: ExportTranscript, fmt: str, target: Path) -> ExportedFile:
    data = render(t, fmt).encode("utf-8")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(target.name + ".part")
        partial.write_bytes(data)
        os.replace(partial, target)
    except OSError as exc:
        raise InvalidInput(f"cannot write {target}: {exc.strerror or exc}") from None
    return ExportedFile(t.session.id, t.session.harness, fmt, str(target), len(data))


def export_sessions(
    ctx: Context,
    directory: Path,
    fmt: str = "md",
    member: str | None = None,
    since: datetime | None = None,
) -> list[ExportedFile]:
    """Export every session the actor may see (narrowed to ``member``'s and to those
    started since ``since``) into ``directory``, one file each; a sub-agent session
    whose parent is exported too is nested in the parent's file, not written apart."""
    check_format(fmt)
    if directory.exists() and not directory.is_dir():
        raise InvalidInput(f"{directory} is not a folder")
    found = list_sessions(ctx, SessionFilter(member=member, since=since))
    ids = {s.id for s in found}
    out: list[ExportedFile] = []
    for session in found:
        if session.relation == "subagent" and session.parent_id in ids:
            continue
        t = _transcript(ctx, session, 0)
        out.append(_write(t, fmt, directory / filename(session, fmt)))
    return out
