"""What a launch shows and leaves: plain frozen records (no I/O, no SQL)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from viva_store.launch.register import McpRegistration
from viva_store.records import ExecutionRecord, JsonRecord
from viva_store.skills.records import Projection


@dataclass(frozen=True, slots=True)
class LaunchPlan(JsonRecord):
    """What a launch projects and runs (the dry run prints it; the launch follows it)."""

    member: str
    harness: str
    cwd: str
    task: str
    executable: str
    found: bool
    command: tuple[str, ...]
    env: dict[str, str]
    shell: str
    projection: Projection
    files: tuple[dict[str, Any], ...]
    kept: tuple[str, ...]
    block: str
    warnings: tuple[str, ...]
    problems: tuple[str, ...]
    mcp: McpRegistration
    """How ``viva mcp`` is registered in the harness for this session (its flags are in
    ``command``)."""

    def to_json(self) -> dict[str, Any]:
        out = JsonRecord.to_json(self)
        out["projection"] = self.projection.to_json()
        out["mcp"] = self.mcp.to_json()
        return out


@dataclass(frozen=True, slots=True)
class LaunchResult(JsonRecord):
    """How a launch ended: the session it left, whom it is attributed to, the uses."""

    execution: ExecutionRecord
    session_id: str | None
    native_session_id: str | None
    attributed_to: str | None
    uses: tuple[dict[str, Any], ...]
    grant_revoked: bool
    restored: tuple[str, ...]
    notes: tuple[str, ...]
    imported: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out = JsonRecord.to_json(self)
        out["execution"] = self.execution.to_json()
        return out


@dataclass(frozen=True, slots=True)
class Repaired(JsonRecord):
    """What ``viva launch --repair`` did for one launch that never restored its files."""

    execution_id: str | None
    member: str | None
    cwd: str
    restored: tuple[str, ...]
    notes: tuple[str, ...]
    result: LaunchResult | None

    def to_json(self) -> dict[str, Any]:
        out = JsonRecord.to_json(self)
        out["result"] = self.result.to_json() if self.result else None
        return out
