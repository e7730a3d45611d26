"""A launched session and a resumed copy of it, as two Claude Code files, and what the
store derives from them, to compare stores filled in different orders.

The original is deven's, launched through Viva; the copy repeats its lines under a
rewritten ``sessionId`` and goes on with turns of its own (another skill read there).
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Table, select, text

from tests.store.test_skillset_support import T0
from tests.store.test_skillset_uses import CWD, NATIVE, PROJECTED_READ, SKILL_TOOL
from tests.store_templates import load_shipped_team, schema_url
from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.db.schema import (
    ATTRIBUTION,
    CLASSIFICATION,
    MEMBER_SKILL,
    SESSION,
    SKILL_AXIS,
    SKILL_EVENT,
    USAGE,
    USAGE_COPY,
)
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.store import Context, Store

COPY = "1b2c3d4e-0000-4000-8000-00000000c0c0"
FOLDER = "-home-deven-work"
DERIVED: tuple[Table, ...] = (
    SESSION,
    USAGE,
    USAGE_COPY,
    CLASSIFICATION,
    ATTRIBUTION,
    SKILL_EVENT,
    SKILL_AXIS,
    MEMBER_SKILL,
)
"""What a link between two sessions can change, and what is derived from that."""
_ROW_IDS = {"classification_id", "source_path", "updated_at", "entered_day", "basis"}
"""Numbered by the order rows were written in, where the file was read from, or when
each store was made: not what is compared (an integer ``id`` neither). A use's
``basis`` is the evidence seen when it was credited: a use credited before the copy
arrived names the original's read only, and the log is never edited."""


def write_pair(original_root: Path, copy_root: Path) -> None:
    """The original under ``original_root``, its resumed copy under ``copy_root``."""
    claude_code(
        original_root,
        SessionSpec(
            native_id=NATIVE,
            cwd=CWD,
            start=T0 + timedelta(seconds=5),
            turns=(Turn("look around", "ok"), SKILL_TOOL),
            model="claude-sonnet-4",
        ),
    )
    own = claude_code(
        copy_root / "own",
        SessionSpec(
            native_id=COPY,
            cwd=CWD,
            start=T0 + timedelta(minutes=10),
            turns=(PROJECTED_READ, Turn("and then", "fine")),
            model="claude-sonnet-4",
        ),
    )
    lines = (original_root / FOLDER / f"{NATIVE}.jsonl").read_text().splitlines()
    repeated = [json.dumps({**json.loads(line), "sessionId": COPY}) for line in lines]
    dest = copy_root / FOLDER / f"{COPY}.jsonl"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text("\n".join([*repeated, *own.read_text().splitlines()]) + "\n")
    own.unlink()


def derived(ctx: Context, execution_id: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the derived tables written since the launch (not the loading of
    the team: that happened when each store was made), without write-order numbering,
    sorted."""

    def norm(value: Any) -> Any:
        return value.replace(execution_id, "<execution>") if isinstance(value, str) else value

    def read(conn: Any) -> dict[str, list[tuple[Any, ...]]]:
        out: dict[str, list[tuple[Any, ...]]] = {}
        for table in DERIVED:
            cols = [
                c
                for c in table.c
                if c.name not in _ROW_IDS and not (c.name == "id" and c.type.python_type is int)
            ]
            query = select(*cols)
            if "at" in table.c:
                query = query.where(table.c.at >= T0)
            rows = conn.execute(query).all()
            out[table.name] = sorted(
                (tuple((c.name, norm(v)) for c, v in zip(cols, r, strict=True)) for r in rows),
                key=repr,
            )
        return out

    return ctx.store.read(read)


@contextmanager
def another_store(tmp_path: Path, pg_url: str | None, admin: Any) -> Iterator[Context]:
    """A second store on the engine under test, loaded with the shipped team."""
    home = tmp_path / "other"
    if pg_url:
        schema = "t_" + secrets.token_hex(6)
        with admin.begin() as conn:
            conn.execute(text(f"CREATE SCHEMA {schema}"))
        url = schema_url(pg_url, schema)
    else:
        url = f"sqlite:///{home / 'viva.db'}"
    store = Store.open(Config(home=home, db_url=url))
    try:
        ctx = Context(store, OWNER)
        load_shipped_team(ctx)
        yield ctx
    finally:
        store.close()
        if pg_url:
            with admin.begin() as conn:
                conn.execute(text(f"DROP SCHEMA {schema} CASCADE"))
