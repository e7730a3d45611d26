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
from viva_store.config import Config
from viva_store.config_template import config_template
from viva_store.demo.content import HARNESSES, MODELS, PROJECTS
from viva_store.demo.harness_files import WRITERS, SessionSpec, Turn
from viva_store.demo.knowledge_week import knowledge_week
from viva_store.demo.principles_week import principles_week
from viva_store.demo.reuse import fingerprint, is_demo, mark_built, reusable
from viva_store.demo.stories import AD_HOC, OUTSIDE_PROMPTS, TASKS, follow_ups, task
from viva_store.engagement.rules import Observation
from viva_store.engagement.service import observe, set_state
from viva_store.importing.harness.registry import names as harness_names
from viva_store.importing.pipeline import run_import
from viva_store.members.executions import finish_execution, start_execution
from viva_store.members.roster import list_members, load_team
from viva_store.skills.skillset import add_skill, list_skills, reclaim_skill
from viva_store.skills.uses import record_use
from viva_store.store import Context, Store
from viva_store.triage.classify import classify, classify_nobody

__all__ = ["DemoReport", "build_demo", "fingerprint", "is_demo", "mark_built", "reusable"]

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
    prompt, reply, skill = task(rng, member)
    turns = [Turn(prompt, reply)]
    if skill and harness == "claude-code":
        # The member reads the projected skill with the harness's own tool.
        turns = [
            Turn(prompt, f"I'll follow the {skill} skill.", "Skill", {"skill": skill}),
            Turn("Go ahead.", reply),
        ]
    elif skill and harness == "codex":
        path = f".codex/skills/{skill}/SKILL.md"
        turns = [
            Turn(prompt, f"Reading {skill} first.", "shell", {"command": ["cat", path]}, "# steps"),
            Turn("Go ahead.", reply),
        ]
    turns += [Turn(user, said) for user, said in follow_ups(rng, member, rng.randint(0, 3))]
    return tuple(turns), skill, prompt


def _folder(rng: random.Random, member: str) -> str:
    """Mostly the member's own projects; now and then a teammate's (as teams do)."""
    if rng.random() < 0.25:
        other = rng.choice(sorted(set(PROJECTS) - {member}))
        return rng.choice(PROJECTS[other])
    return rng.choice(PROJECTS[member])


def plan(now: datetime, rng: random.Random) -> list[Planned]:
    """The history to write: about six sessions a day over five weeks."""
    planned: list[Planned] = []
    start = (now - timedelta(days=DAYS)).replace(hour=0, minute=0, second=0, microsecond=0)
    for day in range(DAYS):
        for _ in range(rng.randint(3, 8)):
            member = rng.choice(list(TASKS))
            harness = rng.choice(HARNESSES[member])
            at = start + timedelta(days=day, hours=rng.randint(8, 19), minutes=rng.randint(0, 59))
            if at >= now - timedelta(hours=1):
                continue
            turns, skill, task = _turns(rng, member, harness)
            launched = rng.random() < 0.6
            if not launched and rng.random() < 0.15:
                turns = (Turn(rng.choice(OUTSIDE_PROMPTS), "Here is how."),)
                skill = None
            elif not launched and rng.random() < 0.35:
                # Sessions started by hand are often about whatever was on screen.
                prompt, reply = rng.choice(AD_HOC)
                turns, skill = (Turn(prompt, reply),), None
            native = str(uuid.uuid5(NAMESPACE, f"{member}-{harness}-{at.isoformat()}"))
            spec = SessionSpec(
                native_id=native,
                cwd=_folder(rng, member),
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
        config_template()
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
        for member, work in TASKS.items():
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
    for day_index, day in enumerate(sorted(by_day)):
        items = sorted(by_day[day], key=lambda i: i.spec.start)
        for item in items:
            _replay(ctx, item, roots, now)
        filed = [i for i in items if i.filed]
        last = max(_end(i) for i in items)
        # The owner files the day's outside sessions once the day's work is done.
        settle = min(last + timedelta(minutes=rng.randint(10, 90)), now)
        with clock.frozen(settle):
            for member in sorted({i.member for i in filed}):
                classify(ctx, [i.spec.native_id for i in filed if i.member == member], member)
            strays = [
                i
                for i in items
                if not i.launched and not i.filed and i.spec.turns[0].user in OUTSIDE_PROMPTS
            ]
            if strays and rng.random() < 0.5:
                classify_nobody(ctx, [strays[0].spec.native_id])
            for member in TASKS:
                list_skills(ctx, member)  # reading settles due forgetting (a trial logs only)
        at = datetime.fromisoformat(day).replace(tzinfo=now.tzinfo)
        if day_index == len(by_day) - 8:
            principles_week(ctx, history, roots, at, rng, decide=True)
        if day_index == len(by_day) - 2:
            principles_week(ctx, history, roots, at, rng, decide=False)
            with clock.frozen(min(at.replace(hour=17, minute=rng.randint(0, 59)), now)):
                _reclaim_one(ctx)
        if day_index == len(by_day) - 3:
            with clock.frozen(min(at.replace(hour=9, minute=rng.randint(5, 40)), now)):
                set_state(ctx, "victor", {"counterpart": "samuel"}, note="weekly review")
                set_state(ctx, "oliver", {"activity": "operations"}, note="release week")
    knowledge_week(ctx, history, now)
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


def _end(item: Planned) -> datetime:
    return item.spec.start + item.spec.step * (2 * len(item.spec.turns) + 2)


def _replay(ctx: Context, item: Planned, roots: dict[str, Path], now: datetime) -> None:
    """One session as it happened: launched (with its engagement observed), written by
    its harness, recovered by the watcher's import a few minutes after it ended."""
    ended = _end(item)
    if item.launched:
        with clock.frozen(item.spec.start):
            observe(ctx, Observation(item.member, item.spec.cwd, item.harness, item.task))
            ex = start_execution(
                ctx,
                item.member,
                item.harness,
                item.spec.cwd,
                task=item.task,
                native_session_id=item.spec.native_id,
            )
        with clock.frozen(ended):
            finish_execution(ctx, ex.id, item.outcome)
    WRITERS[item.harness](roots[item.harness], item.spec)
    with clock.frozen(min(ended + timedelta(minutes=2), now)):
        _drain(run_import(ctx, [item.harness], {item.harness: str(roots[item.harness])}))
        # pi and Gemini sessions have no skill tool in the written transcript: the
        # member recorded the use itself (`viva skill use`).
        if item.launched and item.skill and item.harness in ("pi", "gemini"):
            outcome = "success" if item.outcome == 0 else "failure"
            _use(ctx, item.member, item.skill, outcome, item.spec.native_id)


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
    for member in TASKS:
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
