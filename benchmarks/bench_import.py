"""Import throughput against its floors, in one run.

Floors, measured on the same files in the same run:
* parse-only: decode every line with orjson (no normalizing, no redaction, no store);
* stat walk: a bare ``os.scandir`` + ``stat`` walk of the tree.

Figures (medians of ``--repeats``; each figure is measured next to its floor and
the ratio is the median of the per-pair ratios):
* full import (parse, normalize, redact, store) — target >= 8% of parse-only;
* redaction alone (the keyword gate, then the redactor on what it flags) — target
  >= 25% of parse-only;
* re-import of the unchanged history — target <= 3x the stat walk;
* peak memory importing a history with one ``--big-file-mb`` file — target <= 300 MB.

``--baseline REF`` also imports the same history with the code of git ref ``REF``
(extracted to a scratch folder), alternating with this checkout, each in a fresh
process on a fresh store: throughput (the median of the per-pair ratios, and their
spread) and stored bytes, before and after. ``--history
DIR`` imports an existing Claude Code projects folder instead of a generated one.

    python benchmarks/bench_import.py [--mb 200] [--repeats 3] [--big-file-mb 500]
        [--baseline REF] [--history DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from gen_history import generate

from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.importing.harness.claude_code.reader import READER as claude_code
from viva_store.importing.harness.lines import iter_lines, open_source, to_records
from viva_store.importing.harness.model import SourceFile
from viva_store.importing.pipeline import run_import
from viva_store.importing.pool import default_workers
from viva_store.importing.prepare import Ledger, redact_message_fields, suspects
from viva_store.redact import gate, redact_obj
from viva_store.store import Context, Store


def files_of(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.jsonl"))


def parse_only(files: list[Path]) -> float:
    t0 = time.perf_counter()
    for path in files:
        with path.open("rb") as fh:
            for line in fh:
                orjson.loads(line)
    return time.perf_counter() - t0


def redaction_only(files: list[Path]) -> float:
    """The import's own redaction step over the normalized messages of every file
    (parsing happens before the clock starts): the keyword gate over each chunk,
    every stored text field of the messages it flags, and the raw record of
    unknown record types."""
    chunks = []
    for path in files:
        source = SourceFile("claude-code", path)
        with open_source(path) as fh:
            records = to_records(iter_lines(fh), str(path), [])
            chunks += [chunk.messages for chunk in claude_code.parse_records(source, records, {})]
    ledger = Ledger()
    t0 = time.perf_counter()
    for messages in chunks:
        for message, suspect in zip(messages, suspects(messages), strict=True):
            redact_message_fields(message, ledger, {}, suspect)
            if message.raw is not None:
                redact_obj(message.raw)
    return time.perf_counter() - t0


def stat_walk(root: Path) -> float:
    t0 = time.perf_counter()
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                else:
                    entry.stat()
    return time.perf_counter() - t0


def import_once(root: Path, home: Path, walks: int) -> tuple[float, list[float], list[float]]:
    """On a fresh SQLite store: the first import, then ``walks`` re-imports of the
    unchanged tree interleaved with as many bare stat walks (so that both see the
    same machine load)."""
    store = Store.open(Config(home=home, db_url=f"sqlite:///{home / 'viva.db'}"))
    ctx = Context(store, OWNER)
    overrides = {"claude-code": str(root)}
    t0 = time.perf_counter()
    for _ in run_import(ctx, ["claude-code"], overrides):
        pass
    first = time.perf_counter() - t0
    agains: list[float] = []
    floors: list[float] = []
    for _ in range(walks):
        t0 = time.perf_counter()
        for _ in run_import(ctx, ["claude-code"], overrides):
            pass
        agains.append(time.perf_counter() - t0)
        floors.append(stat_walk(root))
    store.close()
    return first, agains, floors


PEAK = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from viva_store.access import OWNER
    from viva_store.config import Config
    from viva_store.importing.pipeline import run_import
    from viva_store.store import Context, Store
    root, home = Path(sys.argv[1]), Path(sys.argv[2])
    store = Store.open(Config(home=home, db_url=f"sqlite:///{home / 'viva.db'}"))
    for _ in run_import(Context(store, OWNER), ["claude-code"], {"claude-code": str(root)}):
        pass
    status = open("/proc/self/status").read()
    print(int(status.split("VmHWM:")[1].split()[0]) // 1024)
    """
)


TIMED = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    # The code under test first, whatever an editable install of the project says.
    sys.meta_path[:] = [f for f in sys.meta_path if "editable" not in repr(f).lower()]
    sys.path.insert(0, sys.argv[3])
    import viva_store
    from viva_store.access import OWNER
    from viva_store.config import Config
    from viva_store.importing.pipeline import run_import
    from viva_store.store import Context, Store
    root, home = Path(sys.argv[1]), Path(sys.argv[2])
    store = Store.open(Config(home=home, db_url=f"sqlite:///{home / 'viva.db'}"))
    t0 = time.perf_counter()
    for _ in run_import(Context(store, OWNER), ["claude-code"], {"claude-code": str(root)}):
        pass
    elapsed = time.perf_counter() - t0
    with store.engine.begin() as conn:
        conn.exec_driver_sql("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    size = sum(p.stat().st_size for p in home.glob("viva.db*"))
    print(elapsed, size, viva_store.__file__)
    """
)


def timed_import(code: Path, root: Path, home: Path) -> tuple[float, int]:
    """One import of ``root`` by the code under ``code``, in a fresh process and store:
    (seconds, stored bytes)."""
    done = subprocess.run(
        [sys.executable, "-c", TIMED, str(root), str(home), str(code)],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, size, where = done.stdout.split()
    assert Path(where).is_relative_to(code), f"{where} is not the code under {code}"
    return float(seconds), int(size)


def compare(ref: str, root: Path, tmp: Path, mb: float, repeats: int) -> None:
    """Import ``root`` with ``ref``'s code and with this checkout, alternately."""
    here = Path(__file__).resolve().parents[1]
    base = tmp / "baseline"
    base.mkdir()
    archive = subprocess.run(
        ["git", "-C", str(here), "archive", ref], capture_output=True, check=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)
    runs: dict[str, list[tuple[float, int]]] = {"before": [], "after": []}
    for n in range(repeats):
        for name, code in (("before", base), ("after", here)):
            runs[name].append(timed_import(code, root, tmp / f"{name}{n}"))
    before = statistics.median(s for s, _ in runs["before"])
    after = statistics.median(s for s, _ in runs["after"])
    # Each pair ran back to back, so the load moves between pairs more than within one.
    ratios = [b / a for (b, _), (a, _) in zip(runs["before"], runs["after"], strict=True)]
    ratio = statistics.median(ratios)
    size_before, size_after = runs["before"][0][1], runs["after"][0][1]
    print(f"full import, {ref}:{' ' * max(1, 27 - len(ref))}{mb / before:8.1f} MB/s")
    print(
        f"full import, this checkout:             {mb / after:8.1f} MB/s "
        f"= {ratio:6.1%} of {ref}, median of {repeats} pairs (target >= 90%)"
    )
    print(f"per-pair ratios: {min(ratios):.1%} to {max(ratios):.1%}")
    print(
        f"stored bytes: {size_before / (1 << 20):.1f} MB with {ref}, "
        f"{size_after / (1 << 20):.1f} MB now ({size_after / size_before - 1:+.1%})"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mb", type=float, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--walks", type=int, default=7, help="re-imports per store")
    parser.add_argument("--big-file-mb", type=float, default=0, help="also measure peak memory")
    parser.add_argument("--baseline", help="also import with this git ref's code, alternately")
    parser.add_argument("--history", type=Path, help="a Claude Code projects folder to import")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        if args.history:
            root = args.history.resolve()
            files = files_of(root)
            n_files, n_bytes = len(files), sum(p.stat().st_size for p in files)
        else:
            root = Path(tmp) / "history"
            n_files, n_bytes = generate(root, args.mb)
            files = files_of(root)
        mb = n_bytes / (1 << 20)
        if args.baseline:
            print(f"history: {n_files} files, {mb:.0f} MB")
            compare(args.baseline, root, Path(tmp), mb, args.repeats)
            return
        # Each figure is measured right after its floor, and the ratios are taken per
        # pair: on a shared machine the load moves between runs, not within a pair.
        parses: list[float] = []
        firsts: list[float] = []
        redacts: list[float] = []
        agains: list[float] = []
        walks: list[float] = []
        for n in range(args.repeats):
            parses.append(parse_only(files))
            first, again, walk = import_once(root, Path(tmp) / f"home{n}", args.walks)
            firsts.append(first)
            agains += again
            walks += walk
            redacts.append(redaction_only(files))
        parse, first, redact = (statistics.median(x) for x in (parses, firsts, redacts))
        again, walk = statistics.median(agains), statistics.median(walks)
        ratio = statistics.median(p / f for p, f in zip(parses, firsts, strict=True))
        ratio_r = statistics.median(p / r for p, r in zip(parses, redacts, strict=True))
        ratio_w = statistics.median(a / w for a, w in zip(agains, walks, strict=True))
        print(
            f"history: {n_files} files, {mb:.0f} MB (Claude Code layout, sub-agents, planted secrets)"
        )
        print(
            f"secret gate: {'Hyperscan, one pass per chunk' if gate.accelerated() else 'regex'}; "
            f"reader processes: {default_workers()} ({os.cpu_count()} cores)"
        )
        print(f"parse-only floor (orjson, every line):   {mb / parse:8.1f} MB/s")
        print(
            f"full import:                             {mb / first:8.1f} MB/s = {ratio:6.1%} of the floor (target >= 8%)"
        )
        print(
            f"redaction alone:                         {mb / redact:8.1f} MB/s = {ratio_r:6.1%} of the floor (target >= 25%)"
        )
        print(f"re-import, unchanged (median of {len(agains)}): {again * 1000:8.1f} ms")
        print(
            f"stat walk floor (os.scandir + stat):     {walk * 1000:8.1f} ms; ratio {ratio_w:.1f}x (target <= 3x)"
        )
        if args.big_file_mb:
            big = Path(tmp) / "big"
            generate(big, args.big_file_mb + 10, seed=2, big_file_mb=args.big_file_mb)
            done = subprocess.run(
                [sys.executable, "-c", PEAK, str(big), str(Path(tmp) / "peak")],
                capture_output=True,
                text=True,
                check=True,
            )
            print(
                f"peak memory, history with one {args.big_file_mb:.0f} MB file: {done.stdout.strip()} MB (target <= 300 MB)"
            )


if __name__ == "__main__":
    main()
