"""Re-redacting what older rule sets stored: the upgrade, its ledger and events, on both
engines; re-running it changes nothing."""

from __future__ import annotations

import importlib.util
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, delete, func, insert, select

from tests.redact.support import secret_of, survivors
from viva_store import migrations
from viva_store.db.meta import RULESET_KEY
from viva_store.db.schema import (
    APPEND_ONLY,
    CLASSIFICATION,
    ENGAGEMENT_EVENT,
    MESSAGE,
    RECALL_MARK,
    REDACTION,
    REDACTION_UPGRADE,
    SESSION,
    STORE_META,
)
from viva_store.engagement.service import Observation, observe
from viva_store.recall.service import recall
from viva_store.recheck.service import (
    redaction_status,
    remember_version,
    run_upgrade,
    upgrade_if_older,
)
from viva_store.recheck.tables import VERSIONED
from viva_store.redact import RULES_BY_ID, RULESET_VERSION
from viva_store.store import Context
from viva_store.triage.service import classify

AT = datetime(2026, 5, 30, 9, 0, tzinfo=UTC)
WORD = "ocelotharbinger"
"""A word no other message holds, to find the planted message by."""


def _secret() -> str:
    return secret_of(RULES_BY_ID["github-pat"])


def plant_old_records(ctx: Context, secret: str) -> dict[str, int]:
    """Rows stored by a rule set that did not know ``secret``'s rule (version ``"0"``):
    a message, a mark and an engagement event, each holding ``secret`` verbatim."""

    def plant(conn: Connection) -> dict[str, int]:
        session_id = conn.execute(select(SESSION.c.id).order_by(SESSION.c.id).limit(1)).scalar()
        assert session_id is not None
        message = conn.execute(
            insert(MESSAGE).values(
                session_id=session_id,
                seq=10_000,
                key="planted-old",
                role="user",
                at=AT,
                text=f"{WORD} the deploy token is {secret} keep it",
                raw={"message": {"content": f"token {secret}"}},
                ruleset="0",
            )
        ).inserted_primary_key
        assert message is not None
        mark = conn.execute(
            insert(RECALL_MARK).values(
                session_id=session_id, importance=0.9, actor="owner", at=AT, note=secret
            )
        ).inserted_primary_key
        assert mark is not None
        event = conn.execute(
            insert(ENGAGEMENT_EVENT).values(
                member="deven",
                field="project",
                value=f"proj {secret}",
                source="explicit",
                actor="owner",
                at=AT,
                ruleset="",
            )
        ).inserted_primary_key
        assert event is not None
        return {"message": message[0], "recall_mark": mark[0], "engagement_event": event[0]}

    return ctx.store.write(plant)


def _row(ctx: Context, table: Any, key: int) -> dict[str, Any]:
    return dict(
        ctx.store.read(lambda c: c.execute(select(table).where(table.c.id == key)).mappings().one())
    )


def _count(ctx: Context, table: Any) -> int:
    counted = ctx.store.read(lambda c: c.execute(select(func.count()).select_from(table)).scalar())
    return int(counted or 0)


def test_the_upgrade_redacts_older_records_and_records_what_it_did(
    recall_history: dict[str, str], ctx: Context
) -> None:
    secret = _secret()
    keys = plant_old_records(ctx, secret)
    assert recall(ctx, WORD).hits, "the planted message is indexed before the upgrade"

    report = run_upgrade(ctx, by="the owner")

    message = _row(ctx, MESSAGE, keys["message"])
    mark = _row(ctx, RECALL_MARK, keys["recall_mark"])
    event = _row(ctx, ENGAGEMENT_EVENT, keys["engagement_event"])
    for row, column in ((message, "text"), (mark, "note"), (event, "value")):
        assert survivors(secret, row[column]) == []
        assert "[REDACTED:github-pat]" in row[column]
        assert row["ruleset"] == RULESET_VERSION
    assert survivors(secret, str(message["raw"])) == []
    assert message["text"].startswith(f"{WORD} the deploy token is ")

    by_table = {t.table: t for t in report.tables}
    assert by_table["message"].changed == 1 and by_table["message"].redactions == 2
    assert by_table["recall_mark"].changed == 1 and by_table["engagement_event"].changed == 1
    assert report.redactions_added == sum(t.redactions for t in report.tables) >= 4
    assert report.records_checked >= report.records_changed >= 3

    ledger = ctx.store.read(
        lambda c: (
            c.execute(select(REDACTION).where(REDACTION.c.run_id == report.run_id)).mappings().all()
        )
    )
    assert len(ledger) == report.redactions_added
    assert {r["record"] for r in ledger} >= {
        f"message:{keys['message']}",
        f"recall_mark:{keys['recall_mark']}",
        f"engagement_event:{keys['engagement_event']}",
    }
    assert all(r["rule"] == "github-pat" and survivors(secret, str(dict(r))) == [] for r in ledger)
    events = ctx.store.read(
        lambda c: (
            c.execute(select(REDACTION_UPGRADE).where(REDACTION_UPGRADE.c.run_id == report.run_id))
            .mappings()
            .all()
        )
    )
    changed = {t.table for t in report.tables if t.changed}
    assert changed <= {e["table_name"] for e in events} <= set(by_table)
    assert sum(e["redactions"] for e in events) == report.redactions_added

    hits = recall(ctx, WORD).hits
    assert len(hits) == 1 and survivors(secret, hits[0].snippet) == []
    if ctx.store.engine.dialect.name == "sqlite":  # the contentless index forgot the old words
        assert recall(ctx, secret.split("_", 1)[1]).hits == ()


def test_running_the_upgrade_again_changes_nothing(
    recall_history: dict[str, str], ctx: Context
) -> None:
    plant_old_records(ctx, _secret())
    run_upgrade(ctx, by="the owner")
    ledger, events = _count(ctx, REDACTION), _count(ctx, REDACTION_UPGRADE)
    texts = ctx.store.read(lambda c: c.execute(select(MESSAGE.c.id, MESSAGE.c.text)).all())

    again = run_upgrade(ctx, by="the owner")

    assert (again.records_checked, again.records_changed, again.redactions_added) == (0, 0, 0)
    assert (_count(ctx, REDACTION), _count(ctx, REDACTION_UPGRADE)) == (ledger, events)
    assert ctx.store.read(lambda c: c.execute(select(MESSAGE.c.id, MESSAGE.c.text)).all()) == texts
    assert upgrade_if_older(ctx) is None
    assert not redaction_status(ctx).upgrade_due


def test_a_new_store_is_current_and_its_writers_stamp_the_rules(ctx: Context) -> None:
    """A new store holds nothing older; classifying, observing a session start and a
    launch's attribution write text redacted with the current rules, and say so."""
    secret = _secret()
    status = redaction_status(ctx)
    assert status.store_ruleset == RULESET_VERSION and not status.upgrade_due
    session_id = ctx.store.write(partial(_any_session, ctx))

    classify(ctx, [session_id], "deven", note=f"see {secret}")
    observe(ctx, Observation("deven", cwd=f"/work/{secret}", harness="codex", task=secret))

    assert redaction_status(ctx).older == {}
    stored = ctx.store.read(
        lambda c: [
            *c.execute(select(CLASSIFICATION.c.note)).scalars(),
            *(str(b) for b in c.execute(select(ENGAGEMENT_EVENT.c.basis)).scalars()),
        ]
    )
    assert stored and not any(secret in text for text in stored), stored
    assert any("[REDACTED:github-pat]" in text for text in stored)


def test_the_importer_hook_upgrades_when_the_store_predates_the_rules(ctx: Context) -> None:
    ctx.store.write(lambda c: c.execute(delete(STORE_META).where(STORE_META.c.key == RULESET_KEY)))
    assert upgrade_if_older(ctx) is not None, "a store never upgraded is upgraded once"
    assert upgrade_if_older(ctx) is None
    ctx.store.write(
        lambda c: c.execute(
            insert(RECALL_MARK).values(
                session_id=_any_session(ctx, c), importance=None, actor="o", at=AT, note=_secret()
            )
        )
    )
    status = redaction_status(ctx)
    assert status.older == {"recall_mark": 1} and status.upgrade_due
    ctx.store.write(partial(remember_version, version="0"))  # as if the rules grew since

    report = upgrade_if_older(ctx, by="import")

    assert report is not None and report.records_changed == 1 and report.redactions_added == 1
    assert upgrade_if_older(ctx) is None


def _any_session(ctx: Context, conn: Connection) -> str:
    """A session to hang a row on (foreign keys): one made here if the store has none."""
    found = conn.execute(select(SESSION.c.id).limit(1)).scalar()
    if found is not None:
        return str(found)
    conn.execute(
        insert(SESSION).values(
            id="s-upgrade",
            harness="claude-code",
            native_id="n-upgrade",
            models=[],
            imported_at=AT,
            updated_at=AT,
        )
    )
    return "s-upgrade"


def test_the_upgrade_rewrites_only_columns_the_guards_admit() -> None:
    """The text columns the upgrade rewrites are the ones migrations 0015, 0016 and 0017 let
    the guards admit (a later migration that widens one re-installs the guards and updates
    both)."""
    admitted: dict[str, set[str]] = {}
    for name in ("0015_redaction_upgrade", "0016_session_labels", "0017_knowledge"):
        path = Path(migrations.__file__).parent / "versions" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(f"revision_{name}", path)
        assert spec is not None and spec.loader is not None
        revision = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(revision)
        admitted |= {table: set(columns) for table, columns in revision.REWRITABLE.items()}
    assert {t.name: set(t.columns) for t in VERSIONED} == admitted
    assert set(admitted) <= set(APPEND_ONLY)
