"""Redaction, measured: recall on planted secrets, wrong redactions on a benign corpus,
and throughput against the parse-only floor, in one run.

* recall: every rule's true positive (tests/redact/planted.py) in every shape through the
  redactor; then end to end: planted in Claude Code sessions (prompt, Read output, Bash
  command; the path shape as the session's folder), imported, and every byte under
  VIVA_HOME and every `viva sessions` / `viva session show` output searched — target 0;
* wrong redactions on the benign corpus (tests/redact/benign.py), each listed — target
  <= 0.05 per MB;
* throughput: the import's redaction step (the keyword gate, then the redactor on what it
  flags) against parse-only (orjson over every line), each ratio the median of pairs
  measured back to back, on the import benchmark's history and on the benign corpus
  written as Claude Code sessions reading those files — target >= 25%.

    python benchmarks/bench_redact.py [--mb 40] [--history-mb 100] [--repeats 3] [--no-e2e]
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sqlite3
import statistics
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_import
from gen_history import generate

from tests.redact.benign import benign
from tests.redact.planted import Plant, leaked, planted, shared_pieces
from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.demo.harness_files import claude_code
from viva_store.demo.spec import SessionSpec, Turn
from viva_store.importing.pipeline import run_import
from viva_store.redact import GITLEAKS_SOURCE, RULES, gate, redact_text
from viva_store.store import Context, Store

START = datetime(2026, 11, 2, 9, tzinfo=UTC)
# Paths and typed CLI text reach disk through the importer's metadata and the CLI; the
# end-to-end run plants the path shape as the session's folder and leaves typed text out.
E2E_SHAPES = ("bare", "assignment", "json-escaped", "read-output", "quoted", "path")


def recall_redactor() -> tuple[int, collections.Counter[str], list[str]]:
    """Every plant through the redactor: how many, leaks by shape, each leak."""
    leaks: collections.Counter[str] = collections.Counter()
    listed: list[str] = []
    plants = list(planted(RULES))
    for plant in plants:
        if leaked(plant, redact_text(plant.text)[0]):
            leaks[plant.shape] += 1
            listed.append(f"{plant.rule} [{plant.shape}] {plant.text[:70]!r}")
    return len(plants), leaks, listed


def _read_output(text: str) -> str:
    return "\n".join(f"{n:>6}\u2192{line}" for n, line in enumerate(text.split("\n"), 1))


def _session(n: int, plant: Plant) -> SessionSpec:
    cwd = plant.text if plant.shape == "path" else "/src/app"
    text = "the project folder" if plant.shape == "path" else plant.text
    turns = (
        Turn(f"look at this: {text}", "noted"),
        Turn("read it", "done", "Read", {"file_path": "/src/app/notes.txt"}, text),
        Turn("run it", "ok", "Bash", {"command": f"printf %s {text!r}"}, "ran"),
    )
    return SessionSpec(f"{n:08d}-aaaa-4bbb-8ccc-{n:012d}", cwd, START, turns, "m")


@contextmanager
def _viva_home(home: Path) -> Iterator[None]:
    before = os.environ.get("VIVA_HOME")
    os.environ["VIVA_HOME"] = str(home)
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("VIVA_HOME", None)
        else:
            os.environ["VIVA_HOME"] = before


def _cells(db: Path) -> list[tuple[str, str]]:
    """Every text cell of the SQLite store, as ``(table.column, text)``."""
    con = sqlite3.connect(db)
    out: list[tuple[str, str]] = []
    tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    for table in tables:
        columns = [r[1] for r in con.execute(f"PRAGMA table_info({table})")]
        for row in con.execute(f"SELECT * FROM {table}"):  # table names from the schema
            for column, value in zip(columns, row, strict=True):
                if isinstance(value, bytes):
                    value = value.decode("utf-8", "replace")
                if isinstance(value, str):
                    out.append((f"{table}.{column}", value))
    con.close()
    return out


def _import_and_search(tmp: Path, plants: list[Plant]) -> dict[Plant, set[str]]:
    """Import ``plants`` from Claude Code sessions into a fresh home; then, per plant,
    where it is still found: a column of the store, the files' bytes, the CLI's output."""
    from tests.cli.runner import run as cli

    src, home = tmp / "src", tmp / "home"
    for n, plant in enumerate(plants):
        claude_code(src, _session(n, plant))
    store = Store.open(Config(home=home, db_url=f"sqlite:///{home / 'viva.db'}"))
    for _ in run_import(Context(store, OWNER), ["claude-code"], {"claude-code": str(src)}):
        pass
    store.close()
    disk = b"".join(p.read_bytes() for p in sorted(home.rglob("*")) if p.is_file())
    with _viva_home(home):
        outputs = [cli(["sessions", "--all", "--json"])]
        for session in json.loads(outputs[0].out):
            outputs.append(cli(["session", "show", session["id"], "--json"]))
    places = [
        *_cells(home / "viva.db"),
        ("file bytes", disk.decode("utf-8", "replace")),
        ("CLI output", "".join(o.out for o in outputs)),
    ]
    ignore = shared_pieces(plants, [r.id for r in RULES])
    return {p: {name for name, text in places if leaked(p, text, ignore)} for p in plants}


def recall_end_to_end(
    tmp: Path,
) -> tuple[int, dict[str, collections.Counter[str]], list[str]]:
    """Plants imported, then searched for on disk and in output: one home per shape, so
    that a leak is the shape's own (every shape carries the same secret). Returns the
    number of plants, per shape how many leaked in each place, and each leak."""
    count = 0
    leaks: dict[str, collections.Counter[str]] = {}
    listed: list[str] = []
    for shape in E2E_SHAPES:
        # A folder name is at most 255 bytes: longer secrets are planted everywhere but there.
        plants = [
            p
            for p in planted(RULES)
            if p.shape == shape and not (shape == "path" and len(p.text) > 200)
        ]
        count += len(plants)
        places: collections.Counter[str] = collections.Counter()
        for plant, where in _import_and_search(tmp / shape, plants).items():
            places.update(where)
            places["any"] += bool(where)
            if where:
                listed.append(f"{plant.rule} [{shape}]: {', '.join(sorted(where))}")
        leaks[shape] = places
    return count, leaks, listed


def wrong_redactions(mb: float) -> tuple[float, list[str]]:
    """The benign corpus through the redactor: its size in MB and every redaction in it."""
    size = 0
    wrong: list[str] = []
    for label, text in benign(mb):
        size += len(text.encode())
        out, hits = redact_text(text)
        wrong += [f"{h.rule} in {label}: {out[max(0, h.start - 50) : h.end]!r}" for h in hits]
    return size / (1 << 20), wrong


def benign_history(root: Path, mb: float) -> None:
    """The benign corpus as Claude Code sessions: each piece read with the Read tool."""
    turns: list[Turn] = []
    n = 0
    for label, text in benign(mb, seed=2):
        name = label if "/" in label else f"/src/app/{label}.txt"
        turns.append(Turn(f"read {name}", "ok", "Read", {"file_path": name}, _read_output(text)))
        if len(turns) == 20:
            spec = SessionSpec(
                f"{n:08d}-bbbb-4ccc-8ddd-{n:012d}", "/src/app", START, tuple(turns), "m"
            )
            claude_code(root, spec)
            turns, n = [], n + 1
    if turns:
        claude_code(
            root,
            SessionSpec(f"{n:08d}-bbbb-4ccc-8ddd-{n:012d}", "/src/app", START, tuple(turns), "m"),
        )


def throughput(root: Path, repeats: int) -> tuple[float, float, float]:
    """(parse-only MB/s, redaction MB/s, median ratio of back-to-back pairs) over ``root``."""
    files = bench_import.files_of(root)
    mb = sum(p.stat().st_size for p in files) / (1 << 20)
    parses: list[float] = []
    redacts: list[float] = []
    for _ in range(repeats):
        parses.append(bench_import.parse_only(files))
        redacts.append(bench_import.redaction_only(files))
    ratio = statistics.median(p / r for p, r in zip(parses, redacts, strict=True))
    return mb / statistics.median(parses), mb / statistics.median(redacts), ratio


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=40, help="benign corpus size")
    parser.add_argument("--history-mb", type=float, default=100, help="import history size")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--no-e2e", action="store_true", help="skip the import of plants")
    args = parser.parse_args()
    print(f"rules: {len(RULES)} ({GITLEAKS_SOURCE['version']} and Viva's own)")
    print(f"keyword gate: {'Hyperscan' if gate.accelerated() else 'regex'}")

    n, leaks, listed = recall_redactor()
    print(f"recall, redactor: {n} plants, {sum(leaks.values())} leaks {dict(leaks)} (target 0)")
    for line in listed:
        print("   ", line)
    with tempfile.TemporaryDirectory() as tmp:
        if not args.no_e2e:
            n, by_shape, leaked_plants = recall_end_to_end(Path(tmp))
            total = sum(c["any"] for c in by_shape.values())
            print(f"recall, import + disk + CLI: {n} plants, {total} leak (target 0); by shape:")
            for shape, places in by_shape.items():
                where = ", ".join(f"{k} {v}" for k, v in places.most_common() if k != "any")
                print(f"    {shape}: {places['any']} leaked" + (f" ({where})" if where else ""))
            for line in leaked_plants:
                print("   ", line)

        size, wrong = wrong_redactions(args.mb)
        rate = len(wrong) / size
        print(
            f"benign corpus: {size:.1f} MB, {len(wrong)} wrong redactions = {rate:.3f}/MB (target <= 0.05)"
        )
        for line in wrong:
            print("   ", line)

        history = Path(tmp) / "history"
        generate(history, args.history_mb)
        floor, speed, ratio = throughput(history, args.repeats)
        print(
            f"import history ({args.history_mb:.0f} MB): parse-only {floor:.0f} MB/s, redaction {speed:.0f} MB/s = {ratio:.0%} of the floor (target >= 25%)"
        )
        corpus = Path(tmp) / "benign-sessions"
        benign_history(corpus, args.mb)
        floor, speed, ratio = throughput(corpus, args.repeats)
        print(
            f"benign corpus as sessions ({args.mb:.0f} MB of content): parse-only {floor:.0f} MB/s, redaction {speed:.0f} MB/s = {ratio:.0%} of the floor (target >= 25%)"
        )


if __name__ == "__main__":
    main()
