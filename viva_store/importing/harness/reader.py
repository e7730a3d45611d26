"""What Viva asks of a harness reader: where its files are, which to read, how.

Every ``importing/harness/<name>/reader.py`` provides one object satisfying
:class:`HarnessReader`, and :mod:`viva_store.importing.harness.registry` maps
the harness's name to it. The importer picks the method by the source's kind,
which the reader's own :meth:`~HarnessReader.discover` decided:

* JSON-lines sources (:data:`LINE_KINDS`) are read from a byte offset: the
  importer decodes the lines and hands the records to ``parse_records``, with
  the reader's state saved at the end of the previous import of that file;
* every other source (a JSON file, a SQLite database, a tree of files) is read
  whole by ``read_whole``.

A reader is pure: it never touches the store, and odd input becomes events or
:class:`~viva_store.importing.harness.model.Problem` values, never exceptions.
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Protocol

from viva_store.importing.harness.model import (
    JsonObj,
    Message,
    ParsedChunk,
    Problem,
    Record,
    SourceFile,
)

LINE_KINDS = frozenset({"jsonl", "jsonl.zst"})
"""Source kinds read line by line, resumable from a byte offset."""

LineParse = Generator[ParsedChunk, None, JsonObj]
"""Chunks of a JSON-lines source; the generator returns the reader's state to save."""

CHUNK_MESSAGES = 500
"""Messages per chunk of a JSON-lines source: what one chunk holds in memory at most."""


class RecordParser(Protocol):
    """A JSON-lines reader's parser: fed records one by one, flushed into chunks."""

    messages: list[Message]

    def feed(self, record: Record) -> None: ...

    def flush(self) -> ParsedChunk: ...


def full_chunks(
    parser: RecordParser, records: Iterable[Record]
) -> Generator[ParsedChunk, None, bool]:
    """Feed ``records`` to ``parser``, yielding a chunk whenever :data:`CHUNK_MESSAGES`
    messages wait; returns whether any record was read (the caller flushes the rest)."""
    fed = False
    for record in records:
        fed = True
        parser.feed(record)
        if len(parser.messages) >= CHUNK_MESSAGES:
            yield parser.flush()
    return fed


class HarnessReader(Protocol):
    """One harness's files, read into the normalized session shape."""

    name: str
    """The harness's name in Viva (``claude-code``, ``codex``, ...)."""
    env_roots: tuple[str, ...]
    """The harness's own environment variables that move its files."""

    def default_roots(self, env: Mapping[str, str], home: Path) -> list[Path]:
        """Where the harness keeps its files when nothing else is configured."""
        ...

    def discover(self, root: Path, problems: list[Problem] | None = None) -> Iterator[SourceFile]:
        """The sources under ``root`` this reader can read, in a stable order.

        What the walk could not look at (a folder without permission, a file that
        cannot be a session of this harness) is appended to ``problems`` when given.
        """
        ...

    def parse_records(
        self, source: SourceFile, records: Iterable[Record], saved: JsonObj
    ) -> LineParse:
        """Normalize the records of a JSON-lines source read from where the last
        import stopped; ``saved`` is the state that import returned (``{}`` at the
        start of a file). Returns the state to save for the next import."""
        ...

    def read_whole(self, source: SourceFile) -> Iterator[ParsedChunk | Problem]:
        """Read a source that is not JSON lines: its sessions, and what could not be used."""
        ...


class UnreadableKind(ValueError):
    """A reader was asked to read a kind of source its ``discover`` never yields."""

    def __init__(self, reader: str, source: SourceFile) -> None:
        super().__init__(f"the {reader} reader has no {source.kind} sources: {source.location}")


class LinesOnly:
    """For a reader whose sources are all JSON lines: it has nothing to read whole."""

    name: str

    def read_whole(self, source: SourceFile) -> Iterator[ParsedChunk | Problem]:
        raise UnreadableKind(self.name, source)


class WholeOnly:
    """For a reader whose sources are all read whole: it has no JSON lines to parse."""

    name: str

    def parse_records(
        self, source: SourceFile, records: Iterable[Record], saved: JsonObj
    ) -> LineParse:
        raise UnreadableKind(self.name, source)
