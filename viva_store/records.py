"""Plain, frozen records handed to the faces. No SQLAlchemy here."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from datetime import datetime
from typing import Any


def _jsonable(value: Any) -> Any:
    if isinstance(value, JsonRecord):
        return value.to_json()
    if isinstance(value, datetime):
        return value.isoformat().replace("+00:00", "Z")
    if isinstance(value, tuple | list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


class JsonRecord:
    """Mixin: ``to_json()`` gives a dict of JSON-ready values (ISO-8601 UTC instants)."""

    def to_json(self) -> dict[str, Any]:
        return {f.name: _jsonable(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


@dataclass(frozen=True, slots=True)
class MemberRecord(JsonRecord):
    """A member's identity. ``soul`` is empty when the actor may not read it."""

    name: str
    display_name: str
    role: str
    engine: str
    harnesses: tuple[str, ...]
    tools: tuple[str, ...]
    coordinator: bool
    native_skills: tuple[str, ...]
    soul: str


@dataclass(frozen=True, slots=True)
class SkillRecord(JsonRecord):
    """A team skill of the library (without its body unless asked)."""

    name: str
    description: str
    tags: tuple[str, ...]
    derived_from: str | None
    source_path: str
    body: str = ""


@dataclass(frozen=True, slots=True)
class GrantRecord(JsonRecord):
    """A grant as the owner sees it (never the token)."""

    id: str
    member: str
    created_at: datetime
    expires_at: datetime | None
    revoked_at: datetime | None
    note: str


@dataclass(frozen=True, slots=True)
class IssuedGrant(JsonRecord):
    """A freshly minted grant: the only time the token is ever shown."""

    id: str
    member: str
    token: str
    expires_at: datetime | None


__all__ = ["GrantRecord", "IssuedGrant", "JsonRecord", "MemberRecord", "SkillRecord", "asdict"]


@dataclass(frozen=True, slots=True)
class SessionRecord(JsonRecord):
    """A recovered session with its current attribution."""

    id: str
    harness: str
    native_id: str
    project: str | None
    cwd: str | None
    started_at: datetime | None
    ended_at: datetime | None
    title: str | None
    message_count: int
    member: str | None
    status: str  # unattributed | attributed | nobody
    parent_id: str | None = None
    relation: str | None = None
    git_branch: str | None = None
    models: tuple[str, ...] = ()
    entrypoint: str | None = None
    originator: str | None = None
    tokens: dict[str, int] | None = None
    attribution_source: str = "none"
    note: str = ""
    labels: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class MessageRecord(JsonRecord):
    """One redacted transcript item. A tool call has its one-line summary in
    ``tool_input`` and its whole input, as the JSON value the harness gave, in
    ``tool_args``."""

    seq: int
    role: str
    at: datetime | None
    text: str
    tool: str | None
    tool_input: str | None = None
    tool_result: str | None = None
    sidechain: bool = False
    synthetic: bool = False
    model: str | None = None
    kind: str = ""
    tool_args: Any = None


@dataclass(frozen=True, slots=True)
class ExecutionRecord(JsonRecord):
    """A launch through Viva: the record that attributes its session (I6)."""

    id: str
    member: str
    harness: str
    cwd: str
    task: str
    native_session_id: str | None
    started_at: datetime
    ended_at: datetime | None
    outcome: str | None
    exit_status: int | None
