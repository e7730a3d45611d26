"""What the Gemini CLI reader knows of a chat file: its place in the layout, and
what it carries from one import of a JSONL file to the next.

The layout gives the project (the ``<project-id>`` folder), the cwd (from
``tmp/<id>/.project_root`` or ``~/.gemini/projects.json``, whose old sha256
project ids are matched by hashing each registered path) and, for a sub-agent
file ``chats/<parentSessionId>/<id>.jsonl``, the parent session. The state is
saved as JSON with the file's state: those facts, the session id once a
metadata line fixed it, the session kind and the best title rank offered.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

import orjson

from viva_store.importing.harness.common import as_dict, as_int, as_str
from viva_store.importing.harness.model import JsonObj

_TEXT = ("sid", "project", "cwd", "parent", "kind")


@dataclass(slots=True)
class GeminiState:
    """The reader's state of one chat file (see the module)."""

    sid: str | None = None
    sid_fixed: bool = False  # a metadata line named the session
    layout: bool = False  # the layout facts were looked up
    project: str | None = None
    cwd: str | None = None
    parent: str | None = None  # a sub-agent's parent session
    kind: str | None = None  # main | subagent
    title_rank: int = 0

    @classmethod
    def from_json(cls, saved: JsonObj) -> GeminiState:
        """The state saved by :meth:`to_json` (anything unexpected in it is dropped)."""
        state = cls(sid_fixed=saved.get("sid_fixed") is True, layout=saved.get("layout") is True)
        for name in _TEXT:
            setattr(state, name, as_str(saved.get(name)))
        state.title_rank = as_int(saved.get("title_rank"))
        return state

    def to_json(self) -> JsonObj:
        out: JsonObj = {n: v for n in _TEXT if (v := getattr(self, n)) is not None}
        for name in ("sid_fixed", "layout"):
            if getattr(self, name):
                out[name] = True
        if self.title_rank:
            out["title_rank"] = self.title_rank
        return out

    def place(self, path: Path) -> None:
        """Fill in the project, cwd and parent implied by where ``path`` lives (once)."""
        if self.project is not None or self.layout:
            return
        self.layout = True
        parent = path.parent
        if parent.name == "chats":
            project_dir = parent.parent
        elif parent.parent.name == "chats":
            project_dir = parent.parent.parent
            self.parent = parent.name
        else:
            return
        self.project = project_dir.name
        self.cwd = project_cwd(project_dir) or self.cwd


def project_cwd(project_dir: Path) -> str | None:
    """The cwd of a ``tmp/<project-id>`` folder, if Gemini recorded it."""
    try:
        marker = (project_dir / ".project_root").read_text("utf-8", errors="replace").strip()
    except OSError:
        marker = ""
    if marker:
        return marker
    try:
        registry = orjson.loads((project_dir.parent.parent / "projects.json").read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    slug = project_dir.name
    for cwd, project_id in as_dict(as_dict(registry).get("projects")).items():
        if project_id == slug or hashlib.sha256(cwd.encode()).hexdigest() == slug:
            return cwd
    return None
