"""Re-checking a stored record with the current rules (the pure half of a redaction upgrade).

A record redacted by an older rule set may hold a secret a newer rule finds. This
module says, for one record, what the current rules change: the new values of its
text columns (plain strings through :func:`redact_text`, decoded JSON through
:func:`redact_obj`) and one hit per marker added. Redaction is idempotent, so a
record the current rules have seen gains nothing, and re-checking it changes nothing.
The store side — which tables, the guard's permit, the ledger — is
:mod:`viva_store.recheck`.

Rule-set versions are ordered by their leading integer (``"2"`` is newer than
``"1"``; ``""``, a record from before versions were kept, is older than any). The
database guards order them the same way.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from viva_store.redact import RULESET_VERSION, redact_obj, redact_text

_LEADING_INTEGER = re.compile(r"[0-9]+")


def ruleset_rank(version: str | None) -> int:
    """The order of a rule-set version: its leading integer (0 when it has none)."""
    found = _LEADING_INTEGER.match(version or "")
    return int(found.group()) if found else 0


def is_older(version: str | None, than: str = RULESET_VERSION) -> bool:
    """Whether a record redacted with ``version`` predates the rule set ``than``."""
    return ruleset_rank(version) < ruleset_rank(than)


@dataclass(frozen=True, slots=True)
class FieldHit:
    """One marker the current rules added: in column ``field`` (``raw.a.b`` inside JSON)."""

    field: str
    rule: str
    position: int


@dataclass(slots=True)
class Recheck:
    """What the current rules change in one record: new column values and their hits."""

    values: dict[str, Any] = field(default_factory=dict)
    hits: list[FieldHit] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.values)


def recheck(
    record: Mapping[Any, Any], text_columns: Iterable[str], json_columns: Iterable[str] = ()
) -> Recheck:
    """Re-redact the named columns of ``record`` (a row as a mapping) with the current rules.

    Only columns that gain a marker appear in the result; ``None`` stays ``None``.
    """
    out = Recheck()
    for name in text_columns:
        value = record[name]
        if not isinstance(value, str):
            continue
        new, hits = redact_text(value)
        if hits:
            out.values[name] = new
            out.hits += [FieldHit(name, h.rule, h.start) for h in hits]
    for name in json_columns:
        value = record[name]
        if value is None:
            continue
        new_obj, path_hits = redact_obj(value)
        if path_hits:
            out.values[name] = new_obj
            out.hits += [
                FieldHit(f"{name}.{h.path}" if h.path else name, h.rule, h.start) for h in path_hits
            ]
    return out
