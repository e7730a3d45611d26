"""A launched session an older Viva stored but never matched (its run was killed between
the commit and the end-of-run match) is finished by the next ``viva import`` with
nothing new to read, by ``viva launch --repair`` and by ``viva init``: attributed to
the member by the execution record, its skill uses credited."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import insert, select

from tests.cli.runner import run
from tests.importing.test_import_crash import SID, TURNS
from tests.store.test_skillset_support import T0, set_born, set_now
from tests.store.test_skillset_uses import CWD, NATIVE, events, import_claude, launched_session
from viva_store.db.schema import ATTRIBUTION, CLASSIFICATION, EXECUTION, STORE_META
from viva_store.store import Context
from viva_store.triage.launched import CHECKED_KEY

XID = "x00000000feed"


def killed_old_run(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, root: Path, by_native: bool
) -> None:
    """The state such a run left: the session stored, its execution record ended, and
    no classification event between them."""
    set_born(ctx, T0 - timedelta(days=90))
    set_now(monkeypatch, T0 + timedelta(minutes=30))
    launched_session(root, TURNS)
    import_claude(ctx, root)  # no execution record yet: stored, unattributed
    ctx.store.write(
        lambda c: c.execute(
            insert(EXECUTION).values(
                id=XID,
                member="deven",
                harness="claude-code",
                cwd=CWD,
                native_session_id=NATIVE if by_native else None,
                started_at=T0,
                ended_at=T0 + timedelta(minutes=20),
                outcome="success",
                exit_status=0,
            )
        )
    )
    assert attribution(ctx) == ("unattributed", None, "none")
    assert events(ctx, "used") == []


def attribution(ctx: Context) -> tuple[str, str | None, str]:
    row = ctx.store.read(
        lambda c: c.execute(select(ATTRIBUTION).where(ATTRIBUTION.c.session_id == SID)).one()
    )
    return row.status, row.member, row.source


@pytest.mark.parametrize("by_native", [True, False], ids=["native id", "cwd and start"])
@pytest.mark.parametrize("command", ["import", "launch --repair", "init"])
def test_the_next_run_attributes_what_a_killed_old_run_left(
    ctx: Context,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    cli_env: str,
    command: str,
    by_native: bool,
) -> None:
    root = tmp_path / "claude"
    killed_old_run(ctx, monkeypatch, root, by_native)
    argv = {
        "import": ["import", "--harness", "claude-code", "--root", f"claude-code={root}", "--json"],
        "launch --repair": ["launch", "--repair"],
        "init": ["init"],
    }[command]
    done = run(argv)
    assert done.code == 0, done.err
    if command == "import":
        assert json.loads(done.out)["sessions_new"] == 0  # nothing new was read
    assert attribution(ctx) == ("attributed", "deven", "execution")
    used = events(ctx, "used")
    assert sorted(u.skill for u in used) == ["code-review", "sqlite-migrations"]
    assert {(u.session_id, u.execution_id, u.outcome) for u in used} == {(SID, XID, "success")}
    # Finished once: another run changes nothing.
    assert run(argv).code == 0
    claims = ctx.store.read(
        lambda c: c.execute(
            select(CLASSIFICATION.c.session_id).where(CLASSIFICATION.c.execution_id == XID)
        ).all()
    )
    assert len(claims) == 1 and len(events(ctx, "used")) == 2


def test_a_launch_whose_session_never_came_is_checked_once(
    ctx: Context, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An unclaimed record matched against the store once is remembered and not asked
    about again (the batches match what comes later); one recorded after is checked."""
    dead = "x00000000dead"
    ctx.store.write(
        lambda c: c.execute(
            insert(EXECUTION).values(
                id=dead,
                member="alice",
                harness="claude-code",
                cwd="/elsewhere",
                native_session_id=None,
                started_at=T0,
            )
        )
    )
    root = tmp_path / "claude"
    killed_old_run(ctx, monkeypatch, root, by_native=False)  # its import checks ``dead``
    assert checked(ctx) == [dead]
    import_claude(ctx, root)
    assert attribution(ctx) == ("attributed", "deven", "execution")
    claimed = ctx.store.read(
        lambda c: set(c.execute(select(CLASSIFICATION.c.execution_id)).scalars())
    )
    assert claimed == {XID}
    assert checked(ctx) == [dead]


def checked(ctx: Context) -> list[str]:
    value = ctx.store.read(
        lambda c: c.execute(
            select(STORE_META.c.value).where(STORE_META.c.key == CHECKED_KEY)
        ).scalar()
    )
    return json.loads(value) if value else []  # type: ignore[no-any-return]
