"""Which source files a run looks at, and which of them it must read.

Per source file Viva keeps identity (inode), size, mtime, the byte offset
reached and a digest of the last line read:

* unchanged on ``stat`` → skipped without opening it;
* grown, and the last line read is still where it was → resumed at the offset;
* shrunk, replaced, or compressed (``.zst``) → read again from the start
  (inserts are idempotent, so nothing is stored twice).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from viva_store.importing.batch import file_state, known_files
from viva_store.importing.harness import registry
from viva_store.importing.harness.lines import range_sha256
from viva_store.importing.harness.model import Problem, SourceFile
from viva_store.importing.read import FileState, Fingerprint, Resume
from viva_store.store import Context


@dataclass(slots=True)
class Found:
    """The sources under the chosen harnesses' roots, with their fingerprints."""

    sources: int = 0  # discovered, whether or not they could be stat'ed
    files: list[tuple[SourceFile, Fingerprint]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def bytes(self) -> int:
        return sum(st.st_size for _, st in self.files)


@dataclass(frozen=True, slots=True)
class Job:
    """A source that is new or changed, and what was remembered of it."""

    source: SourceFile
    st: Fingerprint
    known: FileState | None

    def resume(self) -> Resume:
        """Where to continue the file: where it stopped, or the start when it was replaced."""
        known, st, source = self.known, self.st, self.source
        if (
            known is None
            or source.kind != "jsonl"
            or known.inode != st.st_ino
            or st.st_size < known.byte_offset
        ):
            return Resume()
        if known.byte_offset and known.last_line_length:
            with open(source.path, "rb") as fh:
                start = known.byte_offset - known.last_line_length
                if range_sha256(fh, start, known.last_line_length) != known.last_line_digest:
                    return Resume()
        return Resume.after(known)


@dataclass(slots=True)
class Plan:
    """What a run reads: the changed sources; the unchanged are only counted."""

    jobs: list[Job] = field(default_factory=list)
    unchanged: int = 0
    unchanged_bytes: int = 0


def find_sources(ctx: Context, chosen: list[str], overrides: Mapping[str, str] | None) -> Found:
    """Every source under the roots of ``chosen``, stat'ed; what could not be listed
    or stat'ed is a problem, and so is a named folder that holds no sessions."""
    found = Found()
    config_roots: Mapping[str, Any] = ctx.store.config.section("roots")
    sources: list[SourceFile] = []
    for harness in chosen:
        for root in registry.roots(harness, overrides, config_roots):
            before = len(sources)
            try:
                sources.extend(registry.discover(root))
            except OSError as exc:
                found.problems.append(Problem(str(root.path), None, f"cannot list: {exc.strerror}"))
                continue
            if len(sources) == before and root.origin != "default" and root.path.exists():
                # A folder the owner named on purpose that holds nothing readable is
                # most likely the wrong level of the harness's tree: say so.
                where = registry.default_layout(harness)
                found.problems.append(
                    Problem(
                        str(root.path),
                        None,
                        f"no {harness} sessions found here ({harness} keeps them in {where})",
                    )
                )
    found.sources = len(sources)
    for source in sources:
        st = _stat(source)
        if isinstance(st, Problem):
            found.problems.append(st)
        else:
            found.files.append((source, st))
    return found


def plan(ctx: Context, chosen: list[str], found: Found) -> Plan:
    """Split the found sources into the changed (to read) and the unchanged."""
    known = known_files(ctx, chosen)
    out = Plan()
    for source, st in found.files:
        seen = known.get((source.harness, source.location))
        if seen is not None and seen[1:] == (st.st_size, st.st_mtime_ns, st.st_ino):
            out.unchanged += 1
            out.unchanged_bytes += st.st_size
            continue
        out.jobs.append(Job(source, st, file_state(ctx, seen[0]) if seen is not None else None))
    return out


def _stat(source: SourceFile) -> Fingerprint | Problem:
    """The file's fingerprint; a SQLite source includes its ``-wal`` file, where new
    rows sit until a checkpoint while the database file keeps its size and mtime."""
    try:
        st = source.stat or os.stat(source.location)
    except OSError as exc:
        return Problem(str(source.path), None, f"cannot stat: {exc.strerror}")
    size, mtime_ns = st.st_size, st.st_mtime_ns
    if source.kind == "sqlite":
        wal = source.path.with_name(source.path.name + "-wal")
        with contextlib.suppress(OSError):
            wst = wal.stat()
            size, mtime_ns = size + wst.st_size, max(mtime_ns, wst.st_mtime_ns)
    return Fingerprint(size, mtime_ns, st.st_ino, mtime_ns / 1e9)
