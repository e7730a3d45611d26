"""Secret redaction before anything reaches disk (DESIGN invariant I4).

A pure module: no I/O, no database. :func:`redact_text` and :func:`redact_obj`
replace every secret with ``[REDACTED:<rule-id>]`` and return a ledger of hits
(rule and position, never the value). :data:`RULESET_VERSION` names the rule
table a record was redacted with.
"""

from viva_store.redact.engine import (
    RULESET_VERSION,
    Hit,
    PathHit,
    may_hold_secret,
    redact_obj,
    redact_text,
)
from viva_store.redact.rules import RULES, RULES_BY_ID, Rule
from viva_store.redact.typed import redact_typed

__all__ = [
    "RULES",
    "RULESET_VERSION",
    "RULES_BY_ID",
    "Hit",
    "PathHit",
    "Rule",
    "may_hold_secret",
    "redact_obj",
    "redact_text",
    "redact_typed",
]
