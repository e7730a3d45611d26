"""DESIGN I5: the engagement state only narrows recall; it never widens what a caller sees.

deven's sessions are in /work/viva (two) and /work/trader (one); alice's one
session is also in /work/viva. A state pointing at "viva" must prefer or
restrict deven to his own viva sessions — never bring in alice's.
"""

from __future__ import annotations

import pytest

from tests.store.recall_fixtures import as_member
from viva_store.engagement.service import set_state
from viva_store.errors import InvalidInput
from viva_store.recall.search import recall
from viva_store.store import Context

MODES = ("prefer", "restrict", "off")


@pytest.fixture
def history(recall_history: dict[str, str]) -> dict[str, str]:
    return recall_history


def ids(ctx: Context, **kwargs: object) -> set[str]:
    return {h.session_id for h in recall(ctx, "cache", limit=50, **kwargs).hits}  # type: ignore[arg-type]


def test_restrict_keeps_only_the_states_project(ctx: Context, history: dict[str, str]) -> None:
    deven = as_member(ctx, "deven")
    set_state(deven, "deven", {"project": "viva"})
    result = recall(deven, "cache", limit=50, state="restrict")
    assert {h.session_id for h in result.hits} == {history["d-planted"], history["d-recent"]}
    assert result.state_project == "viva" and result.state_mode == "restrict"
    assert all(h.in_state_project for h in result.hits)


def test_prefer_boosts_the_states_project_and_drops_nothing(
    ctx: Context, history: dict[str, str]
) -> None:
    deven = as_member(ctx, "deven")
    unnarrowed = recall(deven, "cache", limit=50, state="off").hits
    set_state(deven, "deven", {"project": "trader"})
    preferred = recall(deven, "cache", limit=50).hits  # a member's default is "prefer"
    assert {h.session_id for h in preferred} == {h.session_id for h in unnarrowed}
    assert preferred[0].session_id == history["d-other-project"]
    assert preferred[0].in_state_project is True
    before = {h.session_id: h.score for h in unnarrowed}
    boosted, plain = preferred[0].score, before[history["d-other-project"]]
    assert boosted is not None and plain is not None and boosted > plain
    assert all(h.in_state_project is False for h in preferred[1:])


@pytest.mark.parametrize("project", ["viva", "trader", "elsewhere", "/work/viva"])
@pytest.mark.parametrize("mode", MODES)
def test_the_state_never_widens_a_members_results(
    ctx: Context, history: dict[str, str], project: str, mode: str
) -> None:
    deven = as_member(ctx, "deven")
    baseline = ids(deven, state="off")
    set_state(deven, "deven", {"project": project})
    narrowed = ids(deven, state=mode)
    assert narrowed <= baseline
    assert history["a-private"] not in narrowed  # alice's viva session stays hers
    assert history["u-queue"] not in narrowed


def test_a_state_in_someone_elses_project_finds_nothing_new(
    ctx: Context, history: dict[str, str]
) -> None:
    alice = as_member(ctx, "alice")
    set_state(alice, "alice", {"project": "trader"})  # only deven works there
    assert ids(alice, state="restrict") == set()
    assert ids(alice, state="prefer") == {history["a-private"]}


def test_the_owner_narrows_one_member_only_when_asked(
    ctx: Context, history: dict[str, str]
) -> None:
    set_state(ctx, "deven", {"project": "viva"})
    assert ids(ctx, member="deven") == ids(ctx, member="deven", state="off")
    assert ids(ctx, member="deven", state="restrict") == {
        history["d-planted"],
        history["d-recent"],
    }
    with pytest.raises(InvalidInput, match="--member"):
        recall(ctx, "cache", state="restrict")
    with pytest.raises(InvalidInput):
        recall(ctx, "cache", member="deven", state="widen")


def test_an_unknown_state_does_not_narrow(ctx: Context, history: dict[str, str]) -> None:
    deven = as_member(ctx, "deven")
    result = recall(deven, "cache", limit=50, state="restrict")
    assert result.state_project is None
    assert {h.session_id for h in result.hits} == ids(deven, state="off")
