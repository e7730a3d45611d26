"""Reader for Codex CLI rollouts (``$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]``).

One file is one session, whatever it contains. Two on-disk generations are
read: the early Rust shape (a bare ``{"id", "timestamp", ...}`` header, bare
ResponseItems, ``{"record_type": "state"}`` markers) and the envelope
``{"timestamp", "type", "payload"}``. The TypeScript-era single JSON
``rollout-*.json`` (``{"session": ..., "items": [...]}``) is not JSON lines
and is not discovered.

Identity: the session id is decided by the file's first record — the id of a
leading ``session_meta`` (or early header), else the UUID in the file name,
else the file stem. Later ``session_meta`` lines (a resume appends one; a
sub-agent rollout carries a copy of its parent's) never change it. Message
key = ``f"{file name without .zst}:{byte offset}"`` so a plain rollout and
its ``.zst`` copy give the same keys.

Lineage: ``forked_from_id`` → relation ``fork``; ``source.subagent.thread_spawn
.parent_thread_id`` (or ``parent_thread_id`` with ``thread_source: subagent``)
→ relation ``subagent``. Such child rollouts may replay the parent's history
(re-stamped to the fork time in recent versions, original timestamps in
older ones). Rule: in a child, the replay block opens right after the child's
own ``session_meta`` for a fork, or at the copied parent ``session_meta`` for
a sub-agent; it closes at the first ``task_started``/``turn_started`` whose
``started_at`` (not re-stamped) is at or after the child's creation second,
or — when the block held records stamped before the child's creation — at
the first record stamped at or after it. Replayed records yield no messages,
models or usage; their cumulative token counts only set the baseline the
child's own usage is measured from, and a cumulative value at or below that
baseline after the block is treated as replay too.

Tokens: ``token_count`` totals are cumulative; each increase becomes one
:class:`Usage` keyed ``f"{session}:cum:{total_tokens}"`` holding the delta
from the previous cumulative (kept in ``state``), so repeats add nothing and
summing all usage gives the last total. A total that drops (a restarted
counter) starts a new epoch (``:cum1:``...). ``input_tokens`` is stored
without the cached part (as Claude reports it); legacy ``{prompt,
completion}`` and flat shapes are read the same way; ``turn.completed``
usage counts per turn while no ``token_count`` has been seen.

Text exists twice (``event_msg`` mirror + ``response_item``): a mirror is
emitted only while the file has shown no ``response_item`` of its kind, and a
``response_item`` matching an emitted mirror is skipped — decisions that
depend only on earlier lines, so a resumed import agrees with a full one.
Reasoning keeps its summary text; ``encrypted_content`` is dropped
everywhere, also from records kept raw.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from viva_store.importing.harness.codex.parse import CodexParser
from viva_store.importing.harness.codex.state import CodexState
from viva_store.importing.harness.common import note_unlistable
from viva_store.importing.harness.model import JsonObj, Problem, Record, SourceFile
from viva_store.importing.harness.reader import LineParse, LinesOnly, full_chunks

_NOT_ROLLOUTS = frozenset({"history.jsonl", "session_index.jsonl"})


class CodexReader(LinesOnly):
    """Codex CLI rollouts: one JSON-lines file per session, maybe zstd-compressed."""

    name = "codex"
    env_roots: tuple[str, ...] = ("CODEX_HOME",)

    def default_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """``$CODEX_HOME`` when set, else ``~/.codex``."""
        value = (env.get("CODEX_HOME") or "").strip()
        if not value:
            return [home / ".codex"]
        if value == "~" or value.startswith("~/"):
            return [home / value[2:]]
        return [Path(value)]

    def discover(self, root: Path, problems: list[Problem] | None = None) -> Iterator[SourceFile]:
        """Rollouts under ``root``, sorted by path.

        ``root`` is a Codex home (``sessions/`` at any depth and ``archived_sessions/``
        are walked), a ``sessions`` folder, or any folder of ``*.jsonl`` files.
        ``*.jsonl.zst`` files are included unless the plain ``*.jsonl`` sits beside
        them (Codex keeps both briefly while it re-materialises a rollout).
        """
        try:
            is_home = (root / "sessions").is_dir() or (root / "archived_sessions").is_dir()
        except OSError:
            return
        folders = [root / "sessions", root / "archived_sessions"] if is_home else [root]
        found: list[Path] = []
        for folder in folders:
            found.extend(_walk(folder, problems))
        plain = {str(p) for p in found if p.name.endswith(".jsonl")}
        for path in found:
            if path.name.endswith(".zst"):
                if str(path)[: -len(".zst")] in plain:
                    continue
                yield SourceFile(harness=self.name, path=path, kind="jsonl.zst")
            elif path.name not in _NOT_ROLLOUTS:
                yield SourceFile(harness=self.name, path=path, kind="jsonl")

    def parse_records(
        self, source: SourceFile, records: Iterable[Record], saved: JsonObj
    ) -> LineParse:
        """Normalize one rollout's records from where the last import stopped.

        Yields full chunks (:func:`~viva_store.importing.harness.reader.full_chunks`) and a
        last one for the rest (one chunk at least whenever a record was read).
        """
        state = CodexState.from_json(saved)
        parser = CodexParser(source, state)
        if (yield from full_chunks(parser, records)):
            yield parser.flush()
        return state.to_json()


def _walk(folder: Path, problems: list[Problem] | None) -> Iterator[Path]:
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as exc:
        note_unlistable(problems, folder, exc)
        return
    subdirs: list[Path] = []
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                if not entry.name.startswith("."):
                    subdirs.append(Path(entry.path))
            elif entry.name.endswith((".jsonl", ".jsonl.zst")) and entry.is_file():
                yield Path(entry.path)
        except OSError as exc:
            note_unlistable(problems, entry.path, exc)
            continue
    for sub in subdirs:
        yield from _walk(sub, problems)


READER = CodexReader()
