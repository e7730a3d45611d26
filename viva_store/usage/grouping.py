"""Grouping sessions' token totals by one dimension: pure arithmetic, no store.

A session's tokens go to one group (its day, week, project, branch, harness or member),
or, by model, are split as its responses were: what its usage rows name per model, and
whatever its stored totals hold beyond them under ``(unknown)``. Either way the groups
add up to exactly the sessions' stored totals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime

from viva_store.usage.records import Tokens

GROUPINGS = ("day", "week", "project", "branch", "model", "harness", "member")
NONE = "(none)"
UNKNOWN_MODEL = "(unknown)"
UNATTRIBUTED = "(unattributed)"
UNDATED = "(undated)"


@dataclass(frozen=True, slots=True)
class SessionUsage:
    """One session as usage sees it: where it belongs and what it stored.

    ``by_model``: the tokens of its usage rows per model (None: no model named).
    """

    id: str
    started_at: datetime | None
    project: str | None
    branch: str | None
    harness: str
    member: str | None
    tokens: Tokens
    by_model: tuple[tuple[str | None, Tokens], ...] = field(default=())


def _day(s: SessionUsage) -> str:
    return s.started_at.astimezone().date().isoformat() if s.started_at else UNDATED


def _week(s: SessionUsage) -> str:
    if s.started_at is None:
        return UNDATED
    year, week, _ = s.started_at.astimezone().date().isocalendar()
    return f"{year}-W{week:02d}"


KEYS: dict[str, Callable[[SessionUsage], str]] = {
    "day": _day,
    "week": _week,
    "project": lambda s: s.project or NONE,
    "branch": lambda s: s.branch or NONE,
    "harness": lambda s: s.harness,
    "member": lambda s: s.member or UNATTRIBUTED,
}
"""The group of a session for every grouping but ``model`` (local days and ISO weeks)."""


def model_split(s: SessionUsage) -> list[tuple[str, Tokens]]:
    """A session's tokens per model; what its usage rows do not account for is unknown."""
    parts: dict[str, Tokens] = {}
    named = Tokens()
    for model, tokens in s.by_model:
        key = model or UNKNOWN_MODEL
        parts[key] = parts.get(key, Tokens()) + tokens
        named = named + tokens
    rest = Tokens(*(a - b for a, b in zip(s.tokens.counts(), named.counts(), strict=True)))
    if any(rest.counts()):
        parts[UNKNOWN_MODEL] = parts.get(UNKNOWN_MODEL, Tokens()) + rest
    if not parts:
        parts[UNKNOWN_MODEL] = Tokens()  # a session without tokens still counts as one
    return list(parts.items())


@dataclass(slots=True)
class Group:
    """What one group adds up: its sessions, tokens, and tokens per model (for prices)."""

    sessions: set[str] = field(default_factory=set)
    tokens: Tokens = field(default_factory=Tokens)
    by_model: dict[str, Tokens] = field(default_factory=dict)

    def add(self, session_id: str, model: str, tokens: Tokens) -> None:
        self.sessions.add(session_id)
        self.tokens = self.tokens + tokens
        self.by_model[model] = self.by_model.get(model, Tokens()) + tokens


def group(sessions: Iterable[SessionUsage], by: str) -> dict[str, Group]:
    """The sessions' tokens summed per group of ``by`` (one of :data:`GROUPINGS`)."""
    groups: dict[str, Group] = {}
    for s in sessions:
        for model, tokens in model_split(s):
            key = model if by == "model" else KEYS[by](s)
            groups.setdefault(key, Group()).add(s.id, model, tokens)
    return groups


def total(groups: Iterable[Group]) -> Group:
    """Every group together (a session in several groups counts once)."""
    out = Group()
    for g in groups:
        out.sessions |= g.sessions
        out.tokens = out.tokens + g.tokens
        for model, tokens in g.by_model.items():
            out.by_model[model] = out.by_model.get(model, Tokens()) + tokens
    return out
