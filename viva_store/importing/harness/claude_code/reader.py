"""Reader for Claude Code transcripts (``~/.claude/projects/<dir>/<session>.jsonl``).

One file is one session. Identity:

* main file: native id = the file stem when it is a UUID (it equals the lines'
  ``sessionId``; a resumed 1.0.x file may replay lines that carry an older
  ``sessionId``, so the stem is the safer key), else the first ``sessionId``
  seen on a line, else the stem;
* sub-agent file (``agent-*.jsonl``, flat 2.0.x or ``<uuid>/subagents/`` ≥ 2.1.2):
  its own session, native id = the file stem (``agent-<agentId>``), parent =
  the ``<uuid>`` folder above ``subagents/`` or, for a flat file, the lines'
  ``sessionId``; relation ``subagent``. Inline ≤ 1.0.x sidechains
  (``isSidechain: true`` in the parent file) stay messages of the parent,
  flagged ``sidechain``;
* message key = the line ``uuid`` (``f"{file name}:{byte offset}"`` without
  one); a line that yields several messages suffixes ``:1``, ``:2``...;
* usage key = ``f"{message.id}:{requestId}"`` (the line ``uuid`` without an
  id). A streamed response repeats its ``usage`` on every line with
  ``output_tokens`` growing: one :class:`Usage` per key holds the field-wise
  maximum of the lines read together. When a key already emitted (an earlier
  chunk or import, e.g. a file read while Claude was still writing) grows
  later, only the growth is emitted, as ``f"{key}#{n}"``: summing usage never
  double counts, whether or not the importer updates an existing key.
  API-error lines (``model: "<synthetic>"`` or ``isApiErrorMessage``) are
  synthetic messages and count toward neither models nor usage.

``cwd``, ``gitBranch``, ``version`` (→ ``originator = "claude-code/<version>"``)
and ``entrypoint`` are the first non-empty values on the lines; the folder
name is never decoded. Titles: ``custom-title`` > ``agent-name`` > ``ai-title``
> ``summary`` > first human prompt (a later title of the same rank replaces
an earlier one, except for summaries and prompts where the first stays).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from operator import attrgetter
from pathlib import Path

from viva_store.importing.harness.claude_code.state import ClaudeState
from viva_store.importing.harness.common import note_unlistable
from viva_store.importing.harness.model import JsonObj, Problem, Record, SourceFile
from viva_store.importing.harness.reader import LineParse, LinesOnly, full_chunks

_BY_NAME = attrgetter("name")
_SKIP_DIRS = frozenset(
    {"tool-results", "file-history", "todos", "plans", "shell-snapshots", "debug", "statsig"}
)


class ClaudeCodeReader(LinesOnly):
    """Claude Code transcripts: one JSON-lines file per session (see the module)."""

    name = "claude-code"
    env_roots: tuple[str, ...] = ("CLAUDE_CONFIG_DIR",)

    def default_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """``<dir>/projects`` for each ``CLAUDE_CONFIG_DIR`` entry, then the two default homes."""
        roots: list[Path] = []
        for part in (env.get("CLAUDE_CONFIG_DIR") or "").split(","):
            part = part.strip()
            if part:
                base = home / part[2:] if part == "~" or part.startswith("~/") else Path(part)
                roots.append(base / "projects")
        roots += [home / ".claude" / "projects", home / ".config" / "claude" / "projects"]
        return list(dict.fromkeys(roots))  # each once, in order

    def discover(self, root: Path, problems: list[Problem] | None = None) -> Iterator[SourceFile]:
        """Every ``*.jsonl`` transcript under ``root``, files before sub-folders, by name.

        Parent sessions, flat ``agent-*.jsonl`` and ``<uuid>/subagents/agent-*.jsonl``
        alike; ``tool-results/`` and other non-transcript folders are skipped.
        Iterative, and nothing per file beyond the stat the walk already has: a
        re-import of an unchanged history is little more than this walk and must
        stay close to a bare one.
        """
        stack = [str(root)]
        while stack:
            folder = stack.pop()
            try:
                with os.scandir(folder) as it:
                    entries = sorted(it, key=_BY_NAME)
            except OSError as exc:
                note_unlistable(problems, folder, exc)
                continue
            subdirs: list[str] = []
            for entry in entries:
                name = entry.name
                try:
                    if name.endswith(".jsonl") and entry.is_file():
                        yield SourceFile(self.name, entry.path, "jsonl", entry.stat())
                    elif (
                        entry.is_dir(follow_symlinks=False)
                        and name not in _SKIP_DIRS
                        and not name.startswith(".")
                    ):
                        subdirs.append(entry.path)
                except OSError as exc:
                    note_unlistable(problems, entry.path, exc)
                    continue
            stack.extend(reversed(subdirs))

    def parse_records(
        self, source: SourceFile, records: Iterable[Record], saved: JsonObj
    ) -> LineParse:
        """Normalize one transcript's records from where the last import stopped.

        Yields full chunks (:func:`~viva_store.importing.harness.reader.full_chunks`) and a
        last one for the rest (one chunk at least whenever a record was read).
        """
        # Here, not at the top: discovering files must not load the parser.
        from viva_store.importing.harness.claude_code.parse import ClaudeParser

        state = ClaudeState.from_json(saved)
        parser = ClaudeParser(source, state)
        if (yield from full_chunks(parser, records)):
            yield parser.flush()
        return state.to_json()


READER = ClaudeCodeReader()
