"""The checks every harness reader passes, over the project's fixtures.

Identity, messages and usage totals per session; well-formed messages; a
resumed parse equal to one pass; nothing new when resumed at the end; and
arbitrary records (or documents) that never raise. What is specific to one
harness is tested in its own module.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fixture_layout import root
from tests.harness.cases import CASES, Case, Session
from tests.harness.support import (
    fingerprint,
    merged,
    messages,
    parse_lines,
    read_whole,
    records_of,
    token_totals,
    usage,
)
from viva_store.importing.harness import registry
from viva_store.importing.harness.model import ParsedChunk, Record, SourceFile
from viva_store.importing.harness.reader import LINE_KINDS, HarnessReader

ROLES = {"user", "assistant", "system", "tool", "summary", "event"}
SESSIONS = [(case, s) for case in CASES.values() for s in case.sessions]


def _id(value: Any) -> str:
    if isinstance(value, Case):
        return value.harness
    if isinstance(value, Session):
        return value.file.rsplit("/", 1)[-1][:40]
    return str(value)


def reader_of(case: Case) -> HarnessReader:
    return registry.reader(case.harness)


def sources(case: Case) -> dict[str, SourceFile]:
    base = root(case.harness)
    return {str(s.path.relative_to(base)): s for s in reader_of(case).discover(base)}


def read(case: Case, source: SourceFile, state: dict[str, Any] | None = None) -> list[ParsedChunk]:
    reader = reader_of(case)
    if source.kind in LINE_KINDS:
        return parse_lines(reader, source.path, records_of(source.path), state, source.kind)
    chunks, _ = read_whole(reader, source)
    return chunks


def test_every_harness_has_a_case() -> None:
    assert sorted(CASES) == sorted(registry.names())


def test_each_harness_module_reads_that_harness() -> None:
    assert [registry.reader(name).name for name in registry.names()] == registry.names()


@pytest.mark.parametrize("case", CASES.values(), ids=_id)
def test_discovery_finds_exactly_the_session_files(case: Case) -> None:
    found = sources(case)
    assert list(found) == case.files
    assert all(s.harness == case.harness for s in found.values())
    assert list(reader_of(case).discover(root(case.harness) / "missing")) == []


@pytest.mark.parametrize(("case", "expected"), SESSIONS, ids=_id)
def test_identity_messages_and_usage(case: Case, expected: Session) -> None:
    chunks = [
        c
        for c in read(case, sources(case)[expected.file])
        if c.meta.native_id == expected.native_id
    ]
    assert chunks, expected.native_id
    meta = merged(chunks)
    assert (meta["parent"], meta["relation"]) == (expected.parent, expected.relation)
    assert meta["cwd"] == expected.cwd
    assert meta["title"] == expected.title
    assert meta["models"] == expected.models
    assert Counter(m.role for m in messages(chunks)) == Counter(expected.roles)
    assert token_totals(usage(chunks)) == expected.tokens


@pytest.mark.parametrize("case", CASES.values(), ids=_id)
def test_messages_are_well_formed(case: Case) -> None:
    for source in sources(case).values():
        chunks = read(case, source)
        by_session: dict[str, list[str]] = {}
        for chunk in chunks:
            assert "<synthetic>" not in chunk.meta.models
            for m in chunk.messages:
                by_session.setdefault(chunk.meta.native_id, []).append(m.key)
                assert m.role in ROLES
                assert isinstance(m.text, str) and m.key
                assert m.tool_input is None or (
                    "\n" not in m.tool_input and len(m.tool_input) <= 200
                )
                assert m.at is None or m.at.utcoffset() is not None  # aware: stored as UTC
        for keys in by_session.values():
            assert len(keys) == len(set(keys)), "a message key is unique in its session"
        usage_keys = [u.usage_key for c in chunks for u in c.usage]
        assert len(usage_keys) == len(set(usage_keys))


LINE_SESSIONS = [(case, s) for case, s in SESSIONS if s.file.endswith((".jsonl", ".jsonl.zst"))]


def split_points(records: list[Record]) -> list[int]:
    # A Claude main file whose stem is no UUID takes its id from the first `sessionId`:
    # a split must come after that line (real files are named by their UUID).
    first = next((i for i, r in enumerate(records) if r.obj.get("sessionId")), 0)
    return sorted(
        p for p in {1, 2, 3, len(records) // 2, len(records) - 1} if first < p < len(records)
    )


def stored(chunks: list[ParsedChunk]) -> tuple[dict[str, Any], dict[str, tuple[int, ...]]]:
    """What the importer keeps: the first message stored under each key, and usage summed
    per response (a ``#n`` growth entry adds to its key)."""
    kept: dict[str, Any] = {}
    spent: dict[str, tuple[int, ...]] = {}
    for chunk in chunks:
        for m in chunk.messages:
            kept.setdefault(m.key, fingerprint(m))
        for u in chunk.usage:
            base = u.usage_key.split("#")[0]
            old = spent.get(base, (0, 0, 0, 0, 0))
            new = token_totals([u])
            spent[base] = tuple(a + b for a, b in zip(old, new, strict=True))
    return kept, spent


@pytest.mark.parametrize(("case", "expected"), LINE_SESSIONS, ids=_id)
def test_a_resumed_parse_stores_what_one_pass_does(case: Case, expected: Session) -> None:
    source = sources(case)[expected.file]
    reader = reader_of(case)
    records = records_of(source.path)
    whole = parse_lines(reader, source.path, records)
    whole_kept, whole_spent = stored(whole)
    points = split_points(records)
    assert points
    for point in points:
        state: dict[str, Any] = {}
        first = parse_lines(reader, source.path, records[:point], state)
        both = first + parse_lines(reader, source.path, records[point:], state)
        kept, spent = stored(both)
        assert spent == whole_spent, point
        assert merged(both)["id"] == expected.native_id
        if case.resume_exact:
            assert kept == whole_kept, point
            assert merged(both) == merged(whole), point
        else:
            assert kept.keys() == whole_kept.keys(), point


@pytest.mark.parametrize(("case", "expected"), LINE_SESSIONS, ids=_id)
def test_resumed_at_the_end_nothing_is_new(case: Case, expected: Session) -> None:
    source = sources(case)[expected.file]
    reader = reader_of(case)
    state: dict[str, Any] = {}
    parse_lines(reader, source.path, records_of(source.path), state)
    saved = dict(state)
    assert parse_lines(reader, source.path, [], state) == []
    assert state == saved


def json_values(vocabulary: tuple[str, ...]) -> st.SearchStrategy[Any]:
    scalars = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8)
    return st.recursive(
        scalars | st.sampled_from(vocabulary),
        lambda inner: (
            st.lists(inner, max_size=4)
            | st.dictionaries(st.sampled_from(vocabulary) | st.text(max_size=4), inner, max_size=5)
        ),
        max_leaves=25,
    )


def records_strategy(case: Case) -> st.SearchStrategy[list[dict[str, Any]]]:
    values = json_values(case.keys + case.kinds)
    objects = st.dictionaries(st.sampled_from(case.keys), values, max_size=8)
    typed = st.builds(
        lambda kind, rest: {"type": kind, **rest}, st.sampled_from(case.kinds), objects
    )
    return st.lists(objects | typed, max_size=12)


LINE_CASES = [c for c in CASES.values() if any(f.endswith(".jsonl") for f in c.files)]
WHOLE_CASES = [c for c in CASES.values() if any(f.endswith(".json") for f in c.files)]


@pytest.mark.parametrize("case", LINE_CASES, ids=_id)
def test_arbitrary_records_never_raise(case: Case) -> None:
    reader = reader_of(case)
    # Where a file lives decides things too (a sub-agent's folder, a project's name).
    paths = [root(case.harness) / f for f in case.files if f.endswith(".jsonl")]

    @settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow], deadline=None)
    @given(records_strategy(case), st.integers(0, 12), st.sampled_from(paths))
    def check(objs: list[dict[str, Any]], cut: int, path: Path) -> None:
        records = [Record(i + 1, i * 10, obj) for i, obj in enumerate(objs)]
        state: dict[str, Any] = {}
        chunks = parse_lines(reader, path, records[:cut], state)
        chunks += parse_lines(reader, path, records[cut:], state)
        for m in messages(chunks):
            assert isinstance(m.text, str) and isinstance(m.key, str)

    check()


@pytest.mark.parametrize("case", WHOLE_CASES, ids=_id)
def test_arbitrary_documents_never_raise(
    case: Case, tmp_path_factory: pytest.TempPathFactory
) -> None:
    reader = reader_of(case)
    relative = next(f for f in case.files if f.endswith(".json"))
    kind = sources(case)[relative].kind
    values = json_values(case.keys + case.kinds)
    documents = st.dictionaries(st.sampled_from(case.keys), values, max_size=8) | values

    @settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow], deadline=None)
    @given(documents)
    def check(document: Any) -> None:
        path = tmp_path_factory.mktemp(case.harness) / Path(relative).name
        try:
            path.write_bytes(orjson.dumps(document))
        except TypeError:  # not JSON (e.g. an integer beyond 64 bits)
            return
        chunks, problems = read_whole(reader, SourceFile(case.harness, path, kind))
        assert all(p.path == str(path) and p.reason for p in problems)
        for m in messages(chunks):
            assert isinstance(m.text, str) and isinstance(m.key, str)

    check()
