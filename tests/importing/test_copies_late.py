"""A copy linked by a later run settles what depends on the link in that run: after two
``viva import`` runs, one per file of a launched session and its resumed copy, in
either order, every derived table equals what one run over both files gives, and a
full rebuild of attribution and skill weights changes nothing."""

from __future__ import annotations

import shutil
from datetime import timedelta
from pathlib import Path

import pytest

from tests.conftest import PG_URL
from tests.importing.copies_support import COPY, another_store, derived, write_pair
from tests.store.test_skillset_support import T0, set_born, set_now
from tests.store.test_skillset_uses import NATIVE, events, import_claude
from tests.store_templates import StoreTemplates
from viva_store.importing.prepare import session_id
from viva_store.members.executions import finish_execution, start_execution
from viva_store.skills.axis import refresh_axes
from viva_store.skills.skillset import check_cache
from viva_store.store import Context
from viva_store.triage import attribution


def launch(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> str:
    """deven's ended launch of the original (the clock is frozen after it)."""
    set_born(ctx, T0 - timedelta(days=90))
    set_now(monkeypatch, T0)
    run = start_execution(ctx, "deven", "claude-code", "/home/deven/work", native_session_id=NATIVE)
    set_now(monkeypatch, T0 + timedelta(minutes=30))
    finish_execution(ctx, run.id, 0)
    return run.id


def full_rebuild(ctx: Context) -> None:
    """Attribution of every session from the log, then every member's axis and weights."""

    ctx.store.write(attribution.rebuild)
    ctx.store.write(lambda c: refresh_axes(c, {"deven"}))
    assert check_cache(ctx) == []


@pytest.mark.parametrize("first", ["original", "copy"])
def test_two_runs_in_either_order_equal_one_run_over_both_files(
    ctx: Context,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    store_templates: StoreTemplates,
    first: str,
) -> None:
    original, copy = tmp_path / "original", tmp_path / "copy"
    write_pair(original, copy)
    both = tmp_path / "both"
    shutil.copytree(original, both)
    shutil.copytree(copy, both, dirs_exist_ok=True)
    with another_store(tmp_path, PG_URL, store_templates.admin if PG_URL else None) as one:
        xid = launch(one, monkeypatch)
        import_claude(one, both)
        expected = derived(one, xid)
    run_id = launch(ctx, monkeypatch)
    for root in (original, copy) if first == "original" else (copy, original):
        import_claude(ctx, root)
    got = derived(ctx, run_id)
    for table, rows in expected.items():
        assert got[table] == rows, table
    # The copy's own skill read is credited to the launch, as one run credits it.
    used = sorted(e.skill for e in events(ctx, "used"))
    assert used == ["code-review", "sqlite-migrations"]
    linked = {r[0][1]: dict(r) for r in got["session"]}[session_id("claude-code", COPY)]
    assert (linked["relation"], linked["parent_native_id"]) == ("continues", NATIVE)
    full_rebuild(ctx)
    assert derived(ctx, run_id) == got
