"""Which stored text a redaction upgrade re-checks, and how a hit in it is recorded.

*Versioned* tables are append-only logs whose rows remember the rule-set version
that redacted them: a row of an older version is re-checked, and its text
rewritten only through the guards' permit (:mod:`viva_store.db.guards`); the text
columns listed here must be the ones migration 0015 (or a later one: 0017) made
rewritable. *Mutable* tables keep no version: they are re-checked whenever the
store's last upgrade is older than the current rules. Keys and identities
(ids, native ids, the paths the importer finds files by) are never rewritten.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Column, Table

from viva_store.db.schema import (
    ATTRIBUTION,
    CLASSIFICATION,
    ENGAGEMENT_EVENT,
    EXECUTION,
    IMPORT_RUN,
    KNOWLEDGE_EVENT,
    KNOWLEDGE_ITEM,
    KNOWLEDGE_STATE,
    MEMBER_GRANT,
    MESSAGE,
    PRINCIPLE_BATCH,
    PRINCIPLE_EVENT,
    PRINCIPLE_VERSION,
    QUARANTINE,
    RECALL_MARK,
    SESSION,
    SESSION_LABEL,
    SKILL,
)

Ledger = Callable[[Mapping[Any, Any]], dict[str, Any]]
"""More ``redaction`` columns that place a hit, from the record's row."""


@dataclass(frozen=True, slots=True)
class Rewritable:
    """One table's re-checkable text: plain ``text`` columns and decoded ``json`` ones."""

    table: Table
    text: tuple[str, ...]
    json: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()  # the other columns :attr:`ledger` reads
    ledger: Ledger | None = None

    @property
    def name(self) -> str:
        return self.table.name

    @property
    def key(self) -> Column[Any]:
        (key,) = self.table.primary_key.columns
        return key

    @property
    def columns(self) -> tuple[str, ...]:
        return (*self.text, *self.json)

    def place(self, row: Mapping[Any, Any]) -> dict[str, Any]:
        """The ``redaction`` columns that say which record a hit in ``row`` was found in."""
        where = {"record": f"{self.name}:{row[self.key.name]}"}
        return {**where, **self.ledger(row)} if self.ledger else where


VERSIONED: tuple[Rewritable, ...] = (
    Rewritable(
        MESSAGE,
        ("text", "tool_input", "tool_args", "tool_result"),
        ("raw",),
        ("session_id", "key"),
        lambda row: {"session_id": row["session_id"], "message_key": row["key"]},
    ),
    Rewritable(
        QUARANTINE, ("path", "reason", "raw"), ledger=lambda row: {"quarantine_id": row["id"]}
    ),
    Rewritable(IMPORT_RUN, (), ("problems",)),
    Rewritable(CLASSIFICATION, ("note",)),
    Rewritable(PRINCIPLE_VERSION, ("text", "rationale")),
    Rewritable(PRINCIPLE_EVENT, ("text", "reason"), ("basis",)),
    Rewritable(PRINCIPLE_BATCH, ("summary",), ("candidates",)),
    Rewritable(RECALL_MARK, ("note",)),
    Rewritable(ENGAGEMENT_EVENT, ("value", "note"), ("basis",)),
    Rewritable(SESSION_LABEL, ("text",), ledger=lambda row: {"session_id": row["session_id"]}),
    Rewritable(KNOWLEDGE_ITEM, ("summary", "body", "evidence", "why")),
    Rewritable(KNOWLEDGE_EVENT, ("reason",)),
)
"""Append-only logs with a ``ruleset`` column, in the order they are upgraded."""

MUTABLE: tuple[Rewritable, ...] = (
    Rewritable(
        SESSION,
        ("title", "project", "cwd", "git_branch", "entrypoint", "originator"),
        ledger=lambda row: {"session_id": row["id"]},
    ),
    Rewritable(SKILL, ("description", "body")),
    Rewritable(EXECUTION, ("task",)),
    Rewritable(MEMBER_GRANT, ("note",)),
    Rewritable(ATTRIBUTION, ("note",)),
    Rewritable(KNOWLEDGE_STATE, ("summary",)),
)
"""Tables without versions, re-checked when the store's last upgrade is older."""
