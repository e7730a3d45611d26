"""Helpers the reader tests share: records of a file, a parse, a whole read, merged facts."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

from viva_store.importing.harness.model import (
    Message,
    ParsedChunk,
    Problem,
    Record,
    SourceFile,
    Usage,
)
from viva_store.importing.harness.reader import HarnessReader


def records_of(path: Path) -> list[Record]:
    """Decode a JSONL file line by line (undecodable and non-object lines skipped),
    with byte offsets, as the importer's line layer hands them over."""
    out: list[Record] = []
    offset = 0
    with path.open("rb") as handle:
        for number, line in enumerate(handle, 1):
            if line.strip():
                with contextlib.suppress(orjson.JSONDecodeError):
                    obj = orjson.loads(line)
                    if isinstance(obj, dict):
                        out.append(Record(number, offset, obj))
            offset += len(line)
    return out


def as_records(lines: list[Any]) -> list[Record]:
    """Records for in-memory lines (offsets are nominal: 100 bytes a line)."""
    return [Record(i + 1, i * 100, obj) for i, obj in enumerate(lines)]


def parse_lines(
    reader: HarnessReader,
    path: Path,
    records: Iterable[Record],
    state: dict[str, Any] | None = None,
    kind: str = "jsonl",
) -> list[ParsedChunk]:
    """The chunks ``reader`` makes of ``records``; ``state`` (the saved state, ``{}``
    at the start of a file) is replaced by the state the parse returns, in place, so
    consecutive calls continue one file as consecutive imports do."""
    saved: dict[str, Any] = {} if state is None else state
    source = SourceFile(reader.name, path, kind)
    parsing = reader.parse_records(source, iter(records), dict(saved))
    chunks: list[ParsedChunk] = []
    while True:
        try:
            chunks.append(next(parsing))
        except StopIteration as done:
            new_state = done.value
            break
    assert isinstance(new_state, dict)
    orjson.dumps(new_state)  # the importer stores it as JSON
    saved.clear()
    saved.update(new_state)
    return chunks


def read_whole(
    reader: HarnessReader, source: SourceFile
) -> tuple[list[ParsedChunk], list[Problem]]:
    """The chunks and the problems of a whole-file read."""
    chunks: list[ParsedChunk] = []
    problems: list[Problem] = []
    for item in reader.read_whole(source):
        if isinstance(item, Problem):
            problems.append(item)
        else:
            chunks.append(item)
    return chunks, problems


def messages(chunks: list[ParsedChunk]) -> list[Message]:
    return [m for c in chunks for m in c.messages]


def usage(chunks: list[ParsedChunk]) -> list[Usage]:
    return [u for c in chunks for u in c.usage]


def token_totals(items: list[Usage]) -> tuple[int, int, int, int, int]:
    """(input, output, cache read, cache write, reasoning) summed."""
    return (
        sum(u.input_tokens for u in items),
        sum(u.output_tokens for u in items),
        sum(u.cache_read_tokens for u in items),
        sum(u.cache_write_tokens for u in items),
        sum(u.reasoning_tokens for u in items),
    )


def fingerprint(m: Message) -> tuple[Any, ...]:
    """A message's stored fields (without ``raw``)."""
    return (m.key, m.role, m.text, m.at, m.tool, m.tool_input, m.tool_result, m.sidechain,
            m.synthetic, m.model, m.kind)  # fmt: skip


def merged(chunks: list[ParsedChunk]) -> dict[str, Any]:
    """Session metadata merged as the importer does: first value per field, the best
    title (a later one of the same rank wins), earliest start, latest end, all models."""
    ids = {c.meta.native_id for c in chunks}
    assert len(ids) == 1, ids

    def first(field: str) -> Any:
        return next((getattr(c.meta, field) for c in chunks if getattr(c.meta, field)), None)

    title, rank = None, 0
    for chunk in chunks:
        if chunk.meta.title and chunk.meta.title_rank >= rank:
            title, rank = chunk.meta.title, chunk.meta.title_rank
    starts = [c.meta.started_at for c in chunks if c.meta.started_at]
    ends = [c.meta.ended_at for c in chunks if c.meta.ended_at]
    return {
        "id": chunks[0].meta.native_id,
        "parent": first("parent_native_id"),
        "relation": first("relation"),
        "project": first("project"),
        "cwd": first("cwd"),
        "branch": first("git_branch"),
        "entrypoint": first("entrypoint"),
        "originator": first("originator"),
        "models": set().union(*(c.meta.models for c in chunks)),
        "title": title,
        "rank": rank,
        "start": min(starts) if starts else None,
        "end": max(ends) if ends else None,
    }
