"""The rule table: every redaction rule, in priority order.

When two rules report overlapping secrets, the spans are merged and the rule
listed first here names the marker, so shaped tokens (``ghp_...``) come before
the context rules (``TOKEN=...``) that would also catch them. The rules
themselves live in the ``rules_*`` modules, one per family.
"""

from __future__ import annotations

from viva_store.redact import (
    rules_ai,
    rules_cloud,
    rules_context,
    rules_keys,
    rules_saas,
    rules_vcs,
)
from viva_store.redact.rule import Rule

RULES: tuple[Rule, ...] = (
    *rules_ai.RULES,
    *rules_vcs.RULES,
    *rules_cloud.RULES,
    *rules_saas.RULES,
    *rules_keys.RULES,
    *rules_context.RULES,
)
"""Every rule, highest priority first."""

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}

if len(RULES_BY_ID) != len(RULES):
    raise ValueError("duplicate rule id in the redaction rule table")

__all__ = ["RULES", "RULES_BY_ID", "Rule"]
