"""The one normalized session shape every harness reader produces.

Readers (:mod:`viva_store.importing.harness.reader`) are pure: they turn one
source file into :class:`ParsedChunk` values and never touch the database. The
importer (:mod:`viva_store.importing.pipeline`) redacts and stores what they yield.

Identity rules that make re-imports idempotent:

* a session is identified by ``(harness, native_id)``;
* a message by ``(session, key)`` — the harness's own line/entry id when it
  has one (Claude ``uuid``, pi entry ``id``, Gemini message ``id``), else a
  key derived from the source file and byte offset;
* a usage figure by ``usage_key`` (Claude ``message.id`` + ``requestId``, a
  Codex ``token_count`` position, ...) so a streamed response repeated on
  several lines, or replayed by a resumed file, is counted once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

JsonObj = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Usage:
    """Token counts of one model response; counted once per ``usage_key``."""

    usage_key: str
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    model: str | None = None


@dataclass(slots=True)
class Message:
    """One ordered item of a transcript.

    ``role`` is one of ``user``, ``assistant``, ``system``, ``tool`` (a tool
    result), ``summary`` (a compaction or title summary) or ``event`` (a
    record kept for completeness that is not conversation, e.g. an unknown
    record type). ``raw`` keeps unknown record types verbatim (the importer
    redacts it before storing).
    """

    key: str
    role: str
    text: str = ""
    at: datetime | None = None
    tool: str | None = None
    tool_input: str | None = None
    tool_result: str | None = None
    sidechain: bool = False
    synthetic: bool = False
    model: str | None = None
    kind: str = ""
    raw: JsonObj | None = None


@dataclass(slots=True)
class SessionMeta:
    """What a chunk of records says about its session.

    Every field is optional: a chunk that only appends messages carries just
    ``native_id``. The importer merges metadata across chunks: earliest start,
    latest end, the title with the highest ``title_rank``, the union of models.
    """

    native_id: str
    parent_native_id: str | None = None
    relation: str | None = None  # subagent | fork | branch | resume | continuation
    project: str | None = None
    cwd: str | None = None
    git_branch: str | None = None
    models: set[str] = field(default_factory=set)
    started_at: datetime | None = None
    ended_at: datetime | None = None
    title: str | None = None
    title_rank: int = 0  # higher wins: custom title > ai title > summary > first prompt
    entrypoint: str | None = None
    originator: str | None = None


@dataclass(slots=True)
class ParsedChunk:
    """Messages and metadata of one session found in part of a source file."""

    meta: SessionMeta
    messages: list[Message] = field(default_factory=list)
    usage: list[Usage] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Problem:
    """Something in the input that could not be used, with where and why."""

    path: str
    line: int | None
    reason: str


@dataclass(frozen=True, slots=True)
class Record:
    """One decoded JSON object with its position in the source file."""

    line: int  # 1-based line number (0 for whole-file formats)
    offset: int  # byte offset of the line start
    obj: JsonObj


class SourceFile:
    """A file (or database) that a reader knows how to read.

    A directory walk hands over the path as a string: the :class:`~pathlib.Path`
    is built only when asked for, because the re-import of an unchanged history
    decides on ``location`` and the stat alone, and a ``Path`` per file would be
    most of that run's cost.
    """

    __slots__ = ("_path", "harness", "kind", "location", "stat")

    harness: str
    location: str
    kind: str  # jsonl | jsonl.zst | json | sqlite | tree
    # The stat a directory walk already has (os.DirEntry caches it): saves the
    # importer a second system call per file on the re-import fast path.
    stat: os.stat_result | None
    _path: Path | None

    def __init__(
        self,
        harness: str,
        path: Path | str,
        kind: str = "jsonl",
        stat: os.stat_result | None = None,
    ) -> None:
        self.harness, self.kind, self.stat = harness, kind, stat
        if isinstance(path, str):
            self.location, self._path = path, None
        else:
            self.location, self._path = str(path), path

    @property
    def path(self) -> Path:
        if self._path is None:
            self._path = Path(self.location)
        return self._path

    def _key(self) -> tuple[str, str, str]:
        return (self.harness, self.location, self.kind)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SourceFile):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"SourceFile({self.harness!r}, {self.location!r}, {self.kind!r})"

    def __getstate__(self) -> tuple[str, str, str]:
        return self._key()

    def __setstate__(self, state: tuple[str, str, str]) -> None:
        self.harness, self.location, self.kind = state
        self.stat, self._path = None, None
