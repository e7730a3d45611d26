"""The ``member_skill`` cache's own foreign keys: 0011 took them away, 0013 restores them,
and neither loses a row.

A store with cache rows is taken back to 0012 (no keys) and to 0010 (keys), and opened
again the normal way each time: the rows are there, the keys are there, and the cache
still equals a rebuild.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from alembic import command
from sqlalchemy import Connection, inspect, text

from tests.store.test_skillset_support import assert_cache_is_a_rebuild
from viva_store.access import OWNER
from viva_store.config import Config
from viva_store.db.migrate import _alembic_config, current_revision, head_revision
from viva_store.members.roster import load_team
from viva_store.skills.skillset import add_skill
from viva_store.store import Context, Store


def _back_to(revision: str) -> Callable[[Connection], None]:
    def work(conn: Connection) -> None:
        cfg = _alembic_config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)

    return work


def _cache(store: Store) -> list[tuple[str, str, float]]:
    rows = store.read(
        lambda c: c.execute(text("SELECT member, skill, w_ref FROM member_skill")).all()
    )
    return sorted((r[0], r[1], float(r[2])) for r in rows)


def _keys(store: Store) -> list[str]:
    return [fk["referred_table"] for fk in inspect(store.engine).get_foreign_keys("member_skill")]


@pytest.mark.parametrize(("revision", "keys"), [("0012", []), ("0010", ["member", "skill"])])
def test_the_cache_keeps_its_rows_and_has_its_keys(
    config: Config, revision: str, keys: list[str]
) -> None:
    store = Store.open(config)
    ctx = Context(store, OWNER)
    assert load_team(ctx).errors == ()
    add_skill(ctx, "deven", "incident-triage")
    before = _cache(store)
    assert ("deven", "incident-triage", 1.0) in before
    assert sorted(_keys(store)) == ["member", "skill"]
    store.write(_back_to(revision))
    assert store.read(current_revision) == revision
    assert sorted(_keys(store)) == keys
    store.close()

    store = Store.open(config)  # the normal path: applies what follows
    try:
        assert store.read(current_revision) == head_revision()
        assert sorted(_keys(store)) == ["member", "skill"]
        assert _cache(store) == before
        assert_cache_is_a_rebuild(Context(store, OWNER))
    finally:
        store.close()


def test_postgresql_reads_the_uses_by_their_covering_index(config: Config) -> None:
    """Migration 0012 (PostgreSQL only): the rebuild's aggregate of the uses can be an
    index-only scan of ``ix_skill_event_uses`` once the table's pages are all-visible."""
    store = Store.open(config)
    try:
        names = [i["name"] for i in inspect(store.engine).get_indexes("skill_event")]
        if store.engine.dialect.name != "postgresql":
            assert "ix_skill_event_uses" not in names  # a SQLite use keeps one index less
            return
        assert "ix_skill_event_uses" in names
        with store.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as c:
            c.exec_driver_sql("VACUUM (ANALYZE) skill_event")
            c.exec_driver_sql("SET enable_seqscan = off")  # an empty table: scans are free
            plan = "\n".join(
                r[0]
                for r in c.exec_driver_sql(
                    "EXPLAIN SELECT member, skill, count(*), sum(value), max(day), min(id) "
                    "FROM skill_event WHERE kind = 'used' GROUP BY member, skill"
                )
            )
        assert "Index Only Scan using ix_skill_event_uses" in plan, plan
    finally:
        store.close()
