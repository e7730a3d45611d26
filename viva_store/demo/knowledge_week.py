"""The demo's knowledge: what the team proposed from its sessions, and what the gate did.

A project lesson that came back twice (admitted by the owner, then used in a later
session, so it reads "reused 1 time"); a personal memory that was costly to find; a team
candidate and a statement of live status still waiting at the gate (the latter flagged);
and a self-model hypothesis, which is only ever recorded. Each cites the member's own
sessions that motivate it.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from viva_store import clock
from viva_store.importing.prepare import project_name
from viva_store.knowledge.gate import admit, propose
from viva_store.knowledge.lifecycle import use
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.store import Context

if TYPE_CHECKING:
    from viva_store.demo.service import Planned


def _theirs(history: Sequence[Planned], member: str, word: str = "") -> list[Planned]:
    """The member's attributed sessions (launched or filed), oldest first; those whose
    first prompt holds ``word`` first when any do."""
    own = sorted(
        (i for i in history if i.member == member and (i.launched or i.filed)),
        key=lambda i: i.spec.start,
    )
    about = [i for i in own if word and word in i.spec.turns[0].user.lower()]
    return about if len(about) >= 2 else own


def _as(ctx: Context, member: str) -> Context:
    """``ctx`` acting as ``member`` under a grant of its own, as a member's session does."""
    token = issue_grant(ctx, member, note="demo knowledge").token
    return ctx.as_actor(resolve_actor(ctx.store, token))


def knowledge_week(ctx: Context, history: Sequence[Planned], now: datetime) -> None:
    """Members propose the demo's knowledge items, an afternoon before ``now``; the owner
    admits two, and one is used in a later session."""
    at = now - timedelta(hours=5)
    # Deven's lesson belongs to the project Deven works in now (the engagement state's,
    # from the latest launch), drawn from two sessions there and used in the latest one.
    launched = [i for i in history if i.member == "deven" and i.launched]
    current = project_name(max(launched, key=lambda i: i.spec.start).spec.cwd)
    deven = [i for i in _theirs(history, "deven") if project_name(i.spec.cwd) == current]
    alice = _theirs(history, "alice", "clock")
    oliver = _theirs(history, "oliver", "feed")
    victor = _theirs(history, "victor", "report")
    samuel = _theirs(history, "samuel", "review")
    with clock.frozen(at):
        members = {m: _as(ctx, m) for m in ("deven", "alice", "oliver", "victor", "samuel")}
        lesson = propose(
            members["deven"],
            "deven",
            "project_knowledge",
            "A migration that has run is never edited: a change is a new, additive migration.",
            "recurred",
            [deven[0].spec.native_id, deven[1].spec.native_id],
            body=(
                "Editing an applied migration left a teammate's store at a schema no "
                "migration describes. Add a new revision instead, and test the upgrade on a "
                "copy of a real store."
            ),
            project=current,
            importance=0.8,
            why="a broken store costs a teammate an afternoon",
        )
        memory = propose(
            members["alice"],
            "alice",
            "personal_memory",
            "Snapshot tests need a frozen clock: wall-clock times made them flaky.",
            "costly",
            [alice[-1].spec.native_id],
            evidence="a day of chasing a flaky snapshot before the clock was found",
        )
        propose(
            members["oliver"],
            "oliver",
            "team_knowledge",
            "The minute-bar feed lags on the hour; an alert before five past is usually noise.",
            "recurred",
            [oliver[0].spec.native_id, oliver[1].spec.native_id],
        )
        propose(
            members["victor"],
            "victor",
            "team_knowledge",
            "The weekly report PR is merged and the usage counters are fixed.",
            "costly",
            [victor[-1].spec.native_id],
            evidence="the counters were read wrong for two weeks",
        )
        propose(
            members["samuel"],
            "samuel",
            "self_model_candidate",
            "I underestimate how long a week's review takes when several members overlap.",
            "surprised",
            [samuel[-1].spec.native_id],
            evidence="two reviews this month ran past the afternoon planned for them",
        )
    with clock.frozen(at + timedelta(hours=1)):
        admit(ctx, lesson, "seen twice; it belongs to the project")
        admit(ctx, memory)
    with clock.frozen(at + timedelta(hours=2)):
        use(members["deven"], lesson, deven[-1].spec.native_id)
