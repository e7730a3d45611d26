"""Session recovery: every fixture, incremental re-import, torn lines, nothing lost."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

from tests.fixture_layout import lay_out
from tests.harness.cases import CASES
from viva_store.db.schema import IMPORT_RUN
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.errors import AccessDenied
from viva_store.importing.harness import registry
from viva_store.importing.pipeline import ImportSummary, run_import
from viva_store.sessions.service import SessionFilter, list_sessions, session_messages
from viva_store.store import Context


def run(ctx: Context, **overrides: Path | str) -> ImportSummary:
    events = run_import(ctx, list(overrides), {h: str(p) for h, p in overrides.items()})
    while True:
        try:
            next(events)
        except StopIteration as stop:
            return stop.value  # type: ignore[no-any-return]


def spec(native_id: str = "0f8e9d7c-1111-4222-8333-444455556666", turns: int = 3) -> SessionSpec:
    return SessionSpec(
        native_id=native_id,
        cwd="/home/haisu/src/viva",
        start=datetime(2026, 11, 20, 9, 0, tzinfo=UTC),
        turns=tuple(Turn(f"question {n} about the importer", f"answer {n}") for n in range(turns)),
        model="claude-sonnet-4",
        title="Importer questions",
    )


def _reader_native_ids(harness: str, roots: str) -> set[str]:
    """What the reader itself finds (the importer must store exactly these)."""
    from viva_store.importing.harness.lines import iter_lines, open_source, to_records
    from viva_store.importing.harness.model import ParsedChunk
    from viva_store.importing.harness.reader import LINE_KINDS

    reader = registry.reader(harness)
    found: set[str] = set()
    for root in roots.split(os.pathsep):
        for source in reader.discover(Path(root)):
            if source.kind in LINE_KINDS:
                with open_source(source.path) as fh:
                    records = to_records(iter_lines(fh), str(source.path), [])
                    chunks = list(reader.parse_records(source, records, {}))
            else:
                chunks = [c for c in reader.read_whole(source) if isinstance(c, ParsedChunk)]
            found |= {c.meta.native_id for c in chunks}
    return found


# Sessions per harness in the project's fixtures, laid out as each harness writes them:
# one per session file (a Claude sub-agent file is a session of its own, linked to its
# parent); OpenCode's database and tree hold the same three sessions; Hermes's state.db
# holds three, and two legacy logs are sessions the database does not hold.
FIXTURE_SESSIONS = {"claude-code": 5, "codex": 5, "pi": 3, "gemini": 4, "opencode": 3, "hermes": 5}

# Token totals stored per session: streamed, cumulative, replayed and re-read usage
# counted once. (input, output, cache read, cache write, reasoning)
STORED_TOKENS = {
    **{(c.harness, s.native_id): s.tokens for c in CASES.values() for s in c.sessions},
    # The state.db's sessions: the database wins over the legacy log of its root.
    ("hermes", "20260310_090000_abc123"): (2100, 380, 7000, 900, 60),
    ("hermes", "20260310_090130_def456"): (150, 20, 0, 0, 0),
    ("hermes", "b7c8d9e0"): (0, 0, 0, 0, 0),
}


def _tokens(ctx: Context, harness: str) -> dict[str, tuple[int, ...]]:
    names = ("input", "output", "cache_read", "cache_write", "reasoning")
    return {
        s.native_id: tuple((s.tokens or {})[n] for n in names)
        for s in list_sessions(ctx, SessionFilter(harness=harness))
    }


@pytest.mark.parametrize("harness", sorted(FIXTURE_SESSIONS))
def test_every_fixture_imports_and_reimport_adds_nothing(
    ctx: Context, tmp_path: Path, harness: str
) -> None:
    roots = str(lay_out(harness, tmp_path))
    first = run(ctx, **{harness: roots})
    expected = _reader_native_ids(harness, roots)
    stored = {s.native_id for s in list_sessions(ctx, SessionFilter(harness=harness))}
    assert stored == expected
    assert len(stored) == FIXTURE_SESSIONS[harness], sorted(stored)
    assert first.sessions_new == len(expected) and first.messages_added > 0
    assert all(p.path and p.reason for p in first.problems)
    assert _tokens(ctx, harness) == {
        sid: tokens for (h, sid), tokens in STORED_TOKENS.items() if h == harness
    }
    second = run(ctx, **{harness: roots})
    assert (second.sessions_new, second.messages_added, second.sessions_updated) == (0, 0, 0)
    assert second.files_unchanged == second.files_scanned > 0


@pytest.mark.parametrize("harness", sorted(FIXTURE_SESSIONS))
def test_touching_every_file_reads_them_again_and_adds_nothing(
    ctx: Context, tmp_path: Path, harness: str
) -> None:
    roots = lay_out(harness, tmp_path)
    first = run(ctx, **{harness: roots})
    before = _tokens(ctx, harness)
    for path in (tmp_path / harness).rglob("*"):
        if path.is_file():
            os.utime(path, (1, 1))  # same bytes, new mtime: looked at again, nothing added
    again = run(ctx, **{harness: roots})
    assert again.files_unchanged == 0 and again.files_scanned == first.files_scanned
    assert (again.messages_added, again.sessions_new) == (0, 0)
    assert _tokens(ctx, harness) == before


def test_a_torn_last_line_waits_and_then_adds_exactly_one_message(
    ctx: Context, tmp_path: Path
) -> None:
    root = tmp_path / "claude"
    path = claude_code(root, spec())
    data = path.read_bytes()
    lines = data.splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:-1]) + lines[-1][:40])  # the last line is mid-write
    first = run(ctx, **{"claude-code": root})
    assert first.bytes_withheld == 40
    sid = list_sessions(ctx, SessionFilter())[0].id
    before = len(session_messages(ctx, sid))
    path.write_bytes(data)
    second = run(ctx, **{"claude-code": root})
    assert second.messages_added == 1 and second.sessions_new == 0
    assert len(session_messages(ctx, sid)) == before + 1


def test_appended_lines_resume_at_the_offset(ctx: Context, tmp_path: Path) -> None:
    root = tmp_path / "claude"
    path = claude_code(root, spec(turns=2))
    run(ctx, **{"claude-code": root})
    longer = claude_code(tmp_path / "other", spec(turns=4)).read_bytes()
    assert longer.startswith(path.read_bytes().splitlines(keepends=True)[0])
    path.write_bytes(longer)  # same file, grown
    second = run(ctx, **{"claude-code": root})
    assert second.messages_added == 4  # two more turns of user + assistant
    seqs = [m.seq for m in session_messages(ctx, list_sessions(ctx, SessionFilter())[0].id)]
    assert seqs == list(range(len(seqs)))


def test_a_replaced_file_is_reread_without_duplicates(ctx: Context, tmp_path: Path) -> None:
    root = tmp_path / "claude"
    path = claude_code(root, spec(turns=3))
    run(ctx, **{"claude-code": root})
    lines = path.read_bytes().splitlines(keepends=True)
    path.unlink()
    path.write_bytes(b"".join(lines[:3]))  # shrunk: a different file now
    again = run(ctx, **{"claude-code": root})
    assert again.messages_added == 0 and again.sessions_new == 0


BAD_LINES: dict[str, bytes] = {
    "bom": b"\xef\xbb\xbf" + orjson.dumps({"type": "summary", "summary": "with a BOM"}) + b"\n",
    "invalid-utf8": b'{"type":"summary","summary":"bad \xff\xfe bytes"}\n',
    "lone-surrogate": b'{"type":"summary","summary":"\\ud800 alone"}\n',
    "nul": b'{"type":"summary","summary":"nul"}\x00\x00\n',
    "nan": b'{"type":"summary","summary":"x","n":NaN}\n',
    "deep": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "glued": b'{"type":"summary","summary":"a"}{"type":"summary","summary":"b"}\n',
    "not-json": b"this is not json at all\n",
    "truncated": b'{"type":"user","message":{"role":"user","content":"cut',
}


@pytest.mark.parametrize("kind", sorted(BAD_LINES))
def test_bad_input_is_reported_and_the_run_goes_on(ctx: Context, tmp_path: Path, kind: str) -> None:
    root = tmp_path / "claude"
    good = claude_code(root, spec())
    bad = root / "bad" / "11111111-2222-4333-8444-555555555555.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(
        claude_code(tmp_path / "x", spec("11111111-2222-4333-8444-555555555555")).read_bytes()
        + BAD_LINES[kind]
    )
    summary = run(ctx, **{"claude-code": root})
    assert summary.sessions_new == 2, "both files' sessions are recovered"
    total = good.stat().st_size + bad.stat().st_size
    if kind == "truncated":
        assert summary.bytes_withheld == len(BAD_LINES[kind])
    else:
        assert [p.line for p in summary.problems if p.path == str(bad)], kind
    assert summary.bytes_read + summary.bytes_withheld == total


def test_a_huge_line_a_zero_byte_and_a_non_json_file(ctx: Context, tmp_path: Path) -> None:
    root = tmp_path / "claude"
    claude_code(root, spec())
    (root / "p").mkdir()
    (root / "p" / "empty.jsonl").write_bytes(b"")
    (root / "p" / "notes.jsonl").write_bytes(b"hello\nworld\n")
    big = {
        "type": "user",
        "sessionId": "big",
        "uuid": "big-1",
        "cwd": "/x",
        "timestamp": "2026-11-20T10:00:00Z",
        "message": {"role": "user", "content": "y" * (24 << 20)},
    }
    (root / "p" / "big.jsonl").write_bytes(orjson.dumps(big) + b"\n")
    summary = run(ctx, **{"claude-code": root})
    reasons = {(Path(p.path).name, p.line): p.reason for p in summary.problems}
    assert reasons[("notes.jsonl", 1)] and reasons[("notes.jsonl", 2)]
    assert summary.lines_quarantined == 2
    assert "big" in {s.native_id for s in list_sessions(ctx, SessionFilter())}


def test_an_unreadable_file_is_a_problem_not_a_crash(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from viva_store.importing.harness.lines import open_source as real_open

    root = tmp_path / "claude"
    claude_code(root, spec())
    locked = claude_code(root, spec("22222222-2222-4333-8444-555555555555"))

    def refuse(path: Path):  # type: ignore[no-untyped-def]
        if Path(path) == locked:
            raise PermissionError(13, "Permission denied", str(path))
        return real_open(path)

    monkeypatch.setattr("viva_store.importing.read.open_source", refuse)
    summary = run(ctx, **{"claude-code": root})
    assert summary.sessions_new == 1
    assert any(p.path == str(locked) and "Permission denied" in p.reason for p in summary.problems)


def test_a_named_folder_without_sessions_says_where_the_harness_keeps_them(
    ctx: Context, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("not a session")
    summary = run(ctx, **{"pi": tmp_path})
    assert [(p.path, p.line) for p in summary.problems] == [(str(tmp_path), None)]
    assert "~/.pi/agent/sessions" in summary.problems[0].reason
    assert summary.files_scanned == 0


def test_members_cannot_import(ctx: Context) -> None:
    from viva_store.members.grants import issue_grant, resolve_actor

    member = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    with pytest.raises(AccessDenied):
        next(run_import(member))


def test_a_run_is_recorded(ctx: Context, tmp_path: Path) -> None:
    from sqlalchemy import select

    claude_code(tmp_path / "claude", spec())
    summary = run(ctx, **{"claude-code": tmp_path / "claude"})
    table = IMPORT_RUN
    row = ctx.store.read(lambda c: c.execute(select(table)).one())
    assert row.id == summary.run_id and row.counts["sessions_new"] == 1


def test_unchanged_files_are_reported_as_one_event(ctx: Context, tmp_path: Path) -> None:
    from viva_store.importing.pipeline import FileImported, FilesUnchanged, ImportStarted

    root = tmp_path / "claude"
    paths = [claude_code(root, spec(f"{n:08d}-1111-4222-8333-444455556666")) for n in range(3)]
    overrides = {"claude-code": str(root)}
    first = list(run_import(ctx, ["claude-code"], overrides))
    assert [type(e) for e in first] == [ImportStarted, FileImported, FileImported, FileImported]
    paths[0].write_bytes(paths[0].read_bytes() + b"\n")
    again = list(run_import(ctx, ["claude-code"], overrides))
    total = sum(p.stat().st_size for p in paths)
    assert again[0] == ImportStarted(3, total)
    assert again[1] == FilesUnchanged(2, total - paths[0].stat().st_size)
    assert [type(e) for e in again[2:]] == [FileImported]
    assert isinstance(again[2], FileImported) and again[2].path == str(paths[0])


def test_the_skip_decision_reads_fingerprints_only(ctx: Context, tmp_path: Path) -> None:
    """What every run reads first: each known file's fingerprint. On SQLite from a
    covering index (the rows also hold the reader state); the same on both engines."""
    from viva_store.importing.sources import _KNOWN, known_files

    path = claude_code(tmp_path / "claude", spec())
    run(ctx, **{"claude-code": tmp_path / "claude"})
    st = path.stat()
    known = known_files(ctx, ["claude-code", "codex"])
    assert list(known) == [("claude-code", str(path))]
    assert known["claude-code", str(path)][1:] == (st.st_size, st.st_mtime_ns, st.st_ino, "")
    assert known_files(ctx, ["codex"]) == {}
    if ctx.store.engine.dialect.name == "sqlite":
        plan = ctx.store.read(lambda c: c.exec_driver_sql(f"EXPLAIN QUERY PLAN {_KNOWN}").all())
        assert "COVERING INDEX ix_source_file_scan" in " ".join(str(row[-1]) for row in plan)
    else:
        assert ctx.store.engine.dialect.name == "postgresql"


def test_reading_in_worker_processes_stores_exactly_what_one_process_does(
    ctx: Context, tmp_path: Path
) -> None:
    from viva_store.access import OWNER
    from viva_store.config import Config
    from viva_store.demo.harness_files import codex
    from viva_store.store import Store

    root = tmp_path / "src"
    for n in range(12):
        s = spec(f"{n:08d}-5555-4666-8777-{n:012d}", turns=2 + n % 3)
        claude_code(root / "claude", s)
        codex(root / "codex", s)
    bad = root / "claude" / "x" / "broken.jsonl"
    bad.parent.mkdir(parents=True)
    bad.write_bytes(b"{broken\n" + orjson.dumps({"type": "summary", "summary": "ok"}) + b"\n")
    overrides = {"claude-code": str(root / "claude"), "codex": str(root / "codex")}

    def drain(c: Context, workers: int) -> ImportSummary:
        events = run_import(c, list(overrides), overrides, workers=workers, pool_min_bytes=0)
        while True:
            try:
                next(events)
            except StopIteration as stop:
                return stop.value  # type: ignore[no-any-return]

    pooled = drain(ctx, 2)
    other = Store.open(
        Config(home=tmp_path / "serial", db_url=f"sqlite:///{tmp_path / 'serial.db'}")
    )
    try:
        serial = drain(Context(other, OWNER), 1)
        for name in (
            "sessions_new",
            "messages_added",
            "lines_read",
            "lines_quarantined",
            "redactions",
        ):
            assert getattr(pooled, name) == getattr(serial, name), name
        assert [(p.path, p.line) for p in pooled.problems] == [
            (p.path, p.line) for p in serial.problems
        ]

        def shape(c: Context) -> list[tuple[str, int, dict[str, int] | None, str | None]]:
            return [
                (s.id, s.message_count, s.tokens, s.title)
                for s in list_sessions(c, SessionFilter())
            ]

        assert shape(ctx) == shape(Context(other, OWNER))
    finally:
        other.close()
    again = drain(ctx, 2)
    assert (again.sessions_new, again.messages_added) == (0, 0)


def test_a_quarantined_line_is_stored_redacted_with_where_and_why(
    ctx: Context, tmp_path: Path
) -> None:
    from sqlalchemy import select

    from tests.redact.support import secret_of
    from viva_store.db.schema import QUARANTINE, REDACTION
    from viva_store.redact import RULES

    rule = RULES[0]
    secret = secret_of(rule)  # built at run time from the rule's own example
    root = tmp_path / "claude"
    path = claude_code(root, spec())
    good = path.read_bytes()
    bad = f"not json at all, but a key: {secret}\n".encode()
    path.write_bytes(good + bad)
    summary = run(ctx, **{"claude-code": root})
    assert summary.lines_quarantined == 1
    (row,) = ctx.store.read(lambda c: c.execute(select(QUARANTINE)).all())
    assert (row.path, row.line, row.byte_offset, row.length) == (
        str(path),
        good.count(b"\n") + 1,
        len(good),
        len(bad),
    )
    assert (row.harness, row.run_id, row.reason) == ("claude-code", summary.run_id, "not JSON")
    assert secret not in row.raw and f"[REDACTED:{rule.id}]" in row.raw
    ledger = ctx.store.read(
        lambda c: c.execute(select(REDACTION).where(REDACTION.c.quarantine_id == row.id)).all()
    )
    assert rule.id in {r.rule for r in ledger} and {r.field for r in ledger} == {"raw"}
    assert summary.redactions >= len(ledger)
