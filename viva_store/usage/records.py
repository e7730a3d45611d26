"""Frozen usage records handed to the faces (no SQLAlchemy here)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from viva_store.records import JsonRecord

TOKEN_KINDS = ("input", "output", "cache_read", "cache_write", "reasoning")
"""The token counts every session stores, in the order they are shown."""


@dataclass(frozen=True, slots=True)
class Tokens:
    """One count per token kind (see :data:`TOKEN_KINDS`)."""

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    reasoning: int = 0

    def __add__(self, other: Tokens) -> Tokens:
        return Tokens(*(a + b for a, b in zip(self.counts(), other.counts(), strict=True)))

    def counts(self) -> tuple[int, int, int, int, int]:
        return (self.input, self.output, self.cache_read, self.cache_write, self.reasoning)

    @property
    def total(self) -> int:
        return sum(self.counts())


@dataclass(frozen=True, slots=True)
class UsageRow(JsonRecord):
    """The sessions of one group and their tokens.

    ``cost`` is in the currency of ``[prices]``, only when every token of the group has a
    price (a model without one, or a kind its price leaves out, makes it None).
    """

    key: str
    sessions: int
    tokens: Tokens
    cost: float | None

    def to_json(self) -> dict[str, Any]:
        counts = dict(zip(TOKEN_KINDS, self.tokens.counts(), strict=True))
        return {"group": self.key, "sessions": self.sessions, **counts, "cost": self.cost}


@dataclass(frozen=True, slots=True)
class UsageReport(JsonRecord):
    """Usage grouped ``by`` one dimension, with the total over every group.

    ``rows`` are ordered by key (days and weeks oldest first), ``total.sessions`` counts
    each session once even when it falls in several groups (several models). ``priced``:
    whether ``config.toml`` has a ``[prices]`` table (rows then carry a ``cost``).
    """

    by: str
    since: datetime | None
    member: str | None
    rows: tuple[UsageRow, ...]
    total: UsageRow
    priced: bool = False

    def json_rows(self) -> list[dict[str, Any]]:
        """What ``viva usage --json`` prints: one object per group, ``cost`` when priced."""
        rows = [row.to_json() for row in self.rows]
        if not self.priced:
            for row in rows:
                del row["cost"]
        return rows

    def to_json(self) -> dict[str, Any]:
        since = self.since.isoformat().replace("+00:00", "Z") if self.since else None
        return {
            "by": self.by,
            "since": since,
            "member": self.member,
            "rows": self.json_rows(),
            "total": self.total.to_json(),
            "priced": self.priced,
        }
