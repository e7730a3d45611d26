"""`viva demo`: a deterministic store with every concept populated from real harness files."""

from __future__ import annotations

import collections
from datetime import UTC, datetime
from pathlib import Path

import pytest

from viva_store.access import OWNER
from viva_store.clock import frozen
from viva_store.config import Config, load_config
from viva_store.demo.service import build_demo
from viva_store.principles.service import principle_queue
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.skills.skillset import list_skills, skill_history
from viva_store.store import Context, Store

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)


def _open(home: Path) -> Context:
    config = load_config({"VIVA_HOME": str(home)})
    return Context(Store.open(Config(home=home, db_url=config.db_url, raw=config.raw)), OWNER)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Context:
    home = tmp_path_factory.mktemp("demo")
    build_demo(home, NOW)
    return _open(home)


def test_the_demo_is_populated_through_the_real_importer(demo: Context) -> None:
    with frozen(NOW):
        sessions = list_sessions(demo, SessionFilter())
        by_harness = collections.Counter(s.harness for s in sessions)
        assert set(by_harness) == {"claude-code", "codex", "pi", "gemini"}
        queue = [s for s in sessions if s.status == "unattributed"]
        assert 20 <= len(queue) <= 80, "a triage queue of dozens"
        launched = [s for s in sessions if s.attribution_source == "execution"]
        assert len(launched) > 50
        statuses = collections.Counter(
            s.status
            for m in ("samuel", "deven", "alice", "oliver", "victor")
            for s in list_skills(demo, m, include_forgotten=True)
        )
        assert statuses["forgotten"] >= 1 and statuses["native"] >= 10
        kinds = collections.Counter(
            e.kind for m in ("deven", "oliver") for e in skill_history(demo, m)
        )
        assert kinds["would_forget"] >= 1 and kinds["used"] >= 5
        queued = principle_queue(demo)
        assert {c.status for c in queued} >= {"pending"}


def test_the_demo_is_deterministic(demo: Context, tmp_path: Path) -> None:
    build_demo(tmp_path / "again", NOW)
    again = _open(tmp_path / "again")
    with frozen(NOW):
        first = [(s.id, s.status, s.member) for s in list_sessions(demo, SessionFilter())]
        second = [(s.id, s.status, s.member) for s in list_sessions(again, SessionFilter())]
    assert first == second


def test_the_demo_never_reads_the_users_own_harness_folders(demo: Context) -> None:
    """Every harness has a root inside the demo's home, so no reader falls back to its
    default folders (the user's real sessions)."""
    from viva_store.importing.service import harness_names, roots

    home = demo.store.config.home
    for harness in harness_names():
        found = roots(harness, config_roots=demo.store.config.section("roots"), env={})
        assert found and all(home in r.path.parents for r in found), harness


def test_the_demo_has_knowledge_through_the_gate(demo: Context) -> None:
    """Members' proposals with their sources; two admitted, one of them used since; a
    live-status candidate flagged; a self-model hypothesis only recorded."""
    from viva_store.knowledge.service import brief, list_knowledge

    with frozen(NOW):
        items = {i.member: i for i in list_knowledge(demo)}
        assert set(items) == {"samuel", "deven", "alice", "oliver", "victor"}
        assert all(i.sources for i in items.values())
        lesson = items["deven"]
        assert (lesson.kind, lesson.status, lesson.words) == (
            "project_knowledge",
            "admitted",
            "reused 1 time",
        )
        assert items["alice"].status == "admitted" and items["alice"].words == "recorded"
        assert {items["oliver"].status, items["victor"].status} == {"candidate"}
        assert items["samuel"].kind == "self_model_candidate"
        assert items["samuel"].status == "candidate"
        shown = brief(demo, "deven", "add a migration", project=lesson.project)
        assert [k.id for k in shown.knowledge] == [lesson.id]
        elsewhere = brief(demo, "deven", "add a migration", project="no-such-project")
        assert lesson.id not in [k.id for k in elsewhere.knowledge]
