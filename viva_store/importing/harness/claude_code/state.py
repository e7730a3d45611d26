"""What the Claude Code reader carries from one import of a file to the next.

Saved as JSON with the file's state, so an append is parsed from its byte
offset alone: the session id decided at the start, the first values of the
line fields, the best title rank offered, recent tool names (to name a tool
result whose call came earlier) and recent usage figures (to count only the
growth of a streamed response read in two parts).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from viva_store.importing.harness.common import as_dict, as_int, as_str
from viva_store.importing.harness.model import JsonObj

FIGURES = 5
"""Token figures per response: input, output, cache read, cache write, reasoning."""

FIRSTS = (
    ("line_sid", "sessionId"),
    ("cwd", "cwd"),
    ("branch", "gitBranch"),
    ("version", "version"),
    ("entrypoint", "entrypoint"),
)
"""(state field, line field) pairs whose first non-empty value is kept."""


@dataclass(slots=True)
class SeenUsage:
    """A usage key already emitted: its figures so far and how many growth entries followed."""

    figures: list[int]
    growths: int = 0


@dataclass(slots=True)
class ClaudeState:
    """The reader's state of one transcript (see the module)."""

    sid: str | None = None
    line_sid: str | None = None
    cwd: str | None = None
    branch: str | None = None
    version: str | None = None
    entrypoint: str | None = None
    title_rank: int = 0
    tools: dict[str, str] = field(default_factory=dict)
    usage: dict[str, SeenUsage] = field(default_factory=dict)

    @classmethod
    def from_json(cls, saved: JsonObj) -> ClaudeState:
        """The state saved by :meth:`to_json` (anything unexpected in it is dropped)."""
        usage: dict[str, SeenUsage] = {}
        for key, value in as_dict(saved.get("usage")).items():
            if isinstance(value, list) and len(value) == FIGURES + 1:
                numbers = [as_int(v) for v in value]
                usage[key] = SeenUsage(numbers[:FIGURES], numbers[FIGURES])
        return cls(
            sid=as_str(saved.get("sid")),
            line_sid=as_str(saved.get("line_sid")),
            cwd=as_str(saved.get("cwd")),
            branch=as_str(saved.get("branch")),
            version=as_str(saved.get("version")),
            entrypoint=as_str(saved.get("entrypoint")),
            title_rank=as_int(saved.get("title_rank")),
            tools={k: v for k, v in as_dict(saved.get("tools")).items() if isinstance(v, str)},
            usage=usage,
        )

    def to_json(self) -> JsonObj:
        out: JsonObj = {
            name: value
            for name in ("sid", "line_sid", "cwd", "branch", "version", "entrypoint")
            if (value := getattr(self, name)) is not None
        }
        if self.title_rank:
            out["title_rank"] = self.title_rank
        out["tools"] = dict(self.tools)
        out["usage"] = {k: [*seen.figures, seen.growths] for k, seen in self.usage.items()}
        return out
