"""Recall at scale (issue 8): index build and size, query latency, on SQLite and PostgreSQL.

Builds a store of N synthetic messages (~300 bytes of Zipf-distributed words
each, in sessions of 50, imported in shuffled session order, five members and
unattributed sessions; ``--tool-share`` of them, half by default, are instead a
tool call — an Edit whose whole input is JSON — or a tool's output three times as
long), then measures, printing every figure next to its
floor from the same run (medians of ``--repeat`` runs):

* index build — Viva's full build (``recall_index.rebuild``: every message
  chunked into the FTS5 index, titles, per-session importance) against a bare
  FTS5 build of the same text with the same options (one ``INSERT … SELECT``):
  ≤ 1.3×. Viva sets FTS5's write buffer to 32 MB; the bare build with the same
  buffer is printed too, for what that setting alone is worth. PostgreSQL: Viva's GIN (``REINDEX``) plus the importance refresh
  against a bare ``CREATE INDEX`` of the same expression.
* index size — the full-text structures ÷ the indexed text: ≤ 0.6.
* ``recall`` p95 (owner, ranked) ≤ 1.5 × the raw query of the same shape:
  the same match expressions over messages and titles, ordered by the
  engine's rank with the same limit, plus fetching the shown hits' text.
* newest-first p95 ≤ 10 ms; member-scoped (deven's grant) p95 ≤ 50 ms.

    python benchmarks/bench_recall.py [--messages 200000] [--queries 200] [--repeat 3]
                                      [--tool-share 0.5] [--engine sqlite|postgresql|both] [--pg-url URL]

PostgreSQL uses ``--pg-url`` or ``VIVA_TEST_DB_URL`` (``scripts/pg-server.sh start``).
"""

from __future__ import annotations

import argparse
import math
import os
import secrets
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, bindparam, create_engine, text

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.members.roster import load_team
from viva_store.members.team import shipped_members_dir
from viva_store.recall import fts, fts_keys
from viva_store.recall import index as recall_index
from viva_store.recall.query import fts5_expression
from viva_store.recall.search import recall
from viva_store.store import Context, Store

sys.path.insert(0, str(Path(__file__).resolve().parent))

from recall_corpus import DOCUMENT, NONEMPTY, NOW, Corpus, populate

LIMIT = 10


# --- measuring -----------------------------------------------------------------------------


def timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def p95(values: list[float]) -> float:
    """The nearest-rank 95th percentile."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def text_bytes(ctx: Context) -> int:
    """Bytes of what the message index holds (the text, or the document with tool fields)."""
    sql = (
        f"SELECT sum(length(CAST({DOCUMENT} AS BLOB))) FROM message WHERE {NONEMPTY}"
        if ctx.store.engine.dialect.name == "sqlite"
        else f"SELECT sum(octet_length({DOCUMENT})) FROM message WHERE {NONEMPTY}"
    )
    return int(ctx.store.read(lambda c: c.exec_driver_sql(sql).scalar()) or 0)


def checkpoint(ctx: Context) -> None:
    """Fold SQLite's WAL into the database file, so every run starts from the same state."""
    if ctx.store.engine.dialect.name == "sqlite":
        raw = ctx.store.engine.raw_connection()
        try:
            raw.driver_connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # type: ignore[union-attr]
        finally:
            raw.close()


def bare_build(ctx: Context, buffer: int | None = None) -> float:
    """The same text indexed by hand — messages and titles — without Viva's machinery
    (SQLite: with FTS5's default write buffer, or ``buffer`` bytes)."""
    if ctx.store.engine.dialect.name == "sqlite":
        tables = {
            "bench_bare": "text, content='message', content_rowid='id'",
            "bench_bare_t": "title",
        }
        for name, columns in tables.items():
            ctx.store.write(lambda c, n=name: c.exec_driver_sql(f"DROP TABLE IF EXISTS {n}"))
            ctx.store.write(
                lambda c, n=name, cols=columns: c.exec_driver_sql(
                    f"CREATE VIRTUAL TABLE {n} USING fts5({cols}, detail=none, "
                    f"tokenize='{fts.TOKENIZE}')"
                )
            )

        def work(conn: Connection) -> None:
            if buffer is not None:
                conn.exec_driver_sql(
                    f"INSERT INTO bench_bare(bench_bare, rank) VALUES ('hashsize', {buffer})"
                )
            conn.exec_driver_sql(
                f"INSERT INTO bench_bare(rowid, text) SELECT id, {DOCUMENT} FROM message "
                f"WHERE {NONEMPTY}"
            )
            conn.exec_driver_sql(
                "INSERT INTO bench_bare_t(title) SELECT title FROM session WHERE title != ''"
            )

        seconds = timed(lambda: ctx.store.write(work))
        for name in tables:
            ctx.store.write(lambda c, n=name: c.exec_driver_sql(f"DROP TABLE {n}"))
        return seconds
    ctx.store.write(lambda c: c.exec_driver_sql("DROP INDEX IF EXISTS bench_bare"))
    sql = f"CREATE INDEX bench_bare ON message USING gin (to_tsvector({fts.PG_CONFIG}, {DOCUMENT}))"
    seconds = timed(lambda: ctx.store.write(lambda c: c.exec_driver_sql(sql)))
    ctx.store.write(lambda c: c.exec_driver_sql("DROP INDEX bench_bare"))
    return seconds


def viva_build(ctx: Context) -> float:
    """Viva's build from empty: what the first search after an import does."""
    recall_index.reset(ctx)
    checkpoint(ctx)
    if ctx.store.engine.dialect.name == "sqlite":
        return timed(lambda: recall_index.refresh(ctx))

    def build() -> None:
        ctx.store.write(lambda c: c.exec_driver_sql("REINDEX INDEX ix_message_text_fts"))
        recall_index.refresh(ctx)

    return timed(build)


def raw_query(ctx: Context, query: str) -> Callable[[], Any]:
    """The same match over messages and titles, by the engine's rank, plus the shown texts."""
    from viva_store.recall.query import parse_query

    tokens = parse_query(query).tokens
    k = LIMIT * 4
    sqlite = ctx.store.engine.dialect.name == "sqlite"
    if sqlite:
        msg = text(
            "SELECT rowid FROM recall_message_fts WHERE recall_message_fts MATCH :q "
            "ORDER BY rank LIMIT :k"
        )
        ttl = text(
            "SELECT rowid FROM recall_title_fts WHERE recall_title_fts MATCH :q "
            "ORDER BY rank LIMIT :k"
        )
    else:
        msg = text(
            "SELECT id FROM message, to_tsquery('simple'::regconfig, :q) q "
            f"WHERE to_tsvector('simple'::regconfig, {DOCUMENT}) @@ q "
            f"ORDER BY ts_rank(to_tsvector('simple'::regconfig, {DOCUMENT}), q) DESC LIMIT :k"
        )
        ttl = text(
            "SELECT id FROM session, to_tsquery('simple'::regconfig, :q) q "
            "WHERE to_tsvector('simple'::regconfig, coalesce(title, '')) @@ q "
            "ORDER BY ts_rank(to_tsvector('simple'::regconfig, coalesce(title, '')), q) DESC "
            "LIMIT :k"
        )
    # SQLite's index is keyed by time: its rowids name messages through recall_message.
    texts = text(
        "SELECT m.id, m.text, m.tool_args, m.tool_result FROM recall_message r "
        "JOIN message m ON m.id = r.message_id WHERE r.key IN :ids"
        if sqlite
        else "SELECT id, text, tool_args, tool_result FROM message WHERE id IN :ids"
    ).bindparams(bindparam("ids", expanding=True))

    def params(any_token: bool) -> dict[str, Any]:
        if sqlite:
            return {"q": fts5_expression(tokens, any_token), "k": k}
        return {"q": (" | " if any_token else " & ").join(tokens), "k": k}

    def work(conn: Connection) -> None:
        for any_token in (False, True):  # as recall: every word, else any word
            ids = list(conn.execute(msg, params(any_token)).scalars())
            titles = list(conn.execute(ttl, params(any_token)))
            if ids or titles or len(tokens) == 1:
                break
        if ids:
            list(conn.execute(texts, {"ids": ids[:LIMIT]}))

    return lambda: ctx.store.read(work)


def latencies(
    fn_for: Callable[[str], Callable[[], Any]], queries: list[str], repeat: int
) -> list[float]:
    """Per query: the median of ``repeat`` runs (after one warm-up), in ms."""
    out = []
    for q in queries:
        fn = fn_for(q)
        fn()
        out.append(statistics.median(timed(fn) for _ in range(repeat)) * 1000)
    return out


def run(ctx: Context, args: argparse.Namespace) -> list[tuple[str, float, str, bool]]:
    engine = ctx.store.engine.dialect.name
    print(f"\n== {engine}: {args.messages:,} messages ==", flush=True)
    t0 = time.perf_counter()
    populate(ctx, args.messages, args.seed, args.tool_share)
    size = text_bytes(ctx)
    print(f"populated in {time.perf_counter() - t0:.1f}s; indexed text {size / 1e6:.1f} MB")
    bare, ours, buffered = [], [], []
    for _ in range(args.repeat):
        checkpoint(ctx)
        bare.append(bare_build(ctx))
        ours.append(viva_build(ctx))
        if engine == "sqlite":
            checkpoint(ctx)
            buffered.append(bare_build(ctx, fts_keys.WRITE_BUFFER))
    checkpoint(ctx)
    bare_s, ours_s = statistics.median(bare), statistics.median(ours)
    index = ctx.store.read(fts.index_bytes) or 0
    print(f"build runs: bare {[round(b, 2) for b in bare]} viva {[round(o, 2) for o in ours]}")
    if buffered:
        print(
            f"  bare with Viva's {fts_keys.WRITE_BUFFER >> 20} MB write buffer (not the floor): "
            f"{[round(b, 2) for b in buffered]}, median {statistics.median(buffered):.2f}s"
        )
    print(f"index {index / 1e6:.1f} MB of {size / 1e6:.1f} MB text", flush=True)
    queries = Corpus(args.seed).queries(ctx, args.queries)
    own = Corpus(args.seed).queries(ctx, args.queries, member="deven")
    deven = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    hits = [len(recall(ctx, q, limit=LIMIT).hits) for q in queries[:20]]
    print(f"sample hit counts: {hits}")
    raw = latencies(lambda q: raw_query(ctx, q), queries, args.repeat)
    ranked = latencies(lambda q: lambda: recall(ctx, q, limit=LIMIT), queries, args.repeat)
    newest = latencies(
        lambda q: lambda: recall(ctx, q, limit=LIMIT, order="newest"), queries, args.repeat
    )
    member = latencies(lambda q: lambda: recall(deven, q, limit=LIMIT), own, args.repeat)
    foreign = latencies(lambda q: lambda: recall(deven, q, limit=LIMIT), queries, args.repeat)
    rows = [
        ("index build (s)", ours_s, f"≤ 1.3 × bare {bare_s:.2f}s", ours_s <= 1.3 * bare_s),
        ("index size / text", index / size, "≤ 0.6", index / size <= 0.6),
        (
            "recall p95 (ms)",
            p95(ranked),
            f"≤ 1.5 × raw p95 {p95(raw):.2f} ms",
            p95(ranked) <= 1.5 * p95(raw),
        ),
        ("newest-first p95 (ms)", p95(newest), "≤ 10", p95(newest) <= 10),
        ("member-scoped p95 (ms)", p95(member), "≤ 50", p95(member) <= 50),
    ]
    print("latency over the query mix (member: deven's grant, words from deven's sessions;")
    print("  foreign: deven's grant, words from anyone's — mostly no match, any-word fallback)")
    for name, values in (
        ("raw", raw),
        ("recall", ranked),
        ("newest", newest),
        ("member", member),
        ("foreign", foreign),
    ):
        print(f"{name:>8}: p50 {statistics.median(values):7.2f} ms  p95 {p95(values):7.2f} ms")
    print(f"{'measure':<24}{'value':>10}  floor")
    for name, value, floor, ok in rows:
        print(f"{name:<24}{value:>10.3f}  {floor}  {'PASS' if ok else 'FAIL'}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter
    )
    parser.add_argument("--messages", type=int, default=200_000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=8)
    parser.add_argument("--tool-share", type=float, default=0.5)
    parser.add_argument("--engine", choices=("sqlite", "postgresql", "both"), default="sqlite")
    parser.add_argument("--pg-url", default=os.environ.get("VIVA_TEST_DB_URL"))
    args = parser.parse_args()
    os.environ["VIVA_NOW"] = NOW.isoformat()
    failed = False
    engines = ("sqlite", "postgresql") if args.engine == "both" else (args.engine,)
    for engine in engines:
        with tempfile.TemporaryDirectory() as tmp:
            home = Path(tmp)
            url, cleanup = f"sqlite:///{home / 'viva.db'}", None
            if engine == "postgresql":
                if not args.pg_url:
                    sys.exit("PostgreSQL: give --pg-url or set VIVA_TEST_DB_URL")
                url, cleanup = _pg_schema(args.pg_url)
            store = Store.open(Config(home=home, db_url=url))
            try:
                ctx = Context(store, OWNER)
                load_team(ctx, shipped_members_dir())
                rows = run(ctx, args)
                failed |= not all(ok for *_, ok in rows)
            finally:
                store.close()
                if cleanup:
                    cleanup()
    sys.exit(1 if failed else 0)


def _pg_schema(url: str) -> tuple[str, Callable[[], None]]:
    schema = "bench_" + secrets.token_hex(4)
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f"CREATE SCHEMA {schema}"))

    def drop() -> None:
        with admin.begin() as conn:
            conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()

    sep = "&" if "?" in url else "?"
    return f"{url}{sep}options=-csearch_path%3D{schema}", drop


if __name__ == "__main__":
    main()
