"""The rule table: every built-in redaction rule, in priority order.

When two rules report overlapping secrets, the spans are merged and the rule
listed first here names the marker. Viva's own rules come first — AI
providers, then the other shaped tokens (``ghp_...``), then the context rules
(``TOKEN=...``) that would also catch them — and then every content rule of
gitleaks' default configuration (``rules_gitleaks``; an id Viva already uses
gets a ``gitleaks-`` prefix). Viva's rules live in the ``rules_*`` modules,
one per family.
"""

from __future__ import annotations

from viva_store.redact import (
    rules_ai,
    rules_cloud,
    rules_context,
    rules_gitleaks,
    rules_keys,
    rules_saas,
    rules_vcs,
)
from viva_store.redact.rule import Rule

VIVA_RULES: tuple[Rule, ...] = (
    *rules_ai.RULES,
    *rules_vcs.RULES,
    *rules_cloud.RULES,
    *rules_saas.RULES,
    *rules_keys.RULES,
    *rules_context.RULES,
)
"""Viva's own rules, each with its true- and false-positive example."""

GITLEAKS_RULES, GITLEAKS_SOURCE = rules_gitleaks.load({rule.id for rule in VIVA_RULES})
"""gitleaks' default rules, and the version they were generated from."""

RULES: tuple[Rule, ...] = (*VIVA_RULES, *GITLEAKS_RULES)
"""Every built-in rule, highest priority first."""

RULES_BY_ID: dict[str, Rule] = {rule.id: rule for rule in RULES}

if len(RULES_BY_ID) != len(RULES):
    raise ValueError("duplicate rule id in the redaction rule table")

__all__ = ["GITLEAKS_RULES", "GITLEAKS_SOURCE", "RULES", "RULES_BY_ID", "VIVA_RULES", "Rule"]
