"""DESIGN I5: a member-scoped call never returns another member's data.

Every member is seeded with private data carrying a unique marker; every read
function the store registers is then called as deven, and no other member's
marker may appear anywhere in what comes back. A reader this test does not
know how to call fails the test, so new readers cannot skip the check.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import copy_members
from viva_store.services import grants, library, members, principles
from viva_store.services.grants import issue_grant, resolve_actor
from viva_store.services.members import load_team
from viva_store.services.registry import READERS
from viva_store.store import Context
from viva_tui.commands.common import to_jsonable

NAMES = ("samuel", "deven", "alice", "oliver", "victor")


def marker(member: str) -> str:
    return f"private-marker-of-{member}"


def seed(ctx: Context, tmp_path: Path) -> None:
    team = copy_members(tmp_path / "team")
    for name in NAMES:
        soul = team / name / "soul.md"
        soul.write_text(soul.read_text() + f"\n{marker(name)}\n")
    assert load_team(ctx, team).errors == ()
    for name in NAMES:
        issue_grant(ctx, name, note=marker(name))


CALLS: dict[str, Callable[[Context], Any]] = {
    "viva_store.services.library.list_library": library.list_library,
    "viva_store.services.library.get_skill": lambda c: library.get_skill(c, "code-review"),
    "viva_store.services.members.list_members": members.list_members,
    "viva_store.services.members.get_member": lambda c: [members.get_member(c, n) for n in NAMES],
    "viva_store.services.grants.list_grants": grants.list_grants,
    "viva_store.services.principles.active_principles": lambda c: principles.active_principles(
        c, "deven"
    ),
    "viva_store.services.principles.principle_queue": principles.principle_queue,
    "viva_store.services.principles.principle_history": principles.principle_history,
}


def test_every_reader_is_covered() -> None:
    assert set(READERS) == set(CALLS), "add new read functions to CALLS"


@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_member_sees_nothing_of_another_member(ctx: Context, tmp_path: Path, name: str) -> None:
    seed(ctx, tmp_path)
    deven = ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, "deven").token))
    as_member = json.dumps(to_jsonable(CALLS[name](deven)))
    leaked = [m for m in NAMES if m != "deven" and marker(m) in as_member]
    assert leaked == []
    # The owner sees everything, so the markers really are reachable by this reader.
    as_owner = json.dumps(to_jsonable(CALLS[name](ctx)))
    if marker("deven") in as_member:
        assert all(marker(m) in as_owner for m in NAMES)
