"""Which source files a run looks at, and which of them it must read.

Per source file Viva keeps identity (inode), size, mtime, the byte offset
reached and a digest of the last line read:

* unchanged on ``stat`` → skipped without opening it — unless the last read
  withheld an unterminated last line and the file has since settled (unchanged
  for ``[import] settle_minutes``, default 10): then its tail is read once more,
  and taken if it is a complete JSON object;
* grown, and the last line read is still where it was → resumed at the offset;
* shrunk, replaced, or compressed (``.zst``) → read again from the start
  (inserts are idempotent, so nothing is stored twice).

A folder that cannot be listed, and a root named on purpose (``--root``,
``VIVA_<HARNESS>_ROOT``, ``[roots]``) that does not exist, are problems.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from sqlalchemy import select

from viva_store.db.schema import SOURCE_FILE
from viva_store.importing.harness import registry
from viva_store.importing.harness.model import Problem, SourceFile
from viva_store.importing.harness.reader import LINE_KINDS
from viva_store.importing.paths import PathKeys
from viva_store.importing.state import FileState, Fingerprint, Resume
from viva_store.store import Context

SETTLE_MINUTES = 10.0
"""How long a file must be unchanged before its unterminated last line is taken."""


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
    settled: bool = False  # unchanged for the settle time: nothing is writing it

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
            from viva_store.importing.harness.lines import range_sha256  # a changed file only

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
            if root.origin != "default" and not root.path.exists():
                named = {"override": "--root", "env": registry.env_var(harness)}
                how = named.get(root.origin, "[roots] in config.toml")
                found.problems.append(
                    Problem(str(root.path), None, f"does not exist (named by {how})")
                )
                continue
            try:
                sources.extend(registry.discover(root, found.problems))
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


def plan(ctx: Context, chosen: list[str], found: Found, keys: PathKeys) -> Plan:
    """Split the found sources into the changed (to read) and the unchanged."""
    known = known_files(ctx, chosen)
    minutes = float(ctx.store.config.section("import").get("settle_minutes", SETTLE_MINUTES))
    settled_before = (ctx.store.now() - timedelta(minutes=minutes)).timestamp()
    out = Plan()
    for source, st in found.files:
        seen = keys.lookup(known, source.harness, source.location)
        settled = st.st_mtime <= settled_before and source.kind in LINE_KINDS
        same = seen is not None and seen[1:4] == (st.st_size, st.st_mtime_ns, st.st_ino)
        # A withheld tail is looked at once more when the file has settled since.
        if same and not (settled and seen is not None and seen[4] == "waiting"):
            out.unchanged += 1
            out.unchanged_bytes += st.st_size
            continue
        known_state = file_state(ctx, seen[0]) if seen is not None else None
        out.jobs.append(Job(source, st, known_state, settled))
    return out


Known = dict[tuple[str, str], tuple[int, int, int, int, str]]
"""Files read before, by (harness, path key): (id, size, mtime, inode, tail state)."""


def known_files(ctx: Context, harnesses: list[str]) -> Known:
    """(id, size, mtime, inode, tail state) of every file read before, by harness and
    path key (:mod:`~viva_store.importing.paths`): all a skip decision needs.

    One scan of the table, filtered here: looking the chosen harnesses up in the
    ``(harness, path_key)`` index would fetch every row by its id, which costs
    several times the scan on the re-import of an unchanged history.
    """
    rows = ctx.store.read(lambda c: c.exec_driver_sql(_KNOWN).fetchall())
    chosen = set(harnesses)
    return {
        (h, key): (i, size, mtime, ino, tail)
        for h, key, i, size, mtime, ino, tail in rows
        if h in chosen
    }


# Plain SQL on both engines (no parameters, no types to process): this query is
# most of what a re-import of an unchanged history asks of the store.
_KNOWN = f"SELECT harness, path_key, id, size, mtime_ns, inode, tail_state FROM {SOURCE_FILE.name}"


def file_state(ctx: Context, file_id: int) -> FileState:
    """Everything remembered about a file that changed (offset, digest, reader state)."""
    row = ctx.store.read(
        lambda c: c.execute(select(SOURCE_FILE).where(SOURCE_FILE.c.id == file_id)).one()
    )
    return FileState.from_row(row)


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
