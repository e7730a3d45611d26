"""Principles (DESIGN §4, I7, I8): proposals, the owner's decisions, versions, rollback.

The first test is issue 6's "Done when" scenario end to end; the others pin one
rule each. Everything runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import DBAPIError

from tests.store.test_principles_support import (
    T0,
    as_member,
    count,
    frozen,
    make_sessions,
    raw_sql,
)
from viva_store.errors import AccessDenied, InvalidInput, NotFound
from viva_store.principles.service import (
    StaleCandidate,
    active_principles,
    approve,
    batch,
    defer,
    principle_history,
    principle_queue,
    propose,
    reject,
    retire,
    rollback,
)
from viva_store.store import Context

DECISIONS: dict[str, Callable[[Context, str], Any]] = {
    "approve": lambda c, cid: approve(c, cid),
    "approve edited": lambda c, cid: approve(c, cid, text="my wording"),
    "reject": lambda c, cid: reject(c, cid, reason="no"),
    "defer": lambda c, cid: defer(c, cid),
    "rollback": lambda c, cid: rollback(c, cid.split(".")[0], 1),
    "retire": lambda c, cid: retire(c, cid.split(".")[0], reason="done"),
}


def test_done_when_scenario(ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """samuel proposes for deven; only the owner decides; versions, rollback, history."""
    samuel, deven = as_member(ctx, "samuel"), as_member(ctx, "deven")
    ids = make_sessions(ctx, tmp_path / "claude", {"samuel": 1})
    with frozen(monkeypatch, T0):
        first = propose(
            samuel,
            "deven",
            "Run the tests before every commit.",
            "Two broken builds this week.",
            evidence=[ids["samuel"][0]],
        )
    assert (first.proposed_by, first.week, first.status) == ("samuel", "2026-W48", "pending")
    assert first.replaces_version is None
    assert [c.id for c in principle_queue(ctx)] == [first.id]

    for member_ctx in (deven, samuel):
        for name, decide in DECISIONS.items():
            with pytest.raises(AccessDenied, match="only the owner"):
                decide(member_ctx, first.id)
            assert active_principles(ctx, "deven") == [], name
    assert count(ctx, "principle_event") == 1  # only the proposal

    with frozen(monkeypatch, T0 + timedelta(days=1)):
        v1 = approve(ctx, first.id, note="agreed")
    assert [(p.id, p.version, p.text) for p in active_principles(ctx, "deven")] == [
        (first.principle_id, 1, "Run the tests before every commit.")
    ]
    # deven cannot see samuel's session: its id is left out of deven's view, and counted.
    assert active_principles(deven, "deven") == [replace(v1, evidence=(), evidence_hidden=1)]

    with frozen(monkeypatch, T0 + timedelta(days=2)):
        second = propose(
            samuel,
            "deven",
            "Run the fast tests before every commit; the full suite before a push.",
            "The full suite takes ten minutes.",
            replaces=first.principle_id,
        )
    assert (second.principle_id, second.version, second.replaces_version) == (
        first.principle_id,
        2,
        1,
    )
    with frozen(monkeypatch, T0 + timedelta(days=3)):
        v2 = approve(ctx, second.id)
    assert (v2.version, v2.activated_by) == (2, "approved")
    assert [p.version for p in active_principles(ctx, "deven")] == [2]

    with frozen(monkeypatch, T0 + timedelta(days=4)):
        back = rollback(ctx, first.principle_id, 1, reason="too lax")
    assert (back.version, back.text, back.activated_by) == (
        1,
        "Run the tests before every commit.",
        "rolled_back",
    )
    assert [p.version for p in active_principles(ctx, "deven")] == [1]

    decisions = [
        (e.action, e.version, e.actor)
        for e in principle_history(ctx, "deven")
        if e.action != "proposed"
    ]
    assert decisions == [
        ("approved", 1, "owner"),
        ("approved", 2, "owner"),
        ("rolled_back", 1, "owner"),
    ]
    # deven's history is the owner's, less the evidence that cites samuel's session.
    (cited,) = v1.evidence  # samuel's session, as the owner sees it
    owner_view = principle_history(ctx, "deven")
    assert any(cited in (e.basis or {}).get("evidence", []) for e in owner_view)
    assert principle_history(deven, "deven") == [
        replace(e, basis={**e.basis, "evidence": [r for r in e.basis["evidence"] if r != cited]})
        if e.basis and "evidence" in e.basis
        else e
        for e in owner_view
    ]

    # Nothing was deleted, and the database refuses to change history.
    assert (count(ctx, "principle_version"), count(ctx, "principle_event")) == (2, 5)
    for table in ("principle_version", "principle_event"):
        for sql in (f"UPDATE {table} SET id = id", f"DELETE FROM {table}"):
            with pytest.raises(DBAPIError, match="append-only"):
                raw_sql(ctx, sql)
    assert (count(ctx, "principle_version"), count(ctx, "principle_event")) == (2, 5)


def test_batch_table_is_append_only(ctx: Context) -> None:
    propose(ctx, "deven", "Write it down.", "memory fades")
    batch(ctx)
    for sql in ("UPDATE principle_batch SET summary = 'x'", "DELETE FROM principle_batch"):
        with pytest.raises(DBAPIError, match="append-only"):
            raw_sql(ctx, sql)
    assert count(ctx, "principle_batch") == 1


def test_reject_needs_a_reason(ctx: Context) -> None:
    cand = propose(ctx, "alice", "Test the edges.", "bugs live there")
    for reason in ("", "   "):
        with pytest.raises(InvalidInput, match="reason is required"):
            reject(ctx, cand.id, reason=reason)
    assert principle_queue(ctx)[0].status == "pending"
    rejected = reject(ctx, cand.id, reason="already in soul.md")
    assert rejected.status == "rejected"
    assert principle_queue(ctx) == []
    event = principle_history(ctx, "alice")[-1]
    assert (event.action, event.reason) == ("rejected", "already in soul.md")
    with pytest.raises(InvalidInput, match="already rejected"):
        approve(ctx, cand.id)


def test_stale_approval_is_refused(ctx: Context) -> None:
    first = approve(ctx, propose(ctx, "deven", "Small commits.", "reviewable").id)
    a = propose(ctx, "deven", "Small commits, one idea each.", "a", replaces=first.id)
    b = propose(ctx, "deven", "Small commits with tests.", "b", replaces=first.id)
    assert not a.stale and not b.stale
    approve(ctx, a.id)
    queued = {c.id: c for c in principle_queue(ctx)}
    assert queued[b.id].stale and queued[b.id].active_text == "Small commits, one idea each."
    with pytest.raises(StaleCandidate) as refused:
        approve(ctx, b.id)
    message = str(refused.value)
    assert "version 1" in message and "version 2" in message and "--replaces" in message
    assert [p.version for p in active_principles(ctx, "deven")] == [2]
    # Re-proposed against the version now in force, it can be approved.
    c = propose(ctx, "deven", "Small commits with tests.", "b again", replaces=first.id)
    assert approve(ctx, c.id).version == 4


def test_a_retired_or_rolled_back_principle_makes_older_candidates_stale(ctx: Context) -> None:
    p = approve(ctx, propose(ctx, "oliver", "Page before paging.", "noise").id)
    cand = propose(ctx, "oliver", "Page twice.", "r", replaces=p.id)
    retire(ctx, p.id, reason="obsolete")
    assert active_principles(ctx, "oliver") == []
    with pytest.raises(StaleCandidate, match="not in force"):
        approve(ctx, cand.id)
    back = rollback(ctx, p.id, 1)
    assert back.version == 1 and [x.id for x in active_principles(ctx, "oliver")] == [p.id]


def test_edited_approval_is_the_owners_wording(ctx: Context) -> None:
    cand = propose(ctx, "victor", "never trade on fridays", "two bad fridays")
    v1 = approve(ctx, cand.id, text="Do not open positions on Fridays.", note="reworded")
    assert v1.text == "Do not open positions on Fridays."
    event = principle_history(ctx, "victor")[-1]
    assert (event.action, event.text, event.reason) == (
        "approved",
        "Do not open positions on Fridays.",
        "reworded",
    )
    assert event.basis and event.basis["edited_from"] == "never trade on fridays"
    v2 = approve(ctx, propose(ctx, "victor", "Trade any day.", "r", replaces=v1.id).id)
    assert rollback(ctx, v2.id, 1).text == "Do not open positions on Fridays."


def test_who_may_propose(ctx: Context) -> None:
    alice = as_member(ctx, "alice")
    assert propose(alice, "alice", "Write the failing test first.", "r").proposed_by == "alice"
    with pytest.raises(AccessDenied, match="only for itself"):
        propose(alice, "deven", "Deven should test more.", "r")
    assert propose(ctx, "deven", "Owner's idea.", "r").proposed_by == "owner"
    assert propose(as_member(ctx, "samuel"), "oliver", "Runbooks.", "r").member == "oliver"
    assert active_principles(ctx, "oliver") == []  # a proposal is never active by itself
    with pytest.raises(NotFound):
        propose(ctx, "nobody", "x", "y")
    with pytest.raises(InvalidInput, match="empty"):
        propose(ctx, "deven", "  ", "y")


def test_evidence_only_from_sessions_the_proposer_sees(ctx: Context, tmp_path: Path) -> None:
    ids = make_sessions(ctx, tmp_path / "claude", {"deven": 1, "samuel": 1})
    samuel = as_member(ctx, "samuel")
    with pytest.raises(NotFound, match="no session member samuel can see"):
        propose(samuel, "deven", "t", "r", evidence=[ids["deven"][0]])
    assert count(ctx, "principle_version") == 0
    own = propose(samuel, "deven", "t", "r", evidence=[ids["samuel"][0], f"{ids['samuel'][0]}#1"])
    assert len(own.evidence) == 2 and own.evidence[1].endswith("#1")
    with pytest.raises(NotFound, match="has no message 99"):
        propose(samuel, "deven", "t", "r", evidence=[f"{ids['samuel'][0]}#99"])
    by_owner = propose(ctx, "deven", "t2", "r", evidence=[ids["deven"][0][:8]])
    assert by_owner.evidence[0].startswith("claude-code") or len(by_owner.evidence) == 1


def test_members_see_only_their_own_principles(ctx: Context) -> None:
    approve(ctx, propose(ctx, "alice", "Alice's rule.", "r").id)
    approve(ctx, propose(ctx, "deven", "Deven's rule.", "r").id)
    propose(ctx, "alice", "Alice pending.", "r")
    deven = as_member(ctx, "deven")
    assert [p.member for p in active_principles(deven, "deven")] == ["deven"]
    with pytest.raises(AccessDenied):
        active_principles(deven, "alice")
    assert principle_queue(deven) == []
    assert {e.member for e in principle_history(deven)} == {"deven"}
    with pytest.raises(AccessDenied):
        principle_history(deven, "alice")


def test_batch_merges_duplicates_and_is_deterministic(
    ctx: Context, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ids = make_sessions(ctx, tmp_path / "claude", {"deven": 1, "samuel": 1})
    samuel, deven = as_member(ctx, "samuel"), as_member(ctx, "deven")
    with frozen(monkeypatch, T0):
        a = propose(samuel, "deven", "Run the tests.", "r1", evidence=[ids["samuel"][0]])
        b = propose(deven, "deven", "  run THE tests ", "r2", evidence=[ids["deven"][0]])
        c = propose(samuel, "alice", "Read the diff.", "r3")
    with frozen(monkeypatch, T0 + timedelta(days=7)):
        propose(samuel, "alice", "Next week's idea.", "r4")
    with pytest.raises(AccessDenied, match="coordinator"):
        batch(deven, "2026-W48")
    with frozen(monkeypatch, T0 + timedelta(days=1)):
        made = batch(samuel)
    assert made.new and made.week == "2026-W48" and made.created_by == "samuel"
    assert made.summary == (
        "2026-W48: 2 candidates for 2 members (alice 1, deven 1), 1 duplicate merged."
    )
    assert sorted(made.candidates) == sorted([a.id, b.id, c.id])
    entries = {e.id: e for e in principle_queue(ctx, week="2026-W48")}
    assert set(entries) == {a.id, c.id}
    assert entries[a.id].merged == (b.id,) and entries[a.id].batch_id == made.id
    assert len(entries[a.id].evidence) == 2
    # samuel sees the summary, not deven's or alice's candidates.
    assert made.entries == ()
    # Nothing new: the same batch comes back.
    again = batch(ctx, "2026-W48")
    assert (again.id, again.new) == (made.id, False)
    assert {e.id for e in again.entries} == {a.id, c.id}
    with pytest.raises(InvalidInput, match="no candidates"):
        batch(ctx, "2026-W40")
    with pytest.raises(InvalidInput, match="ISO week"):
        batch(ctx, "2026-48")
    # Approving the entry approves one principle, with everyone's evidence as its basis.
    approve(ctx, a.id)
    assert [p.text for p in active_principles(ctx, "deven")] == ["Run the tests."]
    basis = principle_history(ctx, "deven")[-1].basis or {}
    assert basis["merged"] == [b.id] and len(basis["evidence"]) == 2


def test_decisions_on_decided_candidates_are_refused(ctx: Context) -> None:
    cand = propose(ctx, "deven", "One.", "r")
    assert defer(ctx, cand.id).status == "deferred"
    assert principle_queue(ctx)[0].status == "deferred"
    approve(ctx, cand.principle_id)  # a principle id with one open candidate names it
    with pytest.raises(InvalidInput, match="already approved"):
        approve(ctx, cand.id)
    with pytest.raises(InvalidInput, match="already active"):
        rollback(ctx, cand.principle_id, 1)
    with pytest.raises(InvalidInput, match="never approved"):
        rollback(ctx, cand.principle_id, 7)
    with pytest.raises(InvalidInput, match="reason is required"):
        retire(ctx, cand.principle_id, reason="")
    with pytest.raises(NotFound):
        approve(ctx, "p00000000.1")
