"""``viva report weekly``: one ISO week of real activity, per member, in three formats.

Sessions go through the real importer and the owner's triage; principles through
the real services. Skill events are written straight into ``skill_event`` (the
skill-set service is another feature's; the report reads the log directly, so
the rows are exactly what that service writes).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import insert, select

from tests.cli.runner import run
from tests.store.test_principles_support import T0, as_member, frozen, make_sessions
from viva_store.db.schema import SKILL_EVENT
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.errors import InvalidInput
from viva_store.importing.pipeline import run_import
from viva_store.principles.service import approve, batch, propose, reject
from viva_store.reports.markdown import report_markdown
from viva_store.reports.weekly import weekly_report
from viva_store.store import Context
from viva_store.triage.classify import classify_nobody
from viva_tui.commands.common import to_jsonable


def skill_events(
    ctx: Context, at: datetime, rows: list[tuple[str, str, str, dict[str, Any]]]
) -> None:
    """Append ``(member, skill, kind, extra)`` rows to the skill event log at ``at``."""
    blank = {
        "value": None,
        "outcome": None,
        "track": None,
        "target_id": None,
        "session_pos": 0.0,
        "day": 0.0,
    }
    ctx.store.write(
        lambda c: c.execute(
            insert(SKILL_EVENT),
            [
                {"member": m, "skill": s, "kind": k, "at": at, "actor": "owner", **blank, **extra}
                for m, s, k, extra in rows
            ],
        )
    )


@pytest.fixture
def week(ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Context:
    """2026-W48 with sessions, triage, principles and skill events; some noise in W49."""
    root = tmp_path / "claude"
    with frozen(monkeypatch, T0):
        make_sessions(ctx, root, {"deven": 2, "alice": 1})
        for n, title in enumerate(("stray", "nobody's")):
            claude_code(
                root,
                SessionSpec(
                    native_id=f"99999999-0000-4000-8000-00000000000{n}",
                    cwd="/tmp/elsewhere",
                    start=T0,
                    turns=(Turn("hello", "hi"),),
                    model="m",
                    title=title,
                ),
            )
        for _ in run_import(ctx, ["claude-code"], {"claude-code": str(root)}):
            pass
        classify_nobody(ctx, ["99999999-0000-4000-8000-000000000001"])
        samuel = as_member(ctx, "samuel")
        kept = propose(samuel, "deven", "Run the tests before every commit.", "broken builds")
        dropped = propose(as_member(ctx, "deven"), "deven", "Never write docs.", "slow")
        batch(samuel)
        approve(ctx, kept.id, text="Run the full test suite before every commit.")
        reject(ctx, dropped.id, reason="docs matter")
        skill_events(
            ctx,
            T0 + timedelta(hours=2),
            [
                ("deven", "code-review", "added", {"value": 1.0}),
                ("deven", "code-review", "used", {"value": 1.0, "outcome": "success"}),
                ("deven", "code-review", "used", {"value": 0.25, "outcome": "failure"}),
                ("deven", "python-refactoring", "reclaimed", {"value": 1.0}),
                ("deven", "sqlite-migrations", "would_forget", {}),
                ("deven", "sqlite-migrations", "would_forget", {}),
                ("deven", "python-refactoring", "track_changed", {"track": "time"}),
                ("alice", "property-based-testing", "synced", {"value": 1.0}),
                ("alice", "release-checklist", "forgotten", {}),
                ("victor", "backtest-hygiene", "read", {}),
            ],
        )
        failed = ctx.store.read(
            lambda c: c.execute(
                select(SKILL_EVENT.c.id).where(SKILL_EVENT.c.outcome == "failure")
            ).scalar_one()
        )
        correction = {"value": 0.0, "outcome": "corrected", "target_id": failed}
        skill_events(
            ctx, T0 + timedelta(hours=3), [("deven", "code-review", "revalued", correction)]
        )
    with frozen(monkeypatch, T0 + timedelta(days=7)):
        propose(ctx, "oliver", "Next week's idea.", "r")
        skill_events(
            ctx, T0 + timedelta(days=7), [("oliver", "incident-triage", "used", {"value": 1.0})]
        )
    return ctx


def test_the_week_per_member(week: Context) -> None:
    report = weekly_report(week, "2026-W48")
    assert (report.week, f"{report.start:%F}", f"{report.end:%F}") == (
        "2026-W48",
        "2026-11-23",
        "2026-11-30",
    )
    by = {m.member: m for m in report.members}
    assert list(by) == ["samuel", "alice", "deven", "oliver", "victor"]
    deven, alice = by["deven"], by["alice"]
    assert [(p["text"], p["proposed_by"], p["status"]) for p in deven.principles_proposed] == [
        ("Run the tests before every commit.", "samuel", "approved"),
        ("Never write docs.", "deven", "rejected"),
    ]
    assert [(d["action"], d["text"], d["reason"]) for d in deven.principle_decisions] == [
        ("approved", "Run the full test suite before every commit.", ""),
        ("rejected", "Never write docs.", "docs matter"),
    ]
    assert deven.skills_added == ({"skill": "code-review", "how": "added"},)
    # The failed use (0.25) was later corrected by the owner to 0.0.
    assert deven.skill_uses == ({"skill": "code-review", "uses": 2, "value": 1.0, "corrected": 1},)
    assert deven.skills_reclaimed == ("python-refactoring",)
    assert deven.skills_would_forget == ("sqlite-migrations",)
    assert deven.track_changes == ({"skill": "python-refactoring", "track": "time"},)
    assert (deven.sessions_recovered, deven.sessions_triaged) == (2, 2)
    assert alice.skills_added == ({"skill": "property-based-testing", "how": "synced"},)
    assert alice.skills_forgotten == ("release-checklist",)
    assert (alice.sessions_recovered, alice.sessions_triaged) == (1, 1)
    assert by["oliver"].quiet and by["victor"].quiet  # a read is not a use; W49 is elsewhere
    assert report.team is not None
    assert set(report.team["knowledge"].values()) == {0}  # no knowledge this week
    shown = {k: v for k, v in report.team.items() if k not in ("principle_batches", "knowledge")}
    assert shown == {
        "sessions_recovered": 5,
        "sessions_unattributed": 1,
        "sessions_nobody": 1,
        "sessions_triaged": 4,
        "sessions_filed_nobody": 1,
        "sessions_unclassified": 0,
    }
    assert [b["created_by"] for b in report.team["principle_batches"]] == ["samuel"]
    assert weekly_report(week, "2026-W49").members[3].principles_proposed[0]["text"] == (
        "Next week's idea."
    )


def test_a_member_sees_only_its_own_section(week: Context) -> None:
    report = weekly_report(as_member(week, "deven"), "2026-W48")
    assert [m.member for m in report.members] == ["deven"] and report.team is None
    assert (
        report.members[0] == {m.member: m for m in weekly_report(week, "2026-W48").members}["deven"]
    )


def test_default_week_and_bad_weeks(week: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    with frozen(monkeypatch, T0 + timedelta(days=3)):
        assert weekly_report(week).week == "2026-W48"
    for bad in ("2026-W54", "2025-W53", "W48", "2026-48"):
        with pytest.raises(InvalidInput):
            weekly_report(week, bad)
    assert weekly_report(week, "2026-W53").week == "2026-W53"


def test_three_formats(week: Context, cli_env: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVA_NOW", (T0 + timedelta(days=3)).isoformat())
    as_json = run(["report", "weekly", "--json"])
    assert as_json.code == 0, as_json.err
    data = json.loads(as_json.out)
    assert data == json.loads(json.dumps(to_jsonable(weekly_report(week, "2026-W48")))) | {
        "generated_at": data["generated_at"]
    }
    assert data["members"][2]["skill_uses"] == [
        {"skill": "code-review", "uses": 2, "value": 1.0, "corrected": 1}
    ]

    markdown = run(["report", "weekly", "--week", "2026-W48", "--markdown"])
    assert markdown.code == 0 and markdown.out == report_markdown(weekly_report(week, "2026-W48"))
    for line in (
        "# Viva weekly report — 2026-W48 (2026-11-23 to 2026-11-29)",
        "- Sessions recovered: 5 (1 still waiting for triage)",
        "## deven",
        "- Skill uses: `code-review` ×2 (value 1, 1 corrected by the owner)",
        "- Would forget (trial month): `sqlite-migrations`",
        "| 2026-11-24 | ",
        "## oliver\n\nNothing this week.",
    ):
        assert line in markdown.out

    monkeypatch.setenv("COLUMNS", "120")
    tables = run(["report", "weekly", "--week", "2026-W48"])
    assert tables.code == 0, tables.err
    for text in (
        "Week 2026-W48",
        "deven",
        "2 uses",
        "would forget sqlite-migrations",
        "reclaimed python-refactoring",
        "deven: principle decisions",
        "docs matter",
    ):
        assert text in tables.out

    monkeypatch.setenv("VIVA_GRANT", run(["grant", "deven"]).out.strip())
    mine = json.loads(run(["report", "weekly", "--week", "2026-W48", "--json"]).out)
    assert [m["member"] for m in mine["members"]] == ["deven"] and mine["team"] is None
