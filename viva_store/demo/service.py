"""``viva demo``: a deterministic store with a few weeks of team history.

The history is written as real harness files (Claude Code, Codex, pi,
Gemini CLI) and recovered by the real importer. Some sessions were launched
through Viva (an execution record attributes them), the rest wait in the
triage queue or were filed by the owner at the time. Time is replayed with
:func:`viva_store.clock.frozen`, so every event carries the instant it would
have had; the whole build honours ``VIVA_NOW``.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path

from viva_store import clock
from viva_store.access import OWNER, Actor, require_owner
from viva_store.config import CONFIG_TEMPLATE, Config
from viva_store.demo.content import HARNESSES, MODELS, OUTSIDE_PROMPTS, PROJECTS, WORK
from viva_store.demo.harness_files import WRITERS, SessionSpec, Turn
from viva_store.importing.harness.registry import names as harness_names
from viva_store.importing.pipeline import run_import
from viva_store.members.executions import finish_execution, start_execution
from viva_store.members.roster import list_members, load_team
from viva_store.skills.skillset import add_skill, list_skills, reclaim_skill
from viva_store.skills.uses import record_use
from viva_store.store import Context, Store
from viva_store.triage.classify import classify, classify_nobody

DAYS = 35
# Five weeks are too short to see forgetting at the real half-lives (a skill takes
# ~100 idle sessions to fall below 0.1), so the demo store says so and runs faster.
DEMO_SKILLS = """
# The demo compresses months into five weeks: skills decay and are forgotten faster.
[skills]
half_life_sessions = 4.0
idle_sessions = 6
protect_sessions = 3
"""
# Skills each member takes from the library early on (some used later, some not).
EXTRA_SKILLS = {
    "deven": ["log-investigation", "release-checklist", "regression-test-first"],
    "alice": ["code-review", "debugging-flaky-tests"],
    "oliver": ["cli-startup-profiling", "session-handoff"],
    "victor": ["log-investigation"],
    "samuel": ["release-checklist"],
}
SEED = 20261130
NAMESPACE = uuid.UUID("6f0b7f3e-5d8a-4c1e-9a57-2f3c9b1d0e42")


@dataclass
class Planned:
    """One session of the synthetic history."""

    member: str
    harness: str
    spec: SessionSpec
    launched: bool
    skill: str | None
    outcome: int  # exit status of a launched session
    filed: bool  # an outside session the owner filed at the time
    task: str = ""


@dataclass
class DemoReport:
    """What the demo built."""

    home: Path
    sessions: int = 0
    launched: int = 0
    queued: int = 0
    filed: int = 0
    steps: list[str] = field(default_factory=list)


def _turns(
    rng: random.Random, member: str, harness: str
) -> tuple[tuple[Turn, ...], str | None, str]:
    prompt, reply, skill = rng.choice(WORK[member])
    turns = [Turn(prompt, reply)]
    if skill and harness == "claude-code":
        # The member reads the projected skill with the harness's own tool.
        turns.insert(
            0,
            Turn(
                f"Use the {skill} skill for this.", f"Reading {skill}.", "Skill", {"skill": skill}
            ),
        )
    elif skill and harness == "codex":
        path = f".codex/skills/{skill}/SKILL.md"
        turns.insert(
            0, Turn(f"Follow {skill}.", "Read it.", "shell", {"command": ["cat", path]}, "# steps")
        )
    extra = rng.randint(0, 3)
    for n in range(extra):
        turns.append(
            Turn(f"Next step {n + 1}: check the result and continue.", "Done; the checks pass.")
        )
    return tuple(turns), skill, prompt


def plan(now: datetime, rng: random.Random) -> list[Planned]:
    """The history to write: about six sessions a day over five weeks."""
    planned: list[Planned] = []
    start = (now - timedelta(days=DAYS)).replace(hour=0, minute=0, second=0, microsecond=0)
    for day in range(DAYS):
        for _ in range(rng.randint(3, 8)):
            member = rng.choice(list(WORK))
            harness = rng.choice(HARNESSES[member])
            at = start + timedelta(days=day, hours=rng.randint(8, 19), minutes=rng.randint(0, 59))
            if at >= now - timedelta(hours=1):
                continue
            turns, skill, task = _turns(rng, member, harness)
            launched = rng.random() < 0.6
            if not launched and rng.random() < 0.15:
                turns = (Turn(rng.choice(OUTSIDE_PROMPTS), "Here is how."),)
                skill = None
            native = str(uuid.uuid5(NAMESPACE, f"{member}-{harness}-{at.isoformat()}"))
            spec = SessionSpec(
                native_id=native,
                cwd=rng.choice(PROJECTS[member]),
                start=at,
                turns=turns,
                model=MODELS[harness],
                title=None,
            )
            outcome = 0 if rng.random() < 0.8 else 1
            recent = at > now - timedelta(days=10)
            filed = not launched and not recent and rng.random() < 0.85
            planned.append(
                Planned(
                    member,
                    harness,
                    spec,
                    launched,
                    skill if launched else None,
                    outcome,
                    filed,
                    task,
                )
            )
    return planned


def build_demo(
    home: Path,
    now: datetime | None = None,
    progress: Callable[[str], None] | None = None,
    actor: Actor = OWNER,
) -> DemoReport:
    """Build the demo store in ``home`` (which must be empty or absent).

    Creating a store is the owner's job: ``actor`` acting under a member's grant is refused
    before anything is written.
    """
    require_owner(actor, "build a demo store")
    say = progress or (lambda _m: None)
    now = now or clock.now()
    home.mkdir(parents=True, exist_ok=True)
    # Every harness gets a root in the demo's home, written to or not: a demo store never
    # falls back to the harnesses' own folders, which hold the user's real sessions.
    roots = {h: home / "harness-files" / h for h in harness_names()}
    (home / "config.toml").write_text(
        CONFIG_TEMPLATE
        + DEMO_SKILLS
        + "\n[roots]\n"
        + "".join(f'{h} = "{p}"\n' for h, p in roots.items()),
        encoding="utf-8",
    )
    config = Config(home=home, db_url=f"sqlite:///{home / 'viva.db'}")
    import tomllib

    config = Config(
        home=home, db_url=config.db_url, raw=tomllib.loads((home / "config.toml").read_text())
    )
    report = DemoReport(home=home)
    rng = random.Random(SEED)
    created = now - timedelta(days=DAYS + 5)
    with clock.frozen(created):
        store = Store.open(config)
        ctx = Context(store, OWNER)
        load_team(ctx)
        natives = {m.name: set(m.native_skills) for m in list_members(ctx)}
        for member, work in WORK.items():
            used = {skill for _, _, skill in work if skill}
            for skill in sorted((used | set(EXTRA_SKILLS.get(member, ()))) - natives[member]):
                add_skill(ctx, member, skill)
    say(f"store created {created:%Y-%m-%d} in {home}")
    history = plan(now, rng)
    for root in roots.values():
        root.mkdir(parents=True, exist_ok=True)
    say(f"replaying {len(history)} sessions, written day by day as real harness files")
    # Replay day by day: launch records, then the import that recovers them.
    by_day: dict[str, list[Planned]] = {}
    for item in history:
        by_day.setdefault(item.spec.start.date().isoformat(), []).append(item)
    for day in sorted(by_day):
        items = by_day[day]
        for item in items:
            WRITERS[item.harness](roots[item.harness], item.spec)
            if item.launched:
                end = item.spec.start + item.spec.step * (2 * len(item.spec.turns) + 2)
                with clock.frozen(item.spec.start):
                    ex = start_execution(
                        ctx,
                        item.member,
                        item.harness,
                        item.spec.cwd,
                        task=item.task,
                        native_session_id=item.spec.native_id,
                    )
                with clock.frozen(end):
                    finish_execution(ctx, ex.id, item.outcome)
        evening = datetime.fromisoformat(day).replace(hour=21, tzinfo=now.tzinfo)
        with clock.frozen(min(evening, now)):
            _drain(run_import(ctx, list(WRITERS), {h: str(p) for h, p in roots.items()}))
            filed = [i for i in items if i.filed]
            for member in sorted({i.member for i in filed}):
                classify(ctx, [i.spec.native_id for i in filed if i.member == member], member)
            strays = [
                i
                for i in items
                if not i.launched and not i.filed and i.spec.turns[0].user in OUTSIDE_PROMPTS
            ]
            if strays and rng.random() < 0.5:
                classify_nobody(ctx, [strays[0].spec.native_id])
            for i in items:
                # pi and Gemini sessions have no skill tool in the written transcript: the
                # member recorded the use itself (`viva skill use`).
                if i.launched and i.skill and i.harness in ("pi", "gemini"):
                    outcome = "success" if i.outcome == 0 else "failure"
                    _use(ctx, i.member, i.skill, outcome, i.spec.native_id)
            for member in WORK:
                list_skills(ctx, member)  # reading settles due forgetting (a trial logs only)
        day_index = sorted(by_day).index(day)
        if day_index == len(by_day) - 8:
            with clock.frozen(min(evening, now)):
                _principles_week(ctx, history, decide=True)
        if day_index == len(by_day) - 2:
            with clock.frozen(min(evening, now)):
                _principles_week(ctx, history, decide=False)
                _reclaim_one(ctx)
    report.sessions = len(history)
    report.launched = sum(i.launched for i in history)
    report.filed = sum(i.filed for i in history)
    report.queued = report.sessions - report.launched - report.filed
    say(
        f"{report.launched} launched through Viva, {report.filed} filed by the owner, "
        f"{report.queued} left for triage"
    )
    store.close()
    return report


PRINCIPLES = [
    (
        "deven",
        "Run the full test suite before pushing, not only the tests you touched.",
        "Two pushes this week broke the build through tests nobody ran.",
    ),
    (
        "alice",
        "Write the failing test first when a bug report arrives.",
        "The ledger rounding bug took a day to pin down without one.",
    ),
    (
        "oliver",
        "Rehearse the rollback before every release, not after an incident.",
        "The 2.3 release plan had a rollback nobody had tried.",
    ),
    (
        "victor",
        "Never read a backtest without its out-of-sample period.",
        "The momentum signal looked good in-sample only.",
    ),
    (
        "deven",
        "Keep migrations additive; never edit one that has run.",
        "An edited migration broke a teammate's store.",
    ),
    (
        "samuel",
        "Every issue says how we will know it is done.",
        "Three issues this week came back as 'done' with different meanings.",
    ),
]


def _principles_week(ctx: Context, history: list[Planned], decide: bool) -> None:
    """Samuel gathers candidates from the week's sessions; the owner decides some."""
    from viva_store.members.grants import issue_grant, resolve_actor
    from viva_store.principles.batch import batch
    from viva_store.principles.decide import approve, defer, reject
    from viva_store.principles.propose import propose
    from viva_store.triage.classify import classify

    samuel = ctx.as_actor(
        resolve_actor(ctx.store, issue_grant(ctx, "samuel", note="demo coordinator").token)
    )
    chosen = PRINCIPLES[:3] if decide else PRINCIPLES[3:]
    candidates = []
    for member, text, why in chosen:
        # Samuel can cite only sessions he can see: his own, so the owner files one to him.
        mine = [i for i in history if i.member == "samuel" and i.spec.start <= ctx.store.now()]
        evidence = [mine[-1].spec.native_id] if mine else []
        if evidence:
            classify(ctx, evidence, "samuel")
        candidates.append(propose(samuel, member, text, why, evidence=evidence))
    batch(samuel)
    if decide:
        approve(ctx, candidates[0].id, note="agreed")
        approve(
            ctx, candidates[1].id, text=candidates[1].text.replace("first", "first, and keep it")
        )
        reject(ctx, candidates[2].id, reason="already in oliver's release checklist skill")
    else:
        defer(ctx, candidates[0].id, note="talk with victor first")


def _use(ctx: Context, member: str, skill: str, outcome: str, session: str) -> None:
    """The member records its use (under its own grant); a member wanting a skill it has
    forgotten takes it back first, as members may without approval."""
    from viva_store.members.grants import issue_grant, resolve_actor

    token = issue_grant(ctx, member, note="demo: the member's session").token
    ctx = ctx.as_actor(resolve_actor(ctx.store, token))
    forgotten = {
        s.name for s in list_skills(ctx, member, include_forgotten=True) if s.status == "forgotten"
    }
    if skill in forgotten:
        reclaim_skill(ctx, member, skill)
    record_use(ctx, member, skill, outcome, session=session)


def _reclaim_one(ctx: Context) -> None:
    """A member takes back a skill that was forgotten, as members may without approval."""
    for member in WORK:
        gone = [
            s for s in list_skills(ctx, member, include_forgotten=True) if s.status == "forgotten"
        ]
        if gone:
            reclaim_skill(ctx, member, gone[0].name)
            return


def _drain(events: object) -> object:
    iterator = iter(events)  # type: ignore[call-overload]
    while True:
        try:
            next(iterator)
        except StopIteration as stop:
            return stop.value
