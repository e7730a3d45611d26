"""What a run reports: its progress events, and the summary it returns.

The events are what the CLI draws a Rich bar from and the TUI a
``ProgressBar``; the summary's keys are those of ``viva import --json``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from viva_store.importing.harness.model import Problem
from viva_store.importing.state import LineCounts

if TYPE_CHECKING:
    from viva_store.importing.write import WriteResult


@dataclass(frozen=True, slots=True)
class ImportStarted:
    """Discovery finished: this many files and bytes to look at."""

    files: int
    bytes: int


@dataclass(frozen=True, slots=True)
class FileImported:
    """One source file read (it was new or had changed).

    ``messages_so_far`` counts what the run has stored until now; a file's own
    messages may still be waiting in the batch that the next write commits.
    """

    harness: str
    path: str
    bytes: int
    messages_so_far: int


@dataclass(frozen=True, slots=True)
class FilesUnchanged:
    """The files unchanged since the last run, all at once (they are skipped on
    their stat alone; one event rather than one per file keeps a re-import close
    to a bare directory walk)."""

    files: int
    bytes: int


ImportEvent = ImportStarted | FilesUnchanged | FileImported


@dataclass(slots=True)
class Tally:
    """What the writes of a run stored, added up."""

    new_session_ids: set[str] = field(default_factory=set)
    updated_session_ids: set[str] = field(default_factory=set)
    messages_added: int = 0
    redactions: int = 0

    def add(self, result: WriteResult) -> None:
        """Count one transaction's result."""
        self.new_session_ids |= result.new_sessions
        self.updated_session_ids |= result.updated_sessions
        self.messages_added += result.messages_added
        self.redactions += result.redactions


@dataclass(slots=True)
class ImportSummary(Tally):
    """What a run did; the keys of ``viva import --json``."""

    run_id: str = ""
    files_scanned: int = 0
    files_unchanged: int = 0
    sessions_new: int = 0
    sessions_updated: int = 0
    sessions_unchanged: int = 0
    lines_read: int = 0
    lines_skipped: int = 0
    lines_blank: int = 0
    lines_quarantined: int = 0
    bytes_read: int = 0
    bytes_withheld: int = 0
    problems: list[Problem] = field(default_factory=list)

    def count(self, counts: LineCounts) -> None:
        """Add one file's line accounting."""
        self.lines_read += counts.lines_read
        self.bytes_read += counts.bytes_read
        self.lines_blank += counts.lines_blank
        self.lines_quarantined += counts.lines_quarantined
        self.bytes_withheld += counts.bytes_withheld
        self.problems.extend(counts.problems)

    def stored(self, written: Tally) -> None:
        """Take what the run's writes stored."""
        self.new_session_ids = set(written.new_session_ids)
        self.updated_session_ids = set(written.updated_session_ids)
        self.messages_added = written.messages_added
        self.redactions = written.redactions
        self.sessions_new = len(self.new_session_ids)
        self.sessions_updated = len(self.updated_session_ids - self.new_session_ids)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            name: getattr(self, name)
            for name in self.__dataclass_fields__
            if name not in ("problems", "new_session_ids", "updated_session_ids")
        }
        out["problems"] = [
            {"path": p.path, "line": p.line, "reason": p.reason} for p in self.problems
        ]
        return out
