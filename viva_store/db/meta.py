"""Facts about the store itself, kept in ``store_meta``: here, which rule set it is
redacted with as a whole (a new store: the rules that created it; then each
redaction upgrade's)."""

from __future__ import annotations

from sqlalchemy import Connection, insert, select, update

from viva_store.db.schema import STORE_META

RULESET_KEY = "redact_ruleset"
"""``store_meta`` key: the rule-set version the whole store was last brought to."""


def stored_version(conn: Connection) -> str | None:
    """The rule-set version of the store as a whole (None: never recorded)."""
    return conn.execute(select(STORE_META.c.value).where(STORE_META.c.key == RULESET_KEY)).scalar()


def remember_version(conn: Connection, version: str) -> None:
    """Record that the whole store is redacted with ``version``."""
    found = stored_version(conn)
    if found is None:
        conn.execute(insert(STORE_META).values(key=RULESET_KEY, value=version))
    elif found != version:
        conn.execute(
            update(STORE_META).where(STORE_META.c.key == RULESET_KEY).values(value=version)
        )
