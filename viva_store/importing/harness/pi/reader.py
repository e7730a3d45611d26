"""Reader for pi coding-agent sessions (``~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl``).

One file is one session: a ``session`` header line, then entries. All three
on-disk versions are read: v1 (linear, no entry ids, header carrying
``provider``/``modelId``/``branchedFrom``), v2 (``id``/``parentId`` tree) and
v3 (``hookMessage`` renamed ``custom``).

Identity:

* session id = header ``id``; without one, the uuid of ``<ts>_<uuid>.jsonl``,
  else the file stem;
* message key = entry ``id``; v1 entries have none, so
  ``f"{file name}:{byte offset}"``. Parts of one entry get suffixes
  (``:thinking``, ``:call:<tool call id>``);
* usage key = ``f"pi:{session id}:{entry timestamp}"`` (entry id / offset when
  the entry has no timestamp). pi rewrites a v1 file to v3 when it opens it,
  which gives every entry a new id and moves every offset; the envelope
  timestamp survives that rewrite, so tokens are not counted twice. (Message
  keys do change: a migrated v1 file re-imports as new messages.)

Forks: a header with ``parentSession`` (``/fork``, relation ``fork``) or
``branchedFrom`` (v1 branch, relation ``branch``) links the parent (id taken
from the parent file name). Such files start with a copy of the parent's
history, written with the original timestamps. Rule: in a forked file, an
entry whose envelope timestamp is earlier than the header timestamp is a copy
and is not emitted (neither message nor usage nor model); the parent file
holds the original. Entries without a timestamp are kept.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from viva_store.importing.harness.common import loads_or_none, note_unlistable
from viva_store.importing.harness.model import JsonObj, Problem, Record, SourceFile
from viva_store.importing.harness.pi.parse import PiParser
from viva_store.importing.harness.pi.state import PiState
from viva_store.importing.harness.reader import LineParse, LinesOnly, full_chunks

_HEADER_PROBE_BYTES = 65536


class PiReader(LinesOnly):
    """pi coding-agent sessions: one JSON-lines file per session (v1 to v3)."""

    name = "pi"
    env_roots: tuple[str, ...] = ("PI_CODING_AGENT_SESSION_DIR", "PI_CODING_AGENT_DIR")

    def default_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """Where pi keeps sessions: the env overrides first, then ``~/.pi/agent/sessions``."""
        roots: list[Path] = []
        if env.get("PI_CODING_AGENT_SESSION_DIR"):
            roots.append(Path(env["PI_CODING_AGENT_SESSION_DIR"]).expanduser())
        if env.get("PI_CODING_AGENT_DIR"):
            roots.append(Path(env["PI_CODING_AGENT_DIR"]).expanduser() / "sessions")
        roots.append(home / ".pi" / "agent" / "sessions")
        return list(dict.fromkeys(roots))  # each once, in order

    def discover(self, root: Path, problems: list[Problem] | None = None) -> Iterator[SourceFile]:
        """Primary session files under ``root``, sorted by path.

        Only top-level ``*.jsonl`` files of ``--<cwd>--`` directories whose first
        line is a ``session`` header: pi-subagents' ``forks/``, ``subagent-artifacts/``
        and run directories nested deeper are not sessions of their own. A file there
        whose first line is JSON of another kind is another tool's and passed over;
        one that is empty, unreadable or not JSON at all is a problem.
        """
        try:
            project_dirs = sorted(
                p for p in root.iterdir() if p.is_dir() and p.name.startswith("--")
            )
        except OSError as exc:
            note_unlistable(problems, root, exc)
            return
        for project_dir in project_dirs:
            try:
                files = sorted(
                    p for p in project_dir.iterdir() if p.suffix == ".jsonl" and p.is_file()
                )
            except OSError as exc:
                note_unlistable(problems, project_dir, exc)
                continue
            for path in files:
                header = _session_header(path)
                if header is True:
                    yield SourceFile(harness=self.name, path=path, kind="jsonl")
                elif isinstance(header, str) and problems is not None:
                    problems.append(Problem(str(path), None, header))

    def parse_records(
        self, source: SourceFile, records: Iterable[Record], saved: JsonObj
    ) -> LineParse:
        """Normalize pi entries from where the last import stopped.

        Yields full chunks (:func:`~viva_store.importing.harness.reader.full_chunks`) and
        the rest (at least one chunk once the header has been seen, so a session with no
        entries still exists).
        """
        state = PiState.from_json(saved)
        parser = PiParser(source, state)
        yield from full_chunks(parser, records)
        if parser.messages or parser.usage or parser.meta_dirty:
            yield parser.flush()
        return state.to_json()


def _session_header(path: Path) -> bool | str:
    """True when the first line is a pi ``session`` header, False when it is JSON of
    another kind, else why the file cannot be a session."""
    try:
        with path.open("rb") as handle:
            head = handle.readline(_HEADER_PROBE_BYTES)
    except OSError as exc:
        return f"cannot read: {exc.strerror or exc}"
    if not head:
        return "empty file (0 bytes): no pi session header"
    text = head.removeprefix(b"\xef\xbb\xbf").strip()
    if not text:
        return False
    obj = loads_or_none(text)
    if obj is None and text != b"null":
        return "not a pi session file: its first line is not JSON"
    return isinstance(obj, dict) and obj.get("type") == "session"


READER = PiReader()
