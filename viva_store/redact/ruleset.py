"""The rule set in force: the built-in rules plus what ``[redact]`` in ``config.toml`` adds.

A :class:`RuleSet` is immutable: its rules in priority order, the keyword
index that decides which rules to try on a text, the values it never redacts
and its version. The process has one active set (:func:`active`), the
built-ins until :func:`configure` installs the user's settings; the version
changes with them, so a record says which rules redacted it.
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from viva_store.redact.jwt import is_public_jwt
from viva_store.redact.keywords import KeywordIndex
from viva_store.redact.rule import Rule
from viva_store.redact.rules import RULES
from viva_store.redact.settings import RedactSettings, parse_settings

RULESET_VERSION = "4"
"""Version of the built-in rule table; bump it whenever a rule is added, removed or changed."""


@dataclass(frozen=True, eq=False)
class RuleSet:
    """Rules in priority order (the first names the marker when spans overlap) and what
    is kept whatever a rule says: listed values, listed patterns, public JWTs."""

    rules: tuple[Rule, ...]
    version: str
    settings: RedactSettings = field(default_factory=RedactSettings)
    allow_values: frozenset[str] = frozenset()
    allow_pattern: re.Pattern[str] | None = None
    by_id: dict[str, Rule] = field(init=False)
    markers: tuple[str, ...] = field(init=False)
    index: KeywordIndex = field(init=False)
    """Every rule's keywords: which rules to try on a text, and where. The rules that also
    need one of their ``starts`` (a Lob key: ``test_`` and ``lob``) are partial there, so
    a common keyword alone (``test_`` in every pytest line) sends no text to the redactor."""
    keyed: int = field(init=False)

    def __post_init__(self) -> None:
        by_id = {rule.id: rule for rule in self.rules}
        if len(by_id) != len(self.rules):
            raise ValueError("duplicate rule id in the redaction rule table")
        object.__setattr__(self, "by_id", by_id)
        object.__setattr__(self, "markers", tuple(f"[REDACTED:{r.id}]" for r in self.rules))
        entries: dict[tuple[str, bool, bool], set[int]] = defaultdict(set)
        for i, rule in enumerate(self.rules):
            for kw in rule.keywords:
                entries[(kw, False, rule.bounded)].add(i)
            for kw in rule.caseless:
                entries[(kw, True, rule.bounded)].add(i)
        partial = frozenset(i for i, rule in enumerate(self.rules) if rule.needs_start)
        index = KeywordIndex({e: frozenset(v) for e, v in entries.items()}, partial)
        object.__setattr__(self, "index", index)
        object.__setattr__(self, "keyed", self.rules.index(by_id["secret-assignment"]))

    def flagged(self, texts: Sequence[str], *, fast: bool = True) -> set[int]:
        """Indices of the ``texts`` some rule may find a secret in: one of its keywords
        occurs and, for a rule tried only at its ``starts``, one of those too. Exact:
        :func:`~viva_store.redact.engine.redact_text` changes no other text."""
        found, maybe = self.index.screen(texts, fast=fast)
        for n, rules in maybe.items():
            if any(self.rules[i].start_positions(texts[n]) for i in rules):
                found.add(n)
        return found

    def occurs(self, text: str) -> bool:
        """:meth:`flagged` for one text."""
        return bool(self.flagged([text]))

    def kept(self, value: str) -> bool:
        """Whether ``value``, found by some rule, stays: allow-listed, or a public JWT."""
        if value in self.allow_values:
            return True
        if self.allow_pattern is not None and self.allow_pattern.search(value):
            return True
        return value.startswith("eyJ") and is_public_jwt(value)


def _user_rule(rule: Any) -> Rule:
    return Rule(
        id=rule.name,
        pattern=rule.regex,
        description=rule.description or "a rule from config.toml [redact]",
        source="config.toml [redact]",
        keywords=rule.keywords,
    )


def build(settings: RedactSettings | None = None) -> RuleSet:
    """The built-in rules, with ``settings`` when given: the user's rules first (of two
    spans starting together, theirs names the marker), and their allow-lists."""
    if settings is None or settings.empty:
        return RuleSet(RULES, RULESET_VERSION)
    digest = hashlib.blake2b(repr(settings).encode(), digest_size=4).hexdigest()
    patterns = settings.allow_patterns
    return RuleSet(
        (*(_user_rule(r) for r in settings.rules), *RULES),
        f"{RULESET_VERSION}+{digest}",
        settings,
        frozenset(settings.allow),
        re.compile("|".join(f"(?:{p})" for p in patterns)) if patterns else None,
    )


BUILTIN = build()
_active = BUILTIN


def active() -> RuleSet:
    """The rule set redaction uses in this process."""
    return _active


def configure(settings: RedactSettings | None) -> None:
    """Use the built-in rules plus ``settings`` from now on (``None``: the built-ins only)."""
    global _active
    settings = settings or RedactSettings()
    if settings != _active.settings:
        _active = BUILTIN if settings.empty else build(settings)


def settings_from_config(table: Mapping[str, Any], where: str = "config.toml") -> RedactSettings:
    """Check the ``[redact]`` table of the config file ``where`` (raises InvalidInput, one
    line naming every bad entry)."""
    return parse_settings(table, set(BUILTIN.by_id), where)


def ruleset_version() -> str:
    """The version of the active rule set, to store beside what it redacted."""
    return _active.version
