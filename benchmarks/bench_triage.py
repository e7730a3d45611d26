"""Triage: how far suggestions can be trusted, and bulk classification's speed.

First the suggestions' calibration on held-out sessions (reliability table, expected
calibration error, spread of the confidences); then the time to classify 10,000
sessions in one command next to its floor, a bare executemany INSERT of the same number
of classification events on the same store, in the same run.

    python benchmarks/bench_triage.py [--sessions 10000] [--db-url URL]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import triage_calibration as calibration
from sqlalchemy import insert, text

from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.db.schema import CLASSIFICATION, SESSION
from viva_store.importing.prepare import session_id
from viva_store.members.roster import load_team
from viva_store.members.team import shipped_members_dir
from viva_store.store import Context, Store
from viva_store.triage.classify import classify, unclassify


def seed(ctx: Context, n: int) -> list[str]:
    start = datetime(2026, 1, 1, tzinfo=UTC)
    rows = [
        {
            "id": session_id("claude-code", f"native-{i:06d}"),
            "harness": "claude-code",
            "native_id": f"native-{i:06d}",
            "models": [],
            "started_at": start + timedelta(minutes=i),
            "title_rank": 0,
            "message_count": 0,
            **dict.fromkeys(
                (
                    "input_tokens",
                    "output_tokens",
                    "cache_read_tokens",
                    "cache_write_tokens",
                    "reasoning_tokens",
                ),
                0,
            ),
            "source_path": "/bench",
            "imported_at": start,
            "updated_at": start,
        }
        for i in range(n)
    ]
    ctx.store.write(lambda c: c.execute(insert(SESSION), rows))
    return [r["id"] for r in rows]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--db-url", default=None)
    parser.add_argument("--calibration-only", action="store_true")
    args = parser.parse_args()
    print("\n".join(calibration.report()))
    if args.calibration_only:
        return
    print()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        store = Store.open(Config(home=home, db_url=args.db_url or f"sqlite:///{home / 'viva.db'}"))
        ctx = Context(store, OWNER)
        load_team(ctx, shipped_members_dir())
        ids = seed(ctx, args.sessions)
        ours, floor = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            classify(ctx, ids, "deven")
            ours.append(time.perf_counter() - t0)
            unclassify(ctx, ids)
            events = [
                {
                    "session_id": i,
                    "action": "member",
                    "member": "deven",
                    "actor": "owner",
                    "at": datetime.now(UTC),
                    "note": "bench floor",
                }
                for i in ids
            ]
            t0 = time.perf_counter()
            store.write(lambda c, events=events: c.execute(insert(CLASSIFICATION), events))
            floor.append(time.perf_counter() - t0)
        engine = store.engine.dialect.name
        store.write(lambda c: c.execute(text("SELECT 1")))
        store.close()
    mine, base = statistics.median(ours), statistics.median(floor)
    print(f"engine: {engine}; sessions classified in one command: {args.sessions}")
    print(
        f"viva classify (resolve ids, events, attribution rebuild): {mine:.2f} s (median of {args.repeats})"
    )
    print(f"floor, bare executemany INSERT of the events:           {base:.2f} s")
    print(
        f"ratio: {mine / base:.1f}x the floor; target: seconds, not minutes -> {'OK' if mine < 10 else 'MISSED'}"
    )
    sys.exit(0)


if __name__ == "__main__":
    main()
