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
from viva_store.access import OWNER
from viva_store.config import CONFIG_TEMPLATE, Config
from viva_store.demo.content import HARNESSES, MODELS, OUTSIDE_PROMPTS, PROJECTS, WORK
from viva_store.demo.harness_files import WRITERS, SessionSpec, Turn
from viva_store.services.executions import finish_execution, start_execution
from viva_store.services.importer import run_import
from viva_store.services.members import load_team
from viva_store.services.triage import classify, classify_nobody
from viva_store.store import Context, Store

DAYS = 35
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


@dataclass
class DemoReport:
    """What the demo built."""

    home: Path
    sessions: int = 0
    launched: int = 0
    queued: int = 0
    filed: int = 0
    steps: list[str] = field(default_factory=list)


def _turns(rng: random.Random, member: str, harness: str) -> tuple[tuple[Turn, ...], str | None]:
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
    return tuple(turns), skill


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
            turns, skill = _turns(rng, member, harness)
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
                    member, harness, spec, launched, skill if launched else None, outcome, filed
                )
            )
    return planned


def build_demo(
    home: Path, now: datetime | None = None, progress: Callable[[str], None] | None = None
) -> DemoReport:
    """Build the demo store in ``home`` (which must be empty or absent)."""
    say = progress or (lambda _m: None)
    now = now or clock.now()
    home.mkdir(parents=True, exist_ok=True)
    roots = {h: home / "harness-files" / h for h in WRITERS}
    (home / "config.toml").write_text(
        CONFIG_TEMPLATE + "\n[roots]\n" + "".join(f'{h} = "{p}"\n' for h, p in roots.items()),
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
    say(f"store created {created:%Y-%m-%d} in {home}")
    history = plan(now, rng)
    for item in history:
        WRITERS[item.harness](roots[item.harness], item.spec)
    say(f"{len(history)} sessions written as real harness files")
    # Replay day by day: launch records, then the import that recovers them.
    by_day: dict[str, list[Planned]] = {}
    for item in history:
        by_day.setdefault(item.spec.start.date().isoformat(), []).append(item)
    for day in sorted(by_day):
        items = by_day[day]
        for item in items:
            if item.launched:
                end = item.spec.start + item.spec.step * (2 * len(item.spec.turns) + 2)
                with clock.frozen(item.spec.start):
                    ex = start_execution(
                        ctx,
                        item.member,
                        item.harness,
                        item.spec.cwd,
                        task=item.spec.turns[-1].user,
                        native_session_id=item.spec.native_id,
                    )
                with clock.frozen(end):
                    finish_execution(ctx, ex.id, item.outcome)
        evening = datetime.fromisoformat(day).replace(hour=21, tzinfo=now.tzinfo)
        with clock.frozen(min(evening, now)):
            _drain(run_import(ctx, list(roots), {h: str(p) for h, p in roots.items()}))
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


def _drain(events: object) -> object:
    iterator = iter(events)  # type: ignore[call-overload]
    while True:
        try:
            next(iterator)
        except StopIteration as stop:
            return stop.value
