"""``viva mcp`` warm: a member's tool calls as the harness waits for them, end to end.

Builds the recall benchmark's store (``bench_recall.populate``: N synthetic messages in
sessions of 50, five members), starts ``viva mcp`` as a harness does — a process of its
own with deven's grant in its environment — and times each call through the SDK's stdio
client, from request to result, after a warm-up:

* ``recall`` over deven's own words (the recall benchmark's member query mix):
  p95 ≤ 20 ms at 1M messages;
* ``skill_use`` of code-review, each call in another of deven's sessions (a credited
  use, as a member records one per session): p95 ≤ 10 ms.

Beside each, its floor, interleaved with it (server call, floor, server call, ...): the
same service call in this process (what the server adds is the protocol, the grant
check).

    python benchmarks/bench_mcp.py [--messages 1000000] [--calls 300] [--seed 8]
                                   [--engine sqlite|postgresql] [--pg-url URL] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import anyio
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bench_recall

from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.members.roster import load_team
from viva_store.members.team import shipped_members_dir
from viva_store.recall import index as recall_index
from viva_store.recall.search import recall
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.skills.axis import refresh_axes
from viva_store.skills.service import record_use
from viva_store.store import Context, Store

SKILL = "code-review"
WARM_UP = 20


def server_env(url: str, home: Path, token: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("VIVA_")}
    return env | {
        "VIVA_DB_URL": url,
        "VIVA_HOME": str(home),
        "VIVA_GRANT": token,
        "VIVA_NOW": os.environ["VIVA_NOW"],
    }


Pair = tuple[dict[str, Any], Callable[[], Any]]
"""One measured step: a tool call's arguments, and the same service call in-process."""


async def interleaved(session: ClientSession, name: str, pairs: list[Pair]) -> list[float]:
    """Round trips in ms, each tool call followed by its in-process floor: A B A B ...

    Returns ``[server ms, floor ms]`` flattened; a refused call stops the run."""
    out = []
    for arguments, floor in pairs:
        t0 = time.perf_counter()
        result = await session.call_tool(name, arguments)
        out.append((time.perf_counter() - t0) * 1000)
        if result.is_error:
            sys.exit(f"{name} {arguments} was refused: {result.content}")
        out.append(in_process_ms(floor))
    return out


def through_the_server(
    env: dict[str, str], talk: Callable[[ClientSession], Awaitable[dict[str, list[float]]]]
) -> dict[str, list[float]]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "viva_tui.cli", "mcp"], env=env
    )

    async def main() -> dict[str, list[float]]:
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            return await talk(session)

    return anyio.run(main)


def in_process_ms(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def build(ctx: Context, args: argparse.Namespace) -> None:
    """The team and the recall benchmark's history, filed and indexed."""
    t0 = time.perf_counter()
    load_team(ctx, shipped_members_dir())
    bench_recall.populate(ctx, args.messages, args.seed)
    ctx.store.write(lambda c: refresh_axes(c))  # as filing the sessions would
    recall_index.refresh(ctx)
    bench_recall.checkpoint(ctx)
    print(f"{args.messages:,} messages populated and indexed in {time.perf_counter() - t0:.0f}s")


def kept_copy(args: argparse.Namespace, home: Path) -> str:
    """``--keep``: the store built once at that path (per message count), copied for this run
    (the run's uses change it)."""
    kept = Path(args.keep) / f"viva-{args.messages}.db"
    if not kept.exists():
        kept.parent.mkdir(parents=True, exist_ok=True)
        store = Store.open(Config(home=kept.parent, db_url=f"sqlite:///{kept}"))
        try:
            build(Context(store, OWNER), args)
        finally:
            store.close()
    shutil.copyfile(kept, home / "viva.db")
    return f"sqlite:///{home / 'viva.db'}"


def run(ctx: Context, url: str, home: Path, args: argparse.Namespace) -> bool:
    queries = bench_recall.Corpus(args.seed).queries(ctx, args.calls + WARM_UP, member="deven")
    sessions = [
        s.id for s in list_sessions(ctx, SessionFilter(member="deven", limit=3 * args.calls + 60))
    ]
    grant = issue_grant(ctx, "deven")
    deven = ctx.as_actor(resolve_actor(ctx.store, grant.token))
    served, local = sessions[: args.calls + WARM_UP], sessions[args.calls + WARM_UP :]
    if len(local) < len(served):
        sys.exit(f"deven has {len(sessions)} sessions; --calls {args.calls} needs more")

    recalls: list[Pair] = [({"query": q}, partial(recall, deven, q, limit=10)) for q in queries]
    uses: list[Pair] = [
        (
            {"name": SKILL, "outcome": "success", "session": s},
            partial(record_use, deven, "deven", SKILL, "success", t),
        )
        for s, t in zip(served, local, strict=False)
    ]

    async def talk(session: ClientSession) -> dict[str, list[float]]:
        out = {}
        for name, pairs in (("recall", recalls), ("skill_use", uses)):
            out[name] = (await interleaved(session, name, pairs))[2 * WARM_UP :]
        return out

    load = os.getloadavg()[0]
    timings = through_the_server(server_env(url, home, grant.token), talk)
    print(
        f"machine load (1-min average) {load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end"
    )
    targets = {"recall": 20.0, "skill_use": 10.0}
    ok = True
    print(f"{'call':<12}{'p50 ms':>9}{'p95 ms':>9}   in-process p50 / p95   target")
    for name, target in targets.items():
        got, base = timings[name][0::2], timings[name][1::2]
        met = bench_recall.p95(got) <= target
        ok &= met
        print(
            f"{name:<12}{statistics.median(got):>9.2f}{bench_recall.p95(got):>9.2f}   "
            f"{statistics.median(base):>8.2f} / {bench_recall.p95(base):<8.2f}   "
            f"p95 ≤ {target:g} ms  {'PASS' if met else 'FAIL'}"
        )
    return ok


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=1_000_000)
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--engine", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--pg-url", default=os.environ.get("VIVA_TEST_DB_URL"))
    parser.add_argument("--keep", help="SQLite: build the store once in this folder, reuse it")
    args = parser.parse_args()
    os.environ["VIVA_NOW"] = bench_recall.NOW.isoformat()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        url, cleanup = f"sqlite:///{home / 'viva.db'}", None
        if args.engine == "postgresql":
            if not args.pg_url:
                sys.exit("PostgreSQL: give --pg-url or set VIVA_TEST_DB_URL")
            url, cleanup = bench_recall._pg_schema(args.pg_url)
        elif args.keep:
            url = kept_copy(args, home)
        store = Store.open(Config(home=home, db_url=url))
        try:
            ctx = Context(store, OWNER)
            if not args.keep or args.engine == "postgresql":
                build(ctx, args)
            ok = run(ctx, url, home, args)
        finally:
            store.close()
            if cleanup:
                cleanup()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
