"""What a run remembers of a source file, and the line accounting of a read.

Plain values shared by the planning of a run (:mod:`~viva_store.importing.sources`),
which must stay light, and the reading of the files that changed
(:mod:`~viva_store.importing.read`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from viva_store.importing.harness.model import JsonObj, Problem


class Fingerprint(NamedTuple):
    """What decides whether a source changed (``os.stat_result``'s names)."""

    st_size: int
    st_mtime_ns: int
    st_ino: int
    st_mtime: float


@dataclass(frozen=True, slots=True)
class FileState:
    """How far a source was read: one ``source_file`` row.

    ``path`` is where the file is (the row stores it redacted, see
    :mod:`~viva_store.importing.paths`); ``reader_state`` is redacted already.
    ``tail_state`` says what became of an unterminated last line: ``waiting`` (withheld
    while the file may still be written), ``kept`` (the file had settled and the line
    is not complete JSON: withheld until the file changes) or ``""`` (none).
    """

    harness: str
    path: str
    kind: str
    size: int
    mtime_ns: int
    inode: int
    byte_offset: int
    lines: int
    last_line_length: int
    last_line_digest: str
    reader_state: JsonObj
    file_mtime: datetime
    imported_at: datetime
    tail_state: str = ""

    @classmethod
    def from_row(cls, row: Any) -> FileState:
        """The state stored in a ``source_file`` row (its ``path`` as stored: redacted)."""
        return cls(**{name: getattr(row, name) for name in cls.__dataclass_fields__})

    def row(self, shown_path: str, path_key: str) -> dict[str, Any]:
        """The values of its ``source_file`` row, the path as stored."""
        values = {name: getattr(self, name) for name in self.__dataclass_fields__}
        values["path"], values["path_key"] = shown_path, path_key
        return values


@dataclass(frozen=True, slots=True)
class Resume:
    """Where to continue a file: byte offset, next line number, the reader's saved
    state, and the last line read (to store again if nothing new is read)."""

    offset: int = 0
    next_line: int = 1
    state: JsonObj = field(default_factory=dict)
    last_line_length: int = 0
    last_line_digest: str = ""

    @classmethod
    def after(cls, known: FileState) -> Resume:
        """Continue where ``known`` stopped."""
        return cls(
            known.byte_offset,
            known.lines + 1,
            dict(known.reader_state or {}),
            known.last_line_length,
            known.last_line_digest,
        )


@dataclass(frozen=True, slots=True)
class LineCounts:
    """Line accounting of a read: input bytes = stored + quarantined + blank + withheld."""

    lines_read: int = 0
    bytes_read: int = 0
    lines_blank: int = 0
    lines_quarantined: int = 0
    bytes_withheld: int = 0
    problems: tuple[Problem, ...] = ()
