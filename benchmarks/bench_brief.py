"""``viva brief`` as a member waits for it, against the floor, interleaved, in one run.

The store is ``bench_cli``'s (``--messages`` synthetic messages, five members; cached)
copied once more with ``--items`` knowledge items added (cached too): every kind, spread
over the members and twenty projects, most admitted, some used, each citing two of its
member's sessions; summaries from the recall benchmark's Zipf vocabulary, or with
``--vocabulary small`` from 24 shared words (most items then relate to any task). Timed are whole processes — ``viva brief deven --task … --project …``
under deven's grant, as text and with ``--json`` — each right after the floor
(``python -c "import sqlalchemy, typer"``); target ≤ 1.3× the floor (the callbacks').

    python benchmarks/bench_brief.py [--messages 1000000] [--items 10000] [--pairs 15]
                                     [--vocabulary zipf|small]
"""

from __future__ import annotations

import argparse
import compileall
import os
import random
import shutil
import sys
import tempfile
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(REPO / "benchmarks"))

from bench_cli import (  # noqa: E402
    CALLBACK_TARGET,
    FLOOR,
    MEMBER,
    VIVA,
    Built,
    _env,
    _head,
    build_store,
    pair,
)

KINDS = (  # kind, share of the items
    ("personal_memory", 0.35),
    ("self_model_candidate", 0.05),
    ("project_knowledge", 0.30),
    ("team_knowledge", 0.25),
    ("skill", 0.05),
)
SMALL = [
    "cache",
    "deploy",
    "schema",
    "migration",
    "review",
    "flaky",
    "test",
    "ledger",
    "index",
    "lock",
    "retry",
    "timeout",
    "release",
    "branch",
    "config",
    "secret",
    "rotate",
    "queue",
    "worker",
    "backoff",
    "parser",
    "import",
    "export",
]
"""``--vocabulary small``: every summary of six of these 24 words (the worst case: most
items share a word with any task)."""
PROJECT = "proj-3"


def summaries(vocabulary: str, seed: int) -> tuple[Callable[[random.Random], str], str]:
    """How each item's summary is drawn, and the task: from 24 shared words (``small``) or
    four words of the recall benchmark's Zipf vocabulary (``zipf``), as titles are."""
    if vocabulary == "small":
        task = "fix the flaky retry timeout in the queue worker"
        return (lambda rng: " ".join(rng.sample(SMALL, 6))), task
    from bench_recall import Corpus

    common = Corpus(seed).vocab[:3000]
    task = " ".join(random.Random(seed).sample(common[:300], 6))
    return (lambda rng: " ".join(rng.choices(common, k=4))), task


def add_items(built: Built, items: int, seed: int, vocabulary: str) -> Path:
    """A copy of the store with ``items`` knowledge items (built once; cached)."""
    name = f"viva-bench-brief-{built.home.name}-{items}-{vocabulary}-{_head()}"
    home = Path(tempfile.gettempdir()) / name
    if (home / "READY").exists():
        return home
    if home.exists():
        shutil.rmtree(home)
    shutil.copytree(built.home, home)
    from sqlalchemy import create_engine, insert

    from viva_store.db.schema import KNOWLEDGE_EVENT, KNOWLEDGE_ITEM

    rng = random.Random(seed)
    summary, _ = summaries(vocabulary, seed)
    engine = create_engine(f"sqlite:///{home / 'viva.db'}")
    at = datetime(2026, 5, 1, tzinfo=UTC)
    with engine.begin() as conn:
        sessions: dict[str, list[str]] = {}
        for sid, member in conn.exec_driver_sql(
            "SELECT session_id, member FROM attribution WHERE status = 'attributed'"
        ):
            sessions.setdefault(member, []).append(sid)
        members = sorted(sessions)
        kinds = [k for k, _ in KINDS]
        weights = [w for _, w in KINDS]
        rows, events = [], []
        for n in range(items):
            kind = rng.choices(kinds, weights)[0]
            member = rng.choice(members)
            words = summary(rng)
            item_id = f"kb{n:06d}"
            rows.append(
                {
                    "id": item_id,
                    "member": member,
                    "kind": kind,
                    "project": f"proj-{rng.randrange(20)}" if kind == "project_knowledge" else None,
                    "domain": None,
                    "task_pattern": None,
                    "summary": f"{words} ({n})",
                    "body": f"When {words}, check the obvious first. " * 5,
                    "reason": "recurred",
                    "evidence": "",
                    "sources": [
                        {"session": s, "seq": None} for s in rng.sample(sessions[member], 2)
                    ],
                    "importance": rng.random(),
                    "why": "bench",
                    "confidence": None,
                    "occurred_at": at,
                    "flags": [],
                    "proposed_by": member,
                    "created_at": at + timedelta(minutes=n),
                    "ruleset": "",
                }
            )
            stamp = at + timedelta(minutes=n)
            events.append({"item_id": item_id, "action": "proposed", "actor": member, "at": stamp})
            if kind != "self_model_candidate" and rng.random() < 0.8:
                events.append({"item_id": item_id, "action": "admitted", "actor": "owner",
                               "at": stamp})  # fmt: skip
                for s in rng.sample(sessions[member], rng.choice((0, 0, 1, 2))):
                    events.append({"item_id": item_id, "action": "used", "actor": member,
                                   "at": stamp, "session_id": s})  # fmt: skip
        conn.execute(insert(KNOWLEDGE_ITEM), rows)
        for e in events:
            e.setdefault("session_id", None)
            e.update(reason="", other_id=None, ruleset="")
        conn.execute(insert(KNOWLEDGE_EVENT), events)
    engine.dispose()
    from viva_store.access import OWNER
    from viva_store.config import Config
    from viva_store.knowledge.state import rebuild
    from viva_store.store import Context, Store

    store = Store.open(Config(home=home, db_url=f"sqlite:///{home / 'viva.db'}"))
    store.write(lambda c: rebuild(c, Context(store, OWNER)))
    store.close()
    (home / "READY").write_text((built.home / "READY").read_text())
    return home


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--items", type=int, default=10_000)
    parser.add_argument("--pairs", type=int, default=15)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--vocabulary", choices=("zipf", "small"), default="zipf")
    args = parser.parse_args()
    for package in ("viva_store", "viva_tui"):
        compileall.compile_dir(str(REPO / package), quiet=1)
    built = build_store(args.messages, args.seed)
    home = add_items(built, args.items, args.seed, args.vocabulary)
    _, task = summaries(args.vocabulary, args.seed)
    load = os.getloadavg()
    print(f"{os.cpu_count()} cores, load average {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    print(f"store: {args.messages:,} messages, {args.items:,} knowledge items ({home})")
    print(f"summaries: {args.vocabulary} vocabulary; task: {task!r}")
    print(f"medians of {args.pairs} interleaved pairs against python -c {FLOOR!r}")
    env = _env(home, built.token)
    floor = [sys.executable, "-c", FLOOR]
    brief = [VIVA, "brief", MEMBER, "--task", task, "--project", PROJECT]
    rows = [
        pair(
            "state get (a callback, for reference)",
            [VIVA, "state", "get", MEMBER, "--json"],
            floor,
            env,
            args.pairs,
            None,
        ),
        pair("brief", brief, floor, env, args.pairs, CALLBACK_TARGET),
        pair("brief --json", [*brief, "--json"], floor, env, args.pairs, CALLBACK_TARGET),
    ]
    for row in rows:
        print("  " + row.line(), flush=True)
    load = os.getloadavg()
    print(f"load average at the end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}")
    return 0 if all(r.ratio <= r.target for r in rows if r.target is not None) else 1


if __name__ == "__main__":
    sys.exit(main())
