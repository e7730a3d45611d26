"""The demo's principle weeks: Samuel reviews members' sessions, proposes, the owner decides.

Each candidate is motivated by the member's own sessions of that week: Samuel's review
session names them, and the candidate cites that review (the coordinator can cite only
sessions it can see: its own). Times follow a working afternoon.
"""

from __future__ import annotations

import random
import uuid
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING

from viva_store import clock
from viva_store.demo.content import MODELS, PROJECTS
from viva_store.demo.harness_files import WRITERS, SessionSpec, Turn
from viva_store.importing.pipeline import run_import
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.principles.batch import batch
from viva_store.principles.decide import approve, defer, reject
from viva_store.principles.propose import propose
from viva_store.store import Context
from viva_store.triage.classify import classify

if TYPE_CHECKING:
    from viva_store.demo.service import Planned

NAMESPACE = uuid.UUID("0c6f3d8e-2b7a-4f5e-8d1c-9a4b7e2f6c13")
PRINCIPLES = [
    (
        "deven",
        "Run the full test suite before pushing, not only the tests you touched.",
        "Two pushes this week broke the build through tests nobody ran.",
    ),
    (
        "alice",
        "Write the failing test first when a bug report arrives.",
        "A rounding bug took a day to pin down without one.",
    ),
    (
        "oliver",
        "Rehearse the rollback before every release, not after an incident.",
        "A release plan had a rollback nobody had tried.",
    ),
    (
        "victor",
        "Never read a backtest without its out-of-sample period.",
        "A signal looked good in-sample only.",
    ),
    (
        "deven",
        "Keep migrations additive; never edit one that has run.",
        "An edited migration broke a teammate's store.",
    ),
    (
        "samuel",
        "Every issue says how we will know it is done.",
        "Issues came back as 'done' with different meanings.",
    ),
]


def _motivating(history: list[Planned], member: str, until: datetime) -> list[Planned]:
    """The member's sessions of the week before ``until``, the failed ones first."""
    week = [
        i
        for i in history
        if i.member == member and until - timedelta(days=7) <= i.spec.start < until
    ]
    return sorted(week, key=lambda i: (i.outcome == 0, -i.spec.start.timestamp()))[:2]


def _review(
    ctx: Context, roots: dict[str, Path], at: datetime, member: str, why: str, text: str,
    seen: list[Planned],
) -> str:  # fmt: skip
    """Samuel's review session about ``member``, written, imported and filed to him."""
    named = " and ".join(f"“{i.task}”" for i in seen) or "this week's sessions"
    native = str(uuid.uuid5(NAMESPACE, f"review-{member}-{at.isoformat()}"))
    spec = SessionSpec(
        native_id=native,
        cwd=PROJECTS["samuel"][0],
        start=at,
        turns=(
            Turn(
                f"Review {member}'s sessions of this week for a principle candidate.",
                f"{why} See {named}. Candidate for {member}: {text}",
            ),
        ),
        model=MODELS["claude-code"],
        title=None,
    )
    WRITERS["claude-code"](roots["claude-code"], spec)
    with clock.frozen(at + timedelta(minutes=5)):
        for _ in run_import(ctx, ["claude-code"], {"claude-code": str(roots["claude-code"])}):
            pass
        classify(ctx, [native], "samuel", note="the coordinator's review")
    return native


def principles_week(
    ctx: Context,
    history: list[Planned],
    roots: dict[str, Path],
    day: datetime,
    rng: random.Random,
    decide: bool,
) -> None:
    """Samuel reviews, proposes and batches a week's candidates; the owner decides some."""
    token = issue_grant(ctx, "samuel", note="demo coordinator").token
    samuel = ctx.as_actor(resolve_actor(ctx.store, token))
    chosen = PRINCIPLES[:3] if decide else PRINCIPLES[3:]
    candidates = []
    at = day.replace(hour=15, minute=rng.randint(0, 20))
    for member, text, why in chosen:
        at += timedelta(minutes=rng.randint(12, 30))
        review = _review(ctx, roots, at, member, why, text, _motivating(history, member, at))
        with clock.frozen(at + timedelta(minutes=rng.randint(8, 15))):
            candidates.append(propose(samuel, member, text, why, evidence=[review]))
    with clock.frozen(at + timedelta(minutes=40)):
        batch(samuel)
    if not decide:
        with clock.frozen(at + timedelta(hours=2, minutes=rng.randint(0, 30))):
            defer(ctx, candidates[0].id, note="talk with victor first")
        return
    first = candidates[1].text.replace("first", "first, and keep it")
    decisions = (
        lambda: approve(ctx, candidates[0].id, note="agreed"),
        lambda: approve(ctx, candidates[1].id, text=first),
        lambda: reject(ctx, candidates[2].id, reason="already in oliver's release checklist"),
    )
    decided = at + timedelta(hours=1, minutes=rng.randint(5, 25))
    for act in decisions:
        decided += timedelta(minutes=rng.randint(2, 9))
        with clock.frozen(decided):
            act()
