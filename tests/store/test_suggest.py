"""Triage suggestions: calibrated on held-out data, never applied without the owner."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.demo.triage_history import calibration_table, generate
from viva_store.errors import AccessDenied
from viva_store.importing.pipeline import run_import
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.store import Context
from viva_store.triage.classify import classify
from viva_store.triage.suggest import accept_suggestions, suggest
from viva_store.triage.suggest_model import Calibrator, train


def test_confidence_matches_accuracy_per_band_on_held_out_sessions() -> None:
    rows = calibration_table()
    total = sum(n for _, _, n, _, _ in rows)
    for low, high, n, mean, acc in rows:
        # Where Viva proposes (>= 0.5), confidence matches accuracy; below, it may be
        # cautious (fold models are weaker than the final one) but never over-confident.
        if n >= 50 and low >= 0.5:
            assert abs(acc - mean) <= 0.08, (low, high, n, mean, acc)
        if n >= 50:
            assert acc >= mean - 0.08, (low, high, n, mean, acc)
    ece = sum(n * abs(acc - mean) for _, _, n, mean, acc in rows) / total
    assert ece <= 0.05
    # The suggestions are worth having: the confident ones are mostly right.
    confident = [(n, acc) for low, _, n, _, acc in rows if low >= 0.8]
    assert sum(n for n, _ in confident) >= total * 0.2
    assert all(acc >= 0.75 for _, acc in confident)


def test_the_calibrator_never_lowers_accuracy_as_raw_confidence_rises() -> None:
    pairs = [(i / 100, (i * 7919) % 100 < i) for i in range(100)]
    cal = Calibrator.fit(pairs)
    values = [cal(i / 100) for i in range(101)]
    assert values == sorted(values)


def test_an_untrained_model_is_honest() -> None:
    model = train([(s.features, s.owner) for s in generate(3)])
    assert model.trained_on == 3


def _session(root: Path, n: int, cwd: str, words: str) -> str:
    native = f"{n:08d}-1111-4222-8333-{n:012d}"
    claude_code(
        root,
        SessionSpec(
            native,
            cwd,
            datetime(2026, 11, 1, 8, tzinfo=UTC).replace(minute=n % 60, hour=8 + n // 60),
            (Turn(words, "ok"),),
            "m",
        ),
    )
    return native


def test_suggestions_wait_for_the_owner(ctx: Context, tmp_path: Path) -> None:
    root = tmp_path / "claude"
    history = []
    for n in range(60):
        member = ("deven", "oliver")[n % 2]
        cwd = "/src/viva" if member == "deven" else "/ops/infra"
        words = (
            "refactor the migration module"
            if member == "deven"
            else "restore the backup after the disk alert"
        )
        history.append((_session(root, n, cwd, words), member))
    fresh = _session(root, 99, "/ops/infra", "the disk alert fired again, check the backup")
    for _ in run_import(ctx, ["claude-code"], {"claude-code": str(root)}):
        pass
    for native, member in history:
        classify(ctx, [native], member)
    found = {s.session_id: s for s in suggest(ctx)}
    sid = next(s.id for s in list_sessions(ctx, SessionFilter(status="unattributed")))
    assert found[sid].member == "oliver" and found[sid].confidence >= 0.6
    # Nothing was applied by asking.
    assert list_sessions(ctx, SessionFilter(status="unattributed"))[0].native_id == fresh
    member = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "oliver").token))
    with pytest.raises(AccessDenied):
        suggest(member)
    with pytest.raises(AccessDenied):
        accept_suggestions(member, 0.5)
    done = accept_suggestions(ctx, 0.6)
    assert [(s.member, s.confidence >= 0.6) for s in done.applied] == [("oliver", True)]
    assert list_sessions(ctx, SessionFilter(status="unattributed")) == []


def test_below_the_threshold_nothing_is_proposed_and_it_says_why(
    ctx: Context, tmp_path: Path
) -> None:
    root = tmp_path / "claude"
    _session(root, 1, "/somewhere", "hello")
    for _ in run_import(ctx, ["claude-code"], {"claude-code": str(root)}):
        pass
    (only,) = suggest(ctx)
    assert only.member is None and "not enough" in only.reason
