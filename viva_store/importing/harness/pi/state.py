"""What the pi reader carries from one import of a session file to the next.

Saved as JSON with the file's state: the header's facts (session id, cwd,
the parent of a fork and when it was forked), how many copied entries were
skipped, and the best title rank offered, so an append is parsed from its
byte offset alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from viva_store.importing.harness.common import as_int, as_str
from viva_store.importing.harness.model import JsonObj

_TEXT = ("sid", "cwd", "parent", "relation", "fork_at")


@dataclass(slots=True)
class PiState:
    """The reader's state of one session file (see the module)."""

    sid: str | None = None
    header: bool = False  # the session header was read
    cwd: str | None = None
    parent: str | None = None
    relation: str | None = None  # fork | branch
    fork_at: str | None = None  # the forked file's header timestamp, as written
    copied: int = 0  # entries copied from the parent, not emitted
    title_rank: int = 0

    @classmethod
    def from_json(cls, saved: JsonObj) -> PiState:
        """The state saved by :meth:`to_json` (anything unexpected in it is dropped)."""
        state = cls(header=saved.get("header") is True)
        for name in _TEXT:
            setattr(state, name, as_str(saved.get(name)))
        fork_at = saved.get("fork_at")
        if isinstance(fork_at, int | float) and not isinstance(fork_at, bool):
            state.fork_at = str(fork_at)  # an epoch timestamp, as the header wrote it
        state.copied = as_int(saved.get("copied"))
        state.title_rank = as_int(saved.get("title_rank"))
        return state

    def to_json(self) -> JsonObj:
        out: JsonObj = {n: v for n in _TEXT if (v := getattr(self, n)) is not None}
        if self.header:
            out["header"] = True
        if self.copied:
            out["copied"] = self.copied
        if self.title_rank:
            out["title_rank"] = self.title_rank
        return out
