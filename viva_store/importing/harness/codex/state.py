"""What the Codex reader carries from one import of a rollout to the next.

Saved as JSON with the file's state, so an append is parsed from its byte
offset alone: the session id and its lineage, where a child's replayed
parent history stands, the last cumulative token count, which text kinds
have shown a ``response_item`` (mirrors decide on that), recent tool names
and the first values of the session's facts.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from viva_store.importing.harness.codex.items import CUMULATIVE_FIELDS
from viva_store.importing.harness.common import as_dict, as_int, as_list, as_str
from viva_store.importing.harness.model import JsonObj

_TEXT = ("sid", "parent", "relation", "cwd", "branch", "entrypoint", "originator", "model")
_FLAGS = (
    "meta_seen",
    "child",
    "replay",
    "replay_opened",
    "replay_old",
    "token_counts",
    "ri_message",
    "ri_reasoning",
)
_NUMBERS = ("floor", "epoch", "title_rank")


@dataclass(slots=True)
class CodexState:
    """The reader's state of one rollout (see the module)."""

    sid: str | None = None
    parent: str | None = None
    relation: str | None = None
    cwd: str | None = None
    branch: str | None = None
    entrypoint: str | None = None
    originator: str | None = None
    model: str | None = None  # of the latest turn_context
    title_rank: int = 0
    meta_seen: bool = False  # the rollout's own session_meta was read
    child: bool = False  # a fork or a sub-agent rollout
    child_start: int | None = None  # its creation, epoch ms
    replay: bool = False  # inside the parent history a child replays
    replay_opened: bool = False
    replay_old: bool = False  # the replay held records stamped before the child's creation
    token_counts: bool = False  # a cumulative token_count was seen
    cum: list[int] | None = None  # the last cumulative count
    floor: int = 0  # the replayed parent's last total, in a child
    epoch: int = 0  # restarts of the cumulative counter
    ri_message: bool = False  # a response_item message was seen: mirrors are not emitted
    ri_reasoning: bool = False
    calls: dict[str, str] = field(default_factory=dict)  # call id -> tool name (recent)
    mirrors: list[str] = field(default_factory=list)  # digests of emitted event mirrors

    @classmethod
    def from_json(cls, saved: JsonObj) -> CodexState:
        """The state saved by :meth:`to_json` (anything unexpected in it is dropped)."""
        state = cls()
        for name in _TEXT:
            setattr(state, name, as_str(saved.get(name)))
        for name in _FLAGS:
            setattr(state, name, saved.get(name) is True)
        for name in _NUMBERS:
            setattr(state, name, as_int(saved.get(name)))
        start = saved.get("child_start")
        state.child_start = start if type(start) is int else None
        cum = [as_int(v) for v in as_list(saved.get("cum"))]
        state.cum = cum if len(cum) == CUMULATIVE_FIELDS else None
        calls = as_dict(saved.get("calls"))
        state.calls = {k: v for k, v in calls.items() if isinstance(v, str)}
        state.mirrors = [m for m in as_list(saved.get("mirrors")) if isinstance(m, str)]
        return state

    def to_json(self) -> JsonObj:
        out: JsonObj = {n: v for n in _TEXT if (v := getattr(self, n)) is not None}
        out.update((n, True) for n in _FLAGS if getattr(self, n))
        out.update((n, v) for n in _NUMBERS if (v := getattr(self, n)))
        if self.child_start is not None:
            out["child_start"] = self.child_start
        if self.cum is not None:
            out["cum"] = list(self.cum)
        out["calls"] = dict(self.calls)
        out["mirrors"] = list(self.mirrors)
        return out
