"""Migration 0014 there and back: the stored paths survive, the append-only guards stay."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select, update
from sqlalchemy.exc import DBAPIError

from tests.importing.test_bad_inputs import START
from tests.store.test_import import run
from tests.store.test_skill_upgrade import _back_to
from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.db.migrate import current_revision, head_revision
from viva_store.db.schema import MESSAGE, SOURCE_FILE
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.store import Context, Store


def test_down_to_0013_and_up_again(config: Config, tmp_path: Path) -> None:
    store = Store.open(config)
    ctx = Context(store, OWNER)
    spec = SessionSpec(
        "55555555-5555-4555-8555-555555555555",
        "/home/dev/shop",
        START,
        (Turn("hi", "hello"),),
        "model-x",
    )
    path = claude_code(tmp_path / "claude", spec)
    run(ctx, **{"claude-code": tmp_path / "claude"})
    store.write(_back_to("0013"))
    assert store.read(current_revision) == "0013"
    store.close()

    store = Store.open(config)  # upgrades again, and finds its guards in place
    try:
        assert store.read(current_revision) == head_revision()
        rows = store.read(lambda c: c.execute(select(SOURCE_FILE)).all())
        assert [(r.path, r.path_key) for r in rows] == [(str(path), str(path))]
        with pytest.raises(DBAPIError):
            store.write(lambda c: c.execute(update(MESSAGE).values(text="rewritten")))
    finally:
        store.close()
