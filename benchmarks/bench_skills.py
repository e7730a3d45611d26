"""Skill weights: rebuild, projection and a single use — each beside its floor, in one run.

The targets, on one store built here (5 members × 200 skills, a 200-skill library):

* rebuilding the weights of 1,000,000 skill events within 1.5× a plain SQL aggregate over
  the same table, as a rebuild usually finds the cache (equal to the log: nothing to
  write) and with every cache row made stale first (all rewritten); floor: ``SELECT
  member, skill, count(*), sum(value) FROM skill_event GROUP BY member, skill``, as the
  engine plans it, and forced to a full scan on SQLite;
* a projection over a 200-skill library ≤ 50 ms (forgetting settled, BM25, the picks
  logged, principles; floor: BM25 alone).

The log is a plausible mix: per session of a member, 6 ``projected``, 2 ``read`` and 2
``used`` events (uses tied to the session, 85 % successes), plus each member's 200
entries, and for 50 pairs a track change and a use outside any session. ``--mix uses``
makes every event a use (the worst case for a rebuild, which only reads weight events).
Figures are medians of ``--repeats``. A single committed use (``record_use``) is timed
too, beside an empty write transaction and a bare INSERT, for information only: it is a
small part of a ``viva skill use`` process.

    python benchmarks/bench_skills.py [--events 1000000] [--repeats 5] [--db-url URL]
                                      [--mix plausible|uses]
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import func, insert, select, text, update

from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.db.schema import MEMBER_SKILL, SESSION, SKILL, SKILL_EVENT, STORE_META
from viva_store.members.roster import get_member, load_team
from viva_store.skills.credit import SessionRef, credit, session_ref
from viva_store.skills.events import day_of, skill_params
from viva_store.skills.library import import_skills
from viva_store.skills.project import project
from viva_store.skills.rank import Doc, bm25
from viva_store.skills.rebuild import compute_states, rebuild_members
from viva_store.skills.skillset import list_skills
from viva_store.skills.uses import record_use
from viva_store.store import Context, Store
from viva_store.triage.classify import classify

MEMBERS = ("samuel", "deven", "alice", "oliver", "victor")
START = datetime(2024, 1, 1, tzinfo=UTC)
WORDS = [
    "test",
    "flaky",
    "sqlite",
    "postgres",
    "migration",
    "review",
    "refactor",
    "release",
    "deploy",
    "incident",
    "log",
    "trading",
    "backtest",
    "risk",
    "market",
    "data",
    "plan",
    "issue",
    "principle",
    "snapshot",
    "tui",
    "cli",
    "profile",
    "redaction",
    "secret",
    "audit",
    "handoff",
    "session",
    "weekly",
    "coordinator",
    "python",
    "typing",
    "async",
]
TASKS = (
    "fix the flaky test in the sqlite migration",
    "review the release checklist before deploy",
    "investigate the incident from the logs",
    "backtest the new risk model on market data",
    "plan the weekly issues for the coordinator",
    "profile the cli startup and the tui snapshot tests",
    "audit the redaction of secrets in session logs",
    "refactor the python typing of the async store",
)
TOKENS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def median_of(repeats: int, work: Callable[[], Any]) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        work()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def library(ctx: Context, folder: Path, total: int) -> list[str]:
    """Fill the team library up to ``total`` skills with generated ones."""
    rng = random.Random(7)
    have = ctx.store.read(lambda c: c.execute(select(func.count()).select_from(SKILL)).scalar_one())
    for k in range(total - int(have)):
        name = f"bench-skill-{k:03d}"
        words = rng.sample(WORDS, 6)
        (folder / name).mkdir(parents=True)
        (folder / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: How to {' '.join(words)}.\n"
            f"tags: [{rng.choice(WORDS)}, {rng.choice(WORDS)}]\n---\nSteps.\n"
        )
    assert not import_skills(ctx, folder).errors
    return sorted(ctx.store.read(lambda c: list(c.execute(select(SKILL.c.name)).scalars())))


def session_row(sid: str, at: datetime) -> dict[str, Any]:
    """A recovered session started at ``at`` (the bench's sessions differ only there)."""
    return {
        "id": sid,
        "harness": "claude-code",
        "native_id": sid,
        "models": [],
        "started_at": at,
        "source_path": "/bench",
        "imported_at": at,
        "updated_at": at,
        "reasoning_tokens": 0,
        **dict.fromkeys(TOKENS, 0),
    }


def _insert_rows(conn: Any, rows: list[dict[str, Any]]) -> None:
    conn.execute(insert(SESSION), rows)


def sessions(ctx: Context, per_member: int) -> dict[str, list[tuple[str, datetime]]]:
    """``per_member`` sessions for each member, one every 20 minutes, filed by triage."""
    out: dict[str, list[tuple[str, datetime]]] = {}
    for m, member in enumerate(MEMBERS):
        rows: list[dict[str, Any]] = []
        for k in range(per_member):
            at = START + timedelta(minutes=20 * k, seconds=m)
            sid = f"s{member[:3]}{k:07d}"
            rows.append(session_row(sid, at))
        for part in range(0, len(rows), 20_000):
            chunk = rows[part : part + 20_000]
            ctx.store.write(partial(_insert_rows, rows=chunk))
        classify(ctx, [r["id"] for r in rows], member)
        out[member] = [(r["id"], r["started_at"]) for r in rows]
    return out


def event(member: str, skill: str, kind: str, at: datetime, pos: int, **kw: Any) -> dict[str, Any]:
    base = {
        "member": member,
        "skill": skill,
        "kind": kind,
        "value": None,
        "outcome": None,
        "session_id": None,
        "execution_id": None,
        "target_id": None,
        "track": None,
        "session_pos": float(pos),
        "day": day_of(at),
        "at": at,
        "actor": "bench",
        "reason": "",
        "basis": None,
    }
    base.update(kw)
    return base


def log(
    ctx: Context,
    skills: list[str],
    axes: dict[str, list[tuple[str, datetime]]],
    mix: str,
) -> int:
    """Write about ``total`` skill events (bulk, in chunks); returns how many."""
    rng = random.Random(11)
    written = 0
    batch: list[dict[str, Any]] = []

    def flush() -> None:
        nonlocal batch, written
        if batch:
            ctx.store.write(lambda c: c.execute(insert(SKILL_EVENT), batch))
            written += len(batch)
            batch = []

    natives = {m: set(get_member(ctx, m).native_skills) for m in MEMBERS}
    for member in MEMBERS:
        for skill in skills:
            if skill in natives[member]:
                continue  # in the set since the team was loaded
            batch.append(
                event(
                    member, skill, "added", START - timedelta(days=1), 0, value=1.0, reason="added"
                )
            )
    flush()
    per_session = 10
    for k in range(max(len(v) for v in axes.values())):
        for member in MEMBERS:
            if k >= len(axes[member]):
                continue
            sid, at = axes[member][k]
            picked = rng.sample(skills, per_session)
            for i, skill in enumerate(picked):
                used = mix == "uses" or i < 2
                if used:
                    ok = rng.random() < 0.85
                    batch.append(
                        event(
                            member,
                            skill,
                            "used",
                            at,
                            k + 1,
                            session_id=sid,
                            value=1.0 if ok else 0.25,
                            outcome="success" if ok else "failure",
                        )
                    )
                else:
                    kind = "read" if i < 4 else "projected"
                    batch.append(event(member, skill, kind, at, k + 1, session_id=sid))
        if len(batch) >= 50_000:
            flush()
    flush()
    # A few histories the aggregate cannot take: corrections, tracks, uses outside sessions.
    extra: list[dict[str, Any]] = []
    last = {m: axes[m][-1][1] for m in MEMBERS}
    for n in range(50):
        member, skill = MEMBERS[n % 5], skills[n]
        extra.append(
            event(member, skill, "track_changed", last[member], len(axes[member]), track="time")
        )
        extra.append(
            event(
                member,
                skill,
                "used",
                last[member] + timedelta(minutes=n),
                len(axes[member]),
                value=1.0,
                outcome="success",
            )
        )
    batch = extra
    flush()
    return written


def floors(ctx: Context) -> dict[str, Callable[[], Any]]:
    def plain(sql: str) -> Callable[[], Any]:
        return lambda: ctx.store.read(lambda c: c.execute(text(sql)).fetchall())

    out = {
        "planned": plain(
            "SELECT member, skill, count(*), sum(value) FROM skill_event GROUP BY member, skill"
        )
    }
    if ctx.store.engine.dialect.name == "sqlite":
        out["scan"] = plain(
            "SELECT member, skill, count(*), sum(value) FROM skill_event NOT INDEXED "
            "GROUP BY member, skill"
        )
    return out


def new_sessions(ctx: Context, member: str, starts: dict[str, datetime]) -> list[SessionRef]:
    """More sessions of ``member``, filed by triage at once (its axis moves, weights rebuilt)."""
    rows = [session_row(sid, at) for sid, at in starts.items()]
    ctx.store.write(lambda c: c.execute(insert(SESSION), rows))
    classify(ctx, list(starts), member)
    refs = ctx.store.read(lambda c: [session_ref(c, member, sid) for sid in starts])
    assert all(refs)
    return [ref for ref in refs if ref is not None]


def _stale_cache(ctx: Context) -> None:
    """Make every cache row differ from the log's (untimed), so a rebuild rewrites all."""
    ctx.store.write(
        lambda c: c.execute(update(MEMBER_SKILL).values(w_ref=MEMBER_SKILL.c.w_ref + 1.0))
    )


def bench_rebuild(ctx: Context, params: Any, now: datetime, repeats: int) -> None:
    """The rebuild and its floors, interleaved so that a busy machine slows them alike:
    the rebuild as `viva skill rebuild` usually finds the cache (equal to the log, so no
    row is written) and with every row of the cache made stale first (all rewritten)."""
    work = floors(ctx)
    work["rebuild"] = lambda: ctx.store.write(lambda c: rebuild_members(c, params, now))
    work["rewrite"] = lambda: ctx.store.write(lambda c: rebuild_members(c, params, now))
    times: dict[str, list[float]] = {name: [] for name in work}
    for _ in range(repeats):
        for name, run in work.items():
            if name == "rewrite":
                _stale_cache(ctx)
            t0 = time.perf_counter()
            run()
            times[name].append(time.perf_counter() - t0)
    medians = {name: statistics.median(ts) for name, ts in times.items()}
    rebuild, rewrite = medians.pop("rebuild"), medians.pop("rewrite")
    stats: dict[str, int] = {}
    ctx.store.read(lambda c: compute_states(c, params, now, None, stats))
    for label, figure in (("cache current", rebuild), ("every row rewritten", rewrite)):
        shown = ", ".join(f"{n} {v:.3f} s ({figure / v:.2f}×)" for n, v in medians.items())
        print(
            f"rebuild (all members, {label}): {figure:.3f} s (target ≤ 1.5× the floor) — "
            f"floor: plain aggregate {shown}"
        )
    print(f"  {stats['fast']} pairs by the aggregate, {stats['slow']} one by one")


class BareInsert:
    """The floor of a committed use: one INSERT of a skill event and its COMMIT, straight
    through the DBAPI on a connection held open (no pool, no statement building: the SQL
    and its parameters are made once)."""

    def __init__(self, ctx: Context, row: dict[str, Any]) -> None:
        engine = ctx.store.engine
        self.fairy = engine.raw_connection()
        dbapi: Any = self.fairy.driver_connection
        self.dbapi, self.cursor = dbapi, dbapi.cursor()
        self.sqlite = engine.dialect.name == "sqlite"
        compiled = insert(SKILL_EVENT).values(row).compile(dialect=engine.dialect)
        self.sql = compiled.string
        processed = compiled.construct_params()
        for name, bind in compiled.binds.items():
            proc = bind.type.dialect_impl(engine.dialect).bind_processor(engine.dialect)
            if proc is not None and processed.get(name) is not None:
                processed[name] = proc(processed[name])
        if compiled.positional:
            self.params: Any = [processed[n] for n in compiled.positiontup or ()]
        else:
            self.params = processed

    def __call__(self) -> None:
        if self.sqlite:
            self.cursor.execute("BEGIN IMMEDIATE")
        self.cursor.execute(self.sql, self.params)
        self.dbapi.commit()

    def round_trip(self) -> None:
        """One statement that does nothing, to the database and back (on PostgreSQL the
        first of a block also begins a transaction, which :meth:`end` ends)."""
        self.cursor.execute("SELECT 1")
        self.cursor.fetchone()

    def end(self) -> None:
        self.dbapi.rollback()

    def close(self) -> None:
        self.cursor.close()
        self.fairy.close()


def timed(times: list[float], work: Callable[[], Any]) -> Any:
    t0 = time.perf_counter()
    out = work()
    times.append(time.perf_counter() - t0)
    return out


def bench_use(ctx: Context, params: Any, now: datetime, skills: list[str]) -> None:
    """A single committed use — the whole ``record_use`` call (``viva skill use M NAME
    --outcome success --session ID``): access, the session by its id, the cached state, the
    credit check, the event, the O(1) fold into the cache, COMMIT — and the credit's write
    transaction alone, interleaved with empty transactions and bare INSERTs so that a busy
    machine slows them alike. Printed for information: there is no target."""
    member, store = "deven", ctx.store
    # The floors log reads dated after every use, so no credit check is bounded by them.
    later = now + timedelta(days=30)
    bare = BareInsert(ctx, event(member, skills[0], "read", later, 0))
    names = ("use", "credit", "bare", "trip", "core_empty", "core_insert")
    times: dict[str, list[float]] = {name: [] for name in names}
    statement = insert(SKILL_EVENT)  # compiled once, like the service's statements
    row = event(member, skills[0], "read", later, 0)
    credited = 0

    def credit_in(conn: Any, skill: str, session: SessionRef, at: datetime) -> Any:
        return credit(conn, params, at, member, skill, "success", session, None, "owner", "bench")

    # Sessions 20 minutes apart, as in the generated history, each using every active
    # skill once: 6 for `record_use`, then 6 for the credit alone (each six classified at
    # once: one rebuild).
    rounds, spacing = 6, timedelta(minutes=20)
    active: list[str] = []
    for k, kind in enumerate(("use", "credit")):
        starts = {
            f"sbench-{kind}{n}": now + timedelta(minutes=5) + spacing * (k * rounds + n)
            for n in range(rounds)
        }
        made = new_sessions(ctx, member, starts)
        if not active:
            os.environ["VIVA_NOW"] = (made[0].started_at + timedelta(minutes=1)).isoformat()
            active = [s.name for s in list_skills(ctx, member)]  # settled: ≤ 30 besides natives
        for session in made:
            os.environ["VIVA_NOW"] = (session.started_at + timedelta(minutes=1)).isoformat()
            at = store.now()
            # In blocks, not one by one: a write on another connection makes SQLite drop the
            # use's page cache, which a `viva skill use` process meets no more than once.
            for skill in active:
                if kind == "use":
                    done = timed(
                        times["use"],
                        partial(record_use, ctx, member, skill, "success", session=session.id),
                    )
                    credited += done.credited
                else:
                    mine = partial(credit_in, skill=skill, session=session, at=at)
                    timed(times[kind], partial(store.write, mine))
            for _ in active:
                timed(times["bare"], bare)
            for _ in active:
                timed(times["trip"], bare.round_trip)
            bare.end()
            for _ in active:
                timed(times["core_empty"], lambda: store.write(lambda c: None))
                timed(
                    times["core_insert"], lambda: store.write(lambda c: c.execute(statement, [row]))
                )
    bare.close()
    med = {name: statistics.median(ts) * 1e6 for name, ts in times.items()}
    print(
        f"single committed use (record_use): {med['use']:.0f} µs (median of "
        f"{len(times['use'])}, {credited} credited; no target) — the credit's write "
        f"transaction alone {med['credit']:.0f} µs; an empty write transaction "
        f"{med['core_empty']:.0f} µs, one Core INSERT committed {med['core_insert']:.0f} µs, "
        f"bare DBAPI INSERT + COMMIT {med['bare']:.0f} µs, one round trip (SELECT 1) "
        f"{med['trip']:.0f} µs"
    )


def bench_projection(ctx: Context) -> None:
    member = "deven"
    project(ctx, member, TASKS[0])  # the first read settles forgetting
    rng = random.Random(3)
    proj = median_of(20, lambda: project(ctx, member, rng.choice(TASKS)))
    rows = ctx.store.read(
        lambda c: list(c.execute(select(SKILL.c.name, SKILL.c.description, SKILL.c.tags)))
    )
    docs = [Doc(r.name, r.description, tuple(r.tags or ())) for r in rows]
    alone = median_of(20, lambda: bm25(rng.choice(TASKS), docs))
    print(
        f"projection over {len(docs)} library skills: {proj * 1e3:.1f} ms (target ≤ 50 ms) — "
        f"floor: BM25 alone {alone * 1e3:.1f} ms"
    )


def vacuumed(store: Store) -> str:
    """What autovacuum does shortly after a bulk load (PostgreSQL ≥ 13 vacuums a table
    that only grows, too): statistics for the plans, and the log's pages marked
    all-visible, which index-only scans need. A vacuum marks only the pages no running
    transaction may still not see — an autovacuum worker's ANALYZE, say — so it is run
    again, as autovacuum would be, until it has marked nearly all; returns a note of the
    share marked."""
    share = 0.0
    with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
        for _ in range(10):
            c.exec_driver_sql("VACUUM (ANALYZE) skill_event")
            pages, visible = c.exec_driver_sql(
                "SELECT relpages, relallvisible FROM pg_class WHERE relname = 'skill_event'"
            ).one()
            share = visible / max(pages, 1)
            if share >= 0.95:
                break
            time.sleep(2)
        c.exec_driver_sql("ANALYZE")
    return f"; vacuumed: {share:.0%} of the log's pages all-visible"


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--db-url", default=None)
    parser.add_argument("--mix", choices=("plausible", "uses"), default="plausible")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        url = args.db_url or f"sqlite:///{home / 'viva.db'}"
        store = Store.open(Config(home=home, db_url=url))
        ctx = Context(store, OWNER)
        params = skill_params({})
        t0 = time.perf_counter()
        load_team(ctx)
        skills = library(ctx, home / "library", 200)
        per_member = max(1, args.events // (len(MEMBERS) * 10))
        axes = sessions(ctx, per_member)
        written = log(ctx, skills, axes, args.mix)
        now = max(at for v in axes.values() for _, at in v) + timedelta(hours=1)
        born = (START - timedelta(days=60)).isoformat()  # the trial month is long over
        ctx.store.write(
            lambda c: c.execute(
                update(STORE_META).where(STORE_META.c.key == "created_at").values(value=born)
            )
        )
        ctx.store.write(lambda c: rebuild_members(c, params, now))
        visible = vacuumed(store) if store.engine.dialect.name != "sqlite" else ""
        print(
            f"{store.engine.dialect.name}: {written:,} skill events, {len(MEMBERS)} members × "
            f"{len(skills)} skills, {per_member:,} sessions each, mix={args.mix} "
            f"(setup {time.perf_counter() - t0:.0f} s){visible}"
        )
        bench_rebuild(ctx, params, now, args.repeats)
        bench_use(ctx, params, now, skills)
        bench_projection(ctx)
        store.close()


if __name__ == "__main__":
    main()
