"""A user's own redaction rules and allow-listed values: the ``[redact]`` table of ``config.toml``.

.. code-block:: toml

    [redact]
    allow = ["pk_demo_0000"]                 # values never redacted (exact)
    allow_patterns = ['^acme-public-']       # Python regexes; a secret they match is kept

    [[redact.rules]]
    name = "acme-token"                      # the marker: [REDACTED:acme-token]
    regex = 'acme_[A-Za-z0-9]{32}'           # Python syntax; a group named "secret" narrows it
    keywords = ["acme_"]                     # one occurs in every match (exact case)

Every problem is reported at once, one clause per bad entry, in a single line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from viva_store.errors import InvalidInput

_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_RULE_KEYS = {"name", "regex", "keywords", "description"}
_TABLE_KEYS = {"rules", "allow", "allow_patterns"}


@dataclass(frozen=True, slots=True)
class UserRule:
    """One rule from ``[[redact.rules]]``, already checked."""

    name: str
    regex: str
    keywords: tuple[str, ...]
    description: str = ""


@dataclass(frozen=True, slots=True)
class RedactSettings:
    """What a user adds to the built-in rules: rules, and values to keep. Picklable, so an
    import's reader processes can be given the same settings."""

    rules: tuple[UserRule, ...] = ()
    allow: tuple[str, ...] = ()
    allow_patterns: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        return not (self.rules or self.allow or self.allow_patterns)


def _strings(value: Any) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _rule(n: int, raw: Any, taken: set[str], problems: list[str]) -> UserRule | None:
    where = f"rule {n}"
    if not isinstance(raw, Mapping):
        problems.append(f"{where} must be a table")
        return None
    name = raw.get("name")
    if isinstance(name, str):
        where = f"rule {n} ({name!r})"
    before = len(problems)
    for key in sorted(set(raw) - _RULE_KEYS):
        problems.append(f"{where}: unknown key {key!r}")
    if not isinstance(name, str) or not _NAME.fullmatch(name) or len(name) > 64:
        problems.append(f"{where}: name must be lower-case words joined by '-' (at most 64)")
    elif name in taken:
        problems.append(f"{where}: the name is already taken by another rule")
    regex = raw.get("regex")
    if not isinstance(regex, str) or not regex:
        problems.append(f"{where}: regex must be a non-empty string")
    else:
        try:
            compiled = re.compile(regex)
        except re.error as exc:
            problems.append(f"{where}: regex does not compile ({exc})")
        else:
            if compiled.fullmatch(""):
                problems.append(f"{where}: regex matches the empty string")
    keywords = _strings(raw.get("keywords"))
    if not keywords or any(
        len(k) < 2 or "\n" in k or "?" in k or not k.isascii() for k in keywords
    ):
        problems.append(
            f"{where}: keywords must be a list of ASCII strings of 2 or more characters, "
            "without a newline or ?"
        )
    description = raw.get("description", "")
    if not isinstance(description, str):
        problems.append(f"{where}: description must be a string")
    if len(problems) > before:
        return None
    assert isinstance(name, str) and isinstance(regex, str) and keywords is not None
    taken.add(name)
    return UserRule(name, regex, tuple(keywords), str(description))


def parse_settings(
    table: Mapping[str, Any], builtin_ids: set[str], where: str = "config.toml"
) -> RedactSettings:
    """Check and read the ``[redact]`` table of the file ``where``; raise
    :class:`InvalidInput` naming every problem."""
    problems: list[str] = [f"unknown key {key!r}" for key in sorted(set(table) - _TABLE_KEYS)]
    raw_rules = table.get("rules", [])
    if not isinstance(raw_rules, list):
        problems.append("rules must be an array of tables ([[redact.rules]])")
        raw_rules = []
    taken = set(builtin_ids)
    rules = [_rule(n, raw, taken, problems) for n, raw in enumerate(raw_rules, 1)]
    allow = _strings(table.get("allow", []))
    if allow is None:
        problems.append("allow must be a list of strings")
    patterns = _strings(table.get("allow_patterns", []))
    if patterns is None:
        problems.append("allow_patterns must be a list of strings")
    for p in patterns or []:
        try:
            re.compile(p)
        except re.error as exc:
            problems.append(f"allow_patterns {p!r} does not compile ({exc})")
    if problems:
        raise InvalidInput(f"{where} [redact]: " + "; ".join(problems))
    return RedactSettings(
        rules=tuple(r for r in rules if r is not None),
        allow=tuple(allow or ()),
        allow_patterns=tuple(patterns or ()),
    )
