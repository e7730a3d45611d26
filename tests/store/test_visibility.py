"""DESIGN I5: a member-scoped call never returns another member's data.

Every member is seeded with private data carrying a unique marker (its soul,
a grant note, an execution's task, a session's title and messages); every read
function the store registers is then called as deven, and no other member's
marker may appear anywhere in what comes back. A reader this test does not
know how to call fails the test, so new readers cannot skip the check.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_members
from tests.store.test_principles_support import principle_reader
from tests.store_templates import Template, load_shipped_team
from viva_store.access import OWNER
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.engagement import service as engagement
from viva_store.errors import AccessDenied, NotFound
from viva_store.export import service as export
from viva_store.importing.pipeline import run_import
from viva_store.knowledge import service as knowledge
from viva_store.members import executions, grants
from viva_store.members import service as members
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.members.roster import load_team
from viva_store.principles import service as principles
from viva_store.recall import search as recall
from viva_store.registry import READERS
from viva_store.reports import weekly as report
from viva_store.sessions import service as sessions
from viva_store.skills import library
from viva_store.skills import project as skill_project
from viva_store.skills import service as skillset
from viva_store.skills import uses as skill_uses
from viva_store.store import Context
from viva_store.triage import suggest
from viva_store.triage.classify import classify
from viva_store.usage import service as usage
from viva_tui.commands.common import to_jsonable

NAMES = ("samuel", "deven", "alice", "oliver", "victor")


def marker(member: str) -> str:
    return f"private-marker-of-{member}"


def native_id(member: str) -> str:
    return f"{NAMES.index(member):08d}-0000-4000-8000-{member:0>12}"[:36]


def seed(ctx: Context, tmp_path: Path) -> None:
    """On the shipped team: every member's markers, its sessions imported and classified."""
    team = copy_members(tmp_path / "team")
    for name in NAMES:
        soul = team / name / "soul.md"
        soul.write_text(soul.read_text() + f"\n{marker(name)}\n")
    assert load_team(ctx, team).errors == ()
    root = tmp_path / "claude"
    for name in NAMES:
        issue_grant(ctx, name, note=marker(name))
        executions.start_execution(ctx, name, "claude-code", f"/src/{name}", task=marker(name))
        claude_code(
            root,
            SessionSpec(
                native_id=native_id(name),
                cwd=f"/home/{name}/work",
                start=datetime(2026, 11, 2 + NAMES.index(name), 9, tzinfo=UTC),
                turns=(Turn(f"tell me about {marker(name)}", f"reply {marker(name)}"),),
                model="m",
                title=marker(name),
            ),
        )
    events = run_import(ctx, ["claude-code"], {"claude-code": str(root)})
    for _ in events:
        pass
    for name in NAMES:
        classify(ctx, [native_id(name)], name)
    seed_knowledge(ctx)


def seed_knowledge(ctx: Context) -> None:
    """Each member's private knowledge — a personal memory and a self-model hypothesis
    carrying its marker — and knowledge of its project, which belongs to the project, not
    the member: it carries no marker (``tests/cli/test_knowledge_walk.py`` checks it)."""
    for name in NAMES:
        for kind, project in (
            ("personal_memory", None),
            ("self_model_candidate", None),
            ("project_knowledge", f"proj-{name}"),
        ):
            text = f"notes of proj-{name}" if project else marker(name)
            item = knowledge.propose(
                ctx, name, kind, f"{text} {kind}", "costly", [native_id(name)],
                body=text, evidence="took a day", project=project,
            )  # fmt: skip
            if kind != "self_model_candidate":
                knowledge.admit(ctx, item)


def _team_then_seed(ctx: Context, files: Path) -> None:
    load_shipped_team(ctx)
    seed(ctx, files)


SEEDED = Template("visibility-seed", _team_then_seed)
pytestmark = pytest.mark.store_template(SEEDED)  # each test's store starts seeded


def safe(call: Callable[[], Any]) -> Any:
    """A refusal or a not-found is fine: nothing was returned."""
    try:
        return call()
    except (AccessDenied, NotFound):
        return None


def per_member(fn: Callable[[Context, str], Any]) -> Callable[[Context], list[Any]]:
    """Call a reader that takes an id once for every member's item, separately."""
    return lambda c: [safe(functools.partial(fn, c, n)) for n in NAMES]


def per_execution(c: Context) -> list[Any]:
    ids = [e.id for e in executions.list_executions(c.as_actor(OWNER))]
    return [safe(functools.partial(executions.get_execution, c, i)) for i in ids]


CALLS: dict[str, Callable[[Context], Any]] = {
    "viva_store.skills.library.list_library": library.list_library,
    "viva_store.skills.library.get_skill": lambda c: library.get_skill(c, "code-review"),
    "viva_store.members.roster.list_members": members.list_members,
    "viva_store.members.roster.get_member": per_member(members.get_member),
    "viva_store.members.grants.list_grants": grants.list_grants,
    "viva_store.members.executions.list_executions": executions.list_executions,
    "viva_store.members.executions.get_execution": per_execution,
    "viva_store.sessions.service.list_sessions": sessions.list_sessions,
    "viva_store.sessions.service.member_activity": sessions.member_activity,
    "viva_store.sessions.service.get_session": per_member(
        lambda c, n: sessions.get_session(c, native_id(n))
    ),
    "viva_store.sessions.service.session_messages": per_member(
        lambda c, n: sessions.session_messages(c, native_id(n))
    ),
    "viva_store.sessions.service.member_timeline": per_member(sessions.member_timeline),
    "viva_store.sessions.service.related_sessions": per_member(
        lambda c, n: sessions.related_sessions(c, native_id(n))
    ),
    "viva_store.export.service.export_transcript": per_member(
        lambda c, n: export.export_transcript(c, native_id(n))
    ),
    "viva_store.triage.suggest.suggest": suggest.suggest,
    "viva_store.principles.service.active_principles": principle_reader(
        marker, principles.active_principles, NAMES
    ),
    "viva_store.principles.service.principle_queue": principle_reader(
        marker, principles.principle_queue
    ),
    "viva_store.principles.service.principle_history": principle_reader(
        marker, principles.principle_history
    ),
    "viva_store.reports.weekly.weekly_report": principle_reader(marker, report.weekly_report),
    "viva_store.usage.service.usage": lambda c: [
        usage.usage(c, by=by) for by in ("project", "member", "branch", "harness")
    ],
    "viva_store.recall.search.recall": lambda c: [
        recall.recall(c, "private marker", limit=50),
        recall.recall(c, "tell me about", order="newest", limit=50),
        per_member(lambda c2, n: recall.recall(c2, marker(n), member=n))(c),
    ],
    "viva_store.engagement.service.get_state": per_member(engagement.get_state),
    "viva_store.engagement.service.state_history": per_member(engagement.state_history),
    "viva_store.skills.skillset.list_skills": per_member(
        lambda c, n: skillset.list_skills(c, n, include_forgotten=True)
    ),
    "viva_store.skills.skillset.skill_history": per_member(skillset.skill_history),
    "viva_store.skills.skillset.skill_curve": per_member(
        lambda c, n: skillset.skill_curve(
            c, n, members.get_member(c.as_actor(OWNER), n).native_skills[0]
        )
    ),
    "viva_store.skills.project.project": per_member(
        lambda c, n: skill_project.project(c, n, f"work on {marker(n)}")
    ),
    "viva_store.skills.uses.read_skill": lambda c: skill_uses.read_skill(c, "code-review"),
    "viva_store.knowledge.service.list_knowledge": lambda c: [
        knowledge.list_knowledge(c),
        per_member(lambda c2, n: knowledge.list_knowledge(c2, n, project=f"proj-{n}"))(c),
    ],
    "viva_store.knowledge.service.get_item": lambda c: [
        safe(functools.partial(knowledge.get_item, c, r.id, r.project))
        for r in knowledge.list_knowledge(c.as_actor(OWNER))
    ],
    "viva_store.knowledge.service.knowledge_for_task": per_member(
        lambda c, n: knowledge.knowledge_for_task(c, n, f"work on {marker(n)}", f"proj-{n}")
    ),
    "viva_store.knowledge.service.review_queue": knowledge.review_queue,
    "viva_store.knowledge.brief.brief": per_member(
        lambda c, n: knowledge.brief(c, n, f"work on {marker(n)}", f"proj-{n}")
    ),
    "viva_store.skills.search.search_skills": per_member(
        lambda c, n: skillset.search_skills(c, "review code", member=n)
    ),
}


def test_every_reader_is_covered() -> None:
    import importlib
    import pkgutil

    import viva_store as package

    for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
        if info.name != "viva_store.migrations.env":
            importlib.import_module(info.name)
    assert set(READERS) == set(CALLS), "add new read functions to CALLS"


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_member_sees_nothing_of_another_member(ctx: Context, name: str) -> None:
    deven = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    as_member = json.dumps(to_jsonable(safe(lambda: CALLS[name](deven))))
    leaked = [m for m in NAMES if m != "deven" and marker(m) in as_member]
    assert leaked == []
    # Where deven's own data shows, the owner's call shows everyone's: the markers are reachable.
    if marker("deven") in as_member:
        as_owner = json.dumps(to_jsonable(CALLS[name](ctx)))
        assert all(marker(m) in as_owner for m in NAMES)


def test_usage_counts_only_the_actors_sessions(ctx: Context) -> None:
    """Member names and token counts are not markers: the groups are checked directly."""
    deven = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    mine = usage.usage(deven, by="member")
    assert [r.key for r in mine.rows] == ["deven"] and mine.total.sessions == 1
    everyone = usage.usage(ctx, by="member")
    assert {r.key for r in everyone.rows} == set(NAMES) and everyone.total.sessions == len(NAMES)


def test_member_activity_counts_only_what_the_actor_may_see(ctx: Context) -> None:
    """Member names are not markers: this reader's keys are checked directly."""
    deven = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    mine = sessions.member_activity(deven)
    assert list(mine) == ["deven"] and mine["deven"].sessions == 1
    everyone = sessions.member_activity(ctx)
    assert set(everyone) == set(NAMES)
    assert everyone["deven"].last_started == datetime(
        2026, 11, 2 + NAMES.index("deven"), 9, tzinfo=UTC
    )
