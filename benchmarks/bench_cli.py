"""Whole ``viva`` processes against their floors, interleaved, in one run.

What a user (or a member mid-session) waits for is a whole process: start-up, imports,
opening the store, the work, the exit. Each command here runs as ``viva …`` (the
installed entry point beside this interpreter) right after its floor — a process that
imports only what any command cannot avoid (``python -c "import sqlalchemy, typer"``)
and then, where one exists, does the bare operation (the raw FTS5 query for ``recall``;
an ``os.scandir`` + ``stat`` walk for a no-op ``import``). Pairs alternate A B A B …;
printed are both medians and the median of the per-pair ratios.

* member callbacks (``VIVA_GRANT``: deven): ``recall``, ``skill show``, ``skill use``,
  ``skill list``, ``state get``, ``principle propose`` — target ≤ 1.3× the floor;
* the owner's ``members``, ``sessions``, ``session show`` — for information;
* a no-op ``viva import`` of a generated history (``gen_history.py``) — target ≤ 1.5×
  (floor + walk);
* then, unless ``--only`` is given, the two benchmarks with targets of their own:
  ``bench_mcp.py`` (a warm ``viva mcp``'s calls) and ``bench_tui.py --only-viva`` (the app
  started through ``viva``), so one run prints every figure of the speed targets.

Stores of ``--messages`` synthetic messages (``bench_recall.populate``: Zipf text, five
members, the recall index built) are cached in the temp folder, keyed by size, seed and
schema head, so later runs start at once.

    python benchmarks/bench_cli.py [--messages 100000 1000000] [--pairs 15]
                                   [--history-mb 238] [--only recall,import,...]
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

NOW = "2026-06-01T00:00:00+00:00"
MEMBER = "deven"
CALLBACK_TARGET = 1.3
IMPORT_TARGET = 1.5
FLOOR = "import sqlalchemy, typer"
VIVA = str(Path(sys.executable).with_name("viva"))

RAW_RECALL = """
import sqlite3, sys
con = sqlite3.connect(sys.argv[1])
q = sys.argv[2]
ids = [r[0] for r in con.execute(
    "SELECT rowid FROM recall_message_fts WHERE recall_message_fts MATCH ? ORDER BY rank LIMIT 40",
    (q,))]
con.execute("SELECT rowid FROM recall_title_fts WHERE recall_title_fts MATCH ? ORDER BY rank "
            "LIMIT 40", (q,)).fetchall()
marks = ",".join("?" * len(ids[:10]))
con.execute("SELECT m.id, m.text FROM recall_message r JOIN message m ON m.id = r.message_id "
            f"WHERE r.key IN ({marks})", ids[:10]).fetchall()
"""
"""The raw query of recall's shape (``bench_recall.raw_query``), by hand in sqlite3."""

WALK = """
import os, sys
stack = [sys.argv[1]]
while stack:
    with os.scandir(stack.pop()) as it:
        for entry in it:
            if entry.is_dir(follow_symlinks=False):
                stack.append(entry.path)
            else:
                entry.stat()
"""


@dataclass(frozen=True)
class Built:
    """A cached store and what the commands need from it."""

    home: Path
    token: str
    session: str
    skill: str
    word: str

    @property
    def db(self) -> Path:
        return self.home / "viva.db"


def _head() -> str:
    from viva_store.db.migrate import head_revision

    return head_revision()


def build_store(messages: int, seed: int) -> Built:
    """The cached store of ``messages`` messages (built once per size, seed and schema)."""
    home = Path(tempfile.gettempdir()) / f"viva-bench-cli-{messages}-{seed}-{_head()}"
    ready = home / "READY"
    if not ready.exists():
        if home.exists():
            shutil.rmtree(home)
        home.mkdir(parents=True)
        _populate(home, messages, seed)
    token, session, skill, word = ready.read_text().split("\n")[:4]
    return Built(home, token, session, skill, word)


def _populate(home: Path, messages: int, seed: int) -> None:
    from bench_recall import Corpus, checkpoint, populate

    from viva_store.access import OWNER
    from viva_store.config import Config
    from viva_store.members.grants import issue_grant
    from viva_store.members.roster import load_team
    from viva_store.members.team import shipped_members_dir
    from viva_store.recall import index as recall_index
    from viva_store.skills.axis import refresh_axes
    from viva_store.skills.library import list_library
    from viva_store.skills.membership import add_skill
    from viva_store.store import Context, Store

    print(f"building a {messages:,}-message store in {home} (once; cached)", flush=True)
    t0 = time.perf_counter()
    os.environ["VIVA_NOW"] = NOW
    store = Store.open(Config(home=home, db_url=f"sqlite:///{home / 'viva.db'}"))
    ctx = Context(store, OWNER)
    load_team(ctx, shipped_members_dir())
    populate(ctx, messages, seed)
    store.write(refresh_axes)  # populate files sessions directly: their members' axes
    recall_index.refresh(ctx)
    skill = list_library(ctx)[0].name
    add_skill(ctx, MEMBER, skill)
    token = issue_grant(ctx, MEMBER, ttl=None, note="bench_cli").token
    session = store.read(
        lambda c: c.exec_driver_sql(
            "SELECT session_id FROM attribution WHERE member = ? ORDER BY session_id LIMIT 1",
            (MEMBER,),
        ).scalar()
    )
    word = Corpus(seed).queries(ctx, 1, member=MEMBER)[0].split()[0]
    checkpoint(ctx)
    store.close()
    (home / "READY").write_text(f"{token}\n{session}\n{skill}\n{word}\n")
    print(f"  built in {time.perf_counter() - t0:.0f} s", flush=True)


def build_history(mb: float) -> tuple[Path, Path]:
    """A generated Claude Code history and a store that has imported it once (cached)."""
    from gen_history import generate

    base = Path(tempfile.gettempdir()) / f"viva-bench-cli-history-{mb:g}-{_head()}"
    root, home = base / "history", base / "home"
    if not (base / "READY").exists():
        if base.exists():
            shutil.rmtree(base)
        home.mkdir(parents=True)
        print(f"generating a {mb:g} MB history in {root} and importing it (once; cached)")
        generate(root, mb)
        env = _env(home)
        subprocess.run([VIVA, "import", *_harness(root)], env=env, check=True)
        (base / "READY").write_text("ok\n")
    return root, home


def _harness(root: Path) -> list[str]:
    return ["--harness", "claude-code", "--root", f"claude-code={root}"]


def _env(home: Path, token: str | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIVA_")}
    env.update(VIVA_HOME=str(home), VIVA_NOW=NOW)
    if token:
        env["VIVA_GRANT"] = token
    return env


def run_once(argv: list[str], env: dict[str, str]) -> float:
    """Wall seconds of one whole process; a failing command stops the benchmark."""
    t0 = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True)
    elapsed = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv[:4])} … failed: {done.stderr.decode()[-800:]}")
    return elapsed


@dataclass(frozen=True)
class Row:
    name: str
    figure: float
    floor: float
    ratio: float
    target: float | None

    def line(self) -> str:
        verdict = ""
        if self.target is not None:
            verdict = f"(target <= {self.target}x) " + (
                "ok" if self.ratio <= self.target else "MISSED"
            )
        return (
            f"{self.name:<34} {self.figure * 1000:7.0f} ms   floor {self.floor * 1000:6.0f} ms"
            f"   {self.ratio:5.2f}x  {verdict}"
        )


def pair(
    name: str,
    command: list[str],
    floor: list[str],
    env: dict[str, str],
    pairs: int,
    target: float | None,
) -> Row:
    """``pairs`` interleaved runs of floor and command (after one warm-up of each)."""
    run_once(floor, env), run_once(command, env)
    floors: list[float] = []
    figures: list[float] = []
    for _ in range(pairs):
        floors.append(run_once(floor, env))
        figures.append(run_once(command, env))
    ratio = statistics.median(f / b for f, b in zip(figures, floors, strict=True))
    return Row(name, statistics.median(figures), statistics.median(floors), ratio, target)


def store_rows(built: Built, pairs: int, only: set[str] | None) -> list[Row]:
    py = sys.executable
    base = [py, "-c", FLOOR]
    member, owner = _env(built.home, built.token), _env(built.home)
    raw = [py, "-c", FLOOR + "\n" + RAW_RECALL, str(built.db), built.word]
    cases: list[tuple[str, list[str], list[str], dict[str, str], float | None]] = [
        ("recall", ["recall", built.word, "--json"], raw, member, CALLBACK_TARGET),
        ("skill show", ["skill", "show", built.skill], base, member, CALLBACK_TARGET),
        (
            "skill use",
            [
                "skill",
                "use",
                MEMBER,
                built.skill,
                "--outcome",
                "success",
                "--session",
                built.session,
            ],
            base,
            member,
            CALLBACK_TARGET,
        ),
        ("skill list", ["skill", "list", MEMBER, "--json"], base, member, CALLBACK_TARGET),
        ("state get", ["state", "get", MEMBER, "--json"], base, member, CALLBACK_TARGET),
        (
            "principle propose",
            [
                "principle",
                "propose",
                MEMBER,
                "--text",
                "Run the tests first.",
                "--rationale",
                "bench",
                "--json",
            ],
            base,
            member,
            CALLBACK_TARGET,
        ),
        ("members (owner)", ["members", "--json"], base, owner, None),
        ("sessions (owner)", ["sessions"], base, owner, None),
        ("session show (owner)", ["session", "show", built.session, "--json"], base, owner, None),
    ]
    rows = []
    for name, args, floor, env, target in cases:
        if only and name.split()[0] not in only:
            continue
        rows.append(pair(name, [VIVA, *args], floor, env, pairs, target))
        print("  " + rows[-1].line(), flush=True)
    return rows


def import_row(mb: float, pairs: int) -> Row:
    root, home = build_history(mb)
    floor = [sys.executable, "-c", FLOOR + "\n" + WALK, str(root)]
    command = [VIVA, "import", *_harness(root)]
    return pair(
        f"import, nothing changed ({mb:g} MB)", command, floor, _env(home), pairs, IMPORT_TARGET
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--history-mb", type=float, default=238)
    parser.add_argument("--only", default="", help="comma-separated first words of commands")
    args = parser.parse_args()
    only = {w.strip() for w in args.only.split(",") if w.strip()} or None
    # An installed viva runs from bytecode; this checkout may be set not to write it.
    for package in ("viva_store", "viva_tui"):
        compileall.compile_dir(str(REPO / package), quiet=1)
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"floor: python -c {FLOOR!r} (+ the bare operation where one exists)")
    print(f"medians of {args.pairs} interleaved pairs; ratio = median of per-pair ratios")
    rows: list[Row] = []
    for messages in args.messages:
        built = build_store(messages, args.seed)
        print(f"store: {messages:,} messages ({built.home})", flush=True)
        rows += store_rows(built, args.pairs, only)
    if only is None or "import" in only:
        rows.append(import_row(args.history_mb, args.pairs))
        print("  " + rows[-1].line(), flush=True)
    missed = [r.name for r in rows if r.target is not None and r.ratio > r.target]
    if only is None:
        missed += [name for name, argv in COMPANIONS if not companion(name, argv)]
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    return 1 if missed else 0


COMPANIONS = (
    (
        "viva mcp",
        [
            str(REPO / "benchmarks" / "bench_mcp.py"),
            "--keep",
            str(Path(tempfile.gettempdir()) / "viva-bench-mcp"),
        ],
    ),
    ("the app through viva", [str(REPO / "benchmarks" / "bench_tui.py"), "--only-viva"]),
)
"""The speed targets measured by their own benchmarks (a warm server's calls; the app in a
pseudo-terminal), run after the commands so one run prints every figure."""


def companion(name: str, argv: list[str]) -> bool:
    """Run one companion benchmark, its output shown as it comes; whether its targets held."""
    print(f"{name}: {' '.join(Path(a).name for a in argv)}", flush=True)
    return subprocess.run([sys.executable, *argv]).returncode == 0


if __name__ == "__main__":
    sys.exit(main())
