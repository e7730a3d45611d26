"""The transcript an export renders: a session, its messages, and its sub-agents' own
transcripts nested where they ran. Plain records: the renderers need no store."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from viva_store.records import JsonRecord, MessageRecord, SessionRecord

FORMATS = ("md", "html", "json", "jsonl")
SUFFIX = {"md": ".md", "html": ".html", "json": ".json", "jsonl": ".jsonl"}


@dataclass(frozen=True, slots=True)
class SubAgent:
    """A sub-agent session and the seq of the parent message it follows (-1: before
    the first)."""

    after_seq: int
    transcript: ExportTranscript


@dataclass(frozen=True, slots=True)
class ExportTranscript(JsonRecord):
    """One session as it is exported: every (redacted) message, whole, and its
    sub-agent sessions, each nested under the parent message it ran after."""

    session: SessionRecord
    messages: tuple[MessageRecord, ...]
    subagents: tuple[SubAgent, ...] = ()

    def items(self) -> Iterator[MessageRecord | SubAgent]:
        """Messages in order, each sub-agent right after the message it follows."""
        pending = sorted(self.subagents, key=lambda s: s.after_seq)
        at = 0
        for msg in self.messages:
            while at < len(pending) and pending[at].after_seq < msg.seq:
                yield pending[at]
                at += 1
            yield msg
        yield from pending[at:]

    def to_json(self) -> dict[str, Any]:
        """The transcript as one JSON object: the session's fields, ``messages``, and
        ``subagents`` (each with ``after_seq`` and its own nested transcript)."""
        data = self.session.to_json()
        data["messages"] = [m.to_json() for m in self.messages]
        data["subagents"] = [
            {"after_seq": s.after_seq, **s.transcript.to_json()} for s in self.subagents
        ]
        return data


def header_facts(session: SessionRecord) -> list[tuple[str, str]]:
    """The facts an export's header shows, in order, as ``(label, value)``."""
    tokens = session.tokens or {}
    shown_tokens = ", ".join(f"{k.replace('_', ' ')} {v:,}" for k, v in tokens.items() if v)
    return [
        ("harness", session.harness),
        ("session", f"{session.id} ({session.native_id})"),
        ("project", session.project or session.cwd or "—"),
        ("cwd", session.cwd or "—"),
        ("branch", session.git_branch or "—"),
        ("models", ", ".join(session.models) or "—"),
        ("started", _instant(session.started_at)),
        ("ended", _instant(session.ended_at)),
        ("messages", str(session.message_count)),
        ("tokens", shown_tokens or "—"),
        ("member", session.member or session.status),
    ]


def _instant(at: Any) -> str:
    return at.strftime("%Y-%m-%d %H:%M:%S UTC") if at else "—"


PLAIN_KINDS = frozenset({"", "text", "message", "tool_use", "tool_result", "function_call"})
"""Kinds of item the role already says; any other kind is shown beside the role."""


def shown_kind(msg: MessageRecord) -> str:
    """`` (thinking)`` and the like for an item whose kind says more than its role."""
    return "" if msg.kind in PLAIN_KINDS else f" ({msg.kind})"
