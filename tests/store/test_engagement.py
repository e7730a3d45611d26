"""Engagement state (DESIGN §6): explicit settings win, then entry rules, then the judge.

Every change and every correction is an append-only event.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from tests.store.recall_fixtures import as_member
from viva_store.config import Config
from viva_store.engagement.rules import Decision, EntryRules, Observation, RuleJudge, resolve
from viva_store.engagement.service import get_state, observe, set_state, state_history
from viva_store.errors import AccessDenied, InvalidInput, NotFound
from viva_store.store import Context, Store

STATE_CONFIG: dict[str, Any] = {
    "state": {
        "judge_threshold": 0.7,
        "projects": {"/work/viva": "viva", "/work/viva/docs": "viva-docs"},
        "activities": {"claude-code": "development", "hermes": "chat"},
        "domains": {"viva": "work", "diary": "personal"},
    }
}


def with_config(ctx: Context, raw: dict[str, Any]) -> Context:
    cfg = ctx.store.config
    return Context(Store(ctx.store.engine, Config(cfg.home, cfg.db_url, raw)), ctx.actor)


class FixedJudge:
    """A stand-in for a model-backed judge: fixed answers with fixed confidence."""

    name = "fixed"

    def __init__(self, confidence: float) -> None:
        self.confidence = confidence

    def judge(self, observation: Observation, fields: Sequence[str]) -> list[Decision]:
        return [Decision(f, f"{f}-guess", self.confidence, "judge", "fixed") for f in fields]


def test_a_new_member_state_is_unknown(ctx: Context) -> None:
    state = get_state(ctx, "deven")
    assert (state.domain, state.project, state.counterpart, state.activity) == (None,) * 4
    assert all(f.source is None and not f.pinned for f in state.fields.values())


def test_set_get_and_history(ctx: Context) -> None:
    state = set_state(ctx, "deven", {"project": "viva", "activity": "review"})
    assert state.project == "viva" and state.activity == "review"
    assert state.fields["project"].pinned and state.fields["project"].source == "explicit"
    assert get_state(ctx, "deven") == state
    set_state(ctx, "deven", {"project": "viva"})  # no change, no event
    assert [(e.field, e.value, e.actor) for e in state_history(ctx, "deven")] == [
        ("activity", "review", "owner"),
        ("project", "viva", "owner"),
    ]


def test_a_member_sets_its_own_state_only(ctx: Context) -> None:
    deven = as_member(ctx, "deven")
    assert set_state(deven, "deven", {"domain": "work"}).domain == "work"
    assert state_history(deven, "deven")[0].actor == "deven"
    with pytest.raises(AccessDenied):
        set_state(deven, "alice", {"domain": "work"})
    with pytest.raises(AccessDenied):
        get_state(deven, "alice")
    with pytest.raises(AccessDenied):
        state_history(deven, "alice")
    set_state(ctx, "alice", {"domain": "personal"})  # the owner may set anyone's


def test_bad_input(ctx: Context) -> None:
    with pytest.raises(InvalidInput):
        set_state(ctx, "deven", {})
    with pytest.raises(InvalidInput):
        set_state(ctx, "deven", {"mood": "happy"})
    with pytest.raises(InvalidInput):
        set_state(ctx, "deven", {"project": "   "})
    with pytest.raises(InvalidInput):
        set_state(ctx, "deven", {"project": "x" * 201})
    with pytest.raises(InvalidInput):
        set_state(ctx, "deven", {"project": "a"}, clear=["project"])
    with pytest.raises(NotFound):
        get_state(ctx, "nobody-here")


def test_entry_rules_decide_with_full_confidence(ctx: Context) -> None:
    configured = with_config(ctx, STATE_CONFIG)
    state = observe(configured, Observation("deven", "/work/viva/docs/api", "claude-code", ""))
    assert state.project == "viva-docs"  # the longest prefix wins
    assert state.activity == "development"
    assert state.fields["project"].source == "rule"
    assert state.fields["project"].confidence == 1.0
    assert not state.fields["project"].pinned
    state = observe(configured, Observation("deven", "/work/viva", "hermes", ""))
    assert (state.project, state.activity, state.domain) == ("viva", "chat", "work")


def test_the_judge_decides_what_no_rule_does(ctx: Context) -> None:
    configured = with_config(ctx, STATE_CONFIG)
    state = observe(
        configured,
        Observation("deven", "/home/u/src/trader", "claude-code", "fix the flaky test with alice"),
    )
    assert state.project == "trader"  # named after its folder, 0.75
    assert state.fields["project"].source == "judge"
    assert state.activity == "development"  # the harness rule wins over the task's words
    assert state.counterpart == "alice"


def test_below_the_threshold_the_field_stays_unknown(ctx: Context) -> None:
    state = observe(ctx, Observation("deven", "/", "some-harness", ""), judge=FixedJudge(0.4))
    assert state.project is None and state.domain is None
    field = state.fields["domain"]
    assert field.source == "judge" and field.confidence == 0.4 and "below" in field.note
    sure = observe(ctx, Observation("deven", "/", "some-harness", ""), judge=FixedJudge(0.95))
    assert sure.domain == "domain-guess"


def test_explicit_wins_over_rules_and_judge(ctx: Context) -> None:
    configured = with_config(ctx, STATE_CONFIG)
    set_state(configured, "deven", {"project": "secret-project"})
    state = observe(configured, Observation("deven", "/work/viva", "claude-code", ""))
    assert state.project == "secret-project"
    assert state.activity == "development"


def test_correcting_an_automatic_value_is_an_event(ctx: Context) -> None:
    configured = with_config(ctx, STATE_CONFIG)
    observed = observe(configured, Observation("deven", "/work/viva", "claude-code", ""))
    rule_event = observed.fields["project"].event_id
    corrected = set_state(configured, "deven", {"project": "viva-docs"}, note="docs day")
    assert corrected.fields["project"].source == "correction"
    newest = state_history(configured, "deven", limit=1)[0]
    assert (newest.source, newest.corrects, newest.note) == ("correction", rule_event, "docs day")
    # Both the automatic value and its correction stay in the log.
    values = [e.value for e in state_history(configured, "deven") if e.field == "project"]
    assert values == ["viva-docs", "viva"]


def test_clearing_returns_a_field_to_automatic(ctx: Context) -> None:
    configured = with_config(ctx, STATE_CONFIG)
    set_state(configured, "deven", {"project": "pinned"})
    cleared = set_state(configured, "deven", {}, clear=["project"])
    assert cleared.project is None and not cleared.fields["project"].pinned
    state = observe(configured, Observation("deven", "/work/viva", "claude-code", ""))
    assert state.project == "viva"


def test_events_cannot_be_rewritten(ctx: Context) -> None:
    set_state(ctx, "deven", {"project": "viva"})
    for sql in ("UPDATE engagement_event SET value = 'x'", "DELETE FROM engagement_event"):
        with pytest.raises(DBAPIError, match="append-only"):
            ctx.store.write(lambda c, sql=sql: c.execute(text(sql)))
    assert get_state(ctx, "deven").project == "viva"


def test_bad_state_config_is_invalid_input(ctx: Context) -> None:
    for raw in (
        {"state": {"judge_threshold": 2}},
        {"state": {"projects": {"/x": 1}}},
        {"state": {"activities": "nope"}},
    ):
        with pytest.raises(InvalidInput):
            observe(with_config(ctx, raw), Observation("deven", "/x", "pi", ""))


def test_resolve_is_pure_and_skips_pinned_fields() -> None:
    rules = EntryRules.from_config(STATE_CONFIG["state"])
    obs = Observation("deven", "/work/viva", "claude-code", "plan the release")
    decided = resolve(obs, rules, RuleJudge(["alice"]), pinned=["activity"])
    assert [d.field for d in decided] == ["domain", "project", "counterpart"]
    assert decided == resolve(obs, rules, RuleJudge(["alice"]), pinned=["activity"])
    assert rules.prefixes_of("viva") == ("/work/viva",)
