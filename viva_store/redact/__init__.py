"""Secret redaction before anything reaches disk (DESIGN invariant I4).

A pure module: no I/O, no database. :func:`redacted` replaces every secret in
a string that is about to be stored or shown with ``[REDACTED:<rule-id>]``;
:func:`redact_text` does the same and also returns a ledger of hits (rule and
position, never the value); :func:`redact_obj` does it for every string inside
decoded JSON; :func:`redact_typed` for what a person types; :func:`redact_path` for a file path.
:func:`ruleset_version` names the rules a record was redacted with. The built-in
rules are Viva's own and gitleaks' defaults;
:func:`settings_from_config` reads a user's ``[redact]`` table and
:func:`configure` puts it in force.
"""

from viva_store.redact.engine import (
    Hit,
    PathHit,
    may_hold_secret,
    redact_obj,
    redact_text,
    redacted,
)
from viva_store.redact.paths import FolderNames, redact_path
from viva_store.redact.rules import GITLEAKS_SOURCE, RULES, RULES_BY_ID, Rule
from viva_store.redact.ruleset import (
    RULESET_VERSION,
    RuleSet,
    active,
    configure,
    ruleset_version,
    settings_from_config,
)
from viva_store.redact.settings import RedactSettings, UserRule
from viva_store.redact.typed import redact_typed

__all__ = [
    "GITLEAKS_SOURCE",
    "RULES",
    "RULESET_VERSION",
    "RULES_BY_ID",
    "FolderNames",
    "Hit",
    "PathHit",
    "RedactSettings",
    "Rule",
    "RuleSet",
    "UserRule",
    "active",
    "configure",
    "may_hold_secret",
    "redact_obj",
    "redact_path",
    "redact_text",
    "redact_typed",
    "redacted",
    "ruleset_version",
    "settings_from_config",
]
