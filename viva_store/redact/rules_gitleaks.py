"""gitleaks' default rules, generated into ``gitleaks/rules.json`` (MIT: ``gitleaks/LICENSE``).

``scripts/gen_gitleaks_rules.py`` translates each rule's Go regex for Python
and records where Viva tries it (keywords, anchoring); this module turns the
table into :class:`Rule` objects that judge a match as gitleaks does: the
secret is the rule's secret group or else the first non-empty group, a secret
at or below the rule's entropy is dropped, and so is one the global or the
rule's allowlists admit. Viva then replaces the secret (the whole match for a
rule whose groups only name variants). One departure: the value a keyword-
context rule finds (``generic-api-key``, ``<service>_key = ...``) is also kept
when Viva's value checks show it is no credential (a name, a placeholder, a
single short word, a public JWT).
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from viva_store.redact.rule import Rule
from viva_store.redact.values import not_a_credential

TABLE = Path(__file__).resolve().parent / "gitleaks" / "rules.json"
_FLAGS = re.ASCII
_LEFT_CONTEXT = re.compile(r"[\w.-]{1,50}\Z", _FLAGS)  # what gitleaks' identifier prefix took


def shannon_entropy(data: str) -> float:
    """Bits per character of ``data``, as gitleaks computes it (over its UTF-8 length)."""
    if not data:
        return 0.0
    size = len(data.encode("utf-8", "surrogatepass"))
    return -sum(n / size * math.log2(n / size) for n in Counter(data).values())


class Stopwords:
    """Words that make a secret holding one no secret (generic-api-key has some 1,400),
    looked up by the two characters at each position: nothing to compile (one regex of
    them all took tens of milliseconds, paid by the first ``KEY=...`` judged)."""

    def __init__(self, words: list[str]) -> None:
        self._short = {w for w in words if len(w) == 1}
        self._by_head: dict[str, list[str]] = {}
        for w in words:
            if len(w) > 1:
                self._by_head.setdefault(w[:2], []).append(w)

    def any_in(self, text: str) -> bool:
        """Whether one of the words occurs in ``text``."""
        if any(w in text for w in self._short):
            return True
        by_head = self._by_head
        return any(
            text.startswith(w, i)
            for i in range(len(text) - 1)
            for w in by_head.get(text[i : i + 2], ())
        )


@dataclass(frozen=True, slots=True)
class Allowlist:
    """One gitleaks allowlist: what it looks at, and the checks that admit a finding."""

    target: str  # "secret", "match" or "line"
    every: bool  # condition AND: all checks must admit; OR: any
    regex: re.Pattern[str] | None
    digests: frozenset[tuple[int, str]]  # (length, SHA-256) of public tokens
    stopwords: Stopwords | None

    @classmethod
    def load(cls, raw: dict[str, Any]) -> Allowlist:
        regexes = [r["regex"] for r in raw.get("regexes", [])]
        words = raw.get("stopwords", [])
        return cls(
            target=raw["target"],
            every=raw["condition"] == "AND",
            regex=re.compile("|".join(f"(?:{r})" for r in regexes), _FLAGS) if regexes else None,
            digests=frozenset((d["length"], d["sha256"]) for d in raw.get("digests", [])),
            stopwords=Stopwords(words) if words else None,
        )

    def admits(self, secret: str, match: str, line: str) -> bool:
        target = {"secret": secret, "match": match, "line": line}[self.target]
        checks: list[bool] = []
        if self.regex is not None or self.digests:
            by_regex = self.regex is not None and self.regex.search(target) is not None
            checks.append(by_regex or self._digest_in(target))
        if self.stopwords is not None:
            checks.append(self.stopwords.any_in(secret.lower()))
        return all(checks) if self.every else any(checks)

    def _digest_in(self, target: str) -> bool:
        """Whether a listed public token occurs in ``target``."""
        for size in {n for n, _ in self.digests}:
            for i in range(len(target) - size + 1):
                digest = hashlib.sha256(target[i : i + size].encode("utf-8", "surrogatepass"))
                if (size, digest.hexdigest()) in self.digests:
                    return True
        return False


@dataclass(frozen=True, slots=True)
class Judge:
    """gitleaks' verdict on one rule's matches, and the span Viva replaces. The rule's
    allowlists are compiled when it first finds something."""

    entropy: float | None
    secret_group: int | None
    redact_match: bool
    left_context: bool
    raw_allowlists: tuple[str, ...]  # JSON, the global allowlist first

    @property
    def allowlists(self) -> list[Allowlist]:
        return [_allowlist(raw) for raw in self.raw_allowlists]

    def __call__(self, m: re.Match[str]) -> tuple[int, int] | None:
        span = self._secret(m)
        secret = m.string[span[0] : span[1]]
        if not secret:
            return None
        if self.left_context:  # a keyword-context rule: is the value a name, word, ...?
            value = secret.strip("\"'`")
            literal = value != secret or _quoted(m.string, span[0])
            # (Digits only are the shape of some of these rules: client ids.)
            if not value.isdigit() and not_a_credential(value, literal=literal):
                return None
        if self.entropy is not None and shannon_entropy(secret) <= self.entropy:
            return None
        text, start = m.string, m.start()
        if self.left_context:
            left = _LEFT_CONTEXT.search(text, max(0, start - 50), start)
            start = left.start() if left else start
        line = text[text.rfind("\n", 0, m.start()) + 1 : _line_end(text, m.end())]
        match = text[start : m.end()]
        if any(a.admits(secret, match, line) for a in self.allowlists):
            return None
        return m.span() if self.redact_match else span

    def _secret(self, m: re.Match[str]) -> tuple[int, int]:
        if self.secret_group is not None:
            return m.span(self.secret_group)
        for g in range(1, (m.re.groups or 0) + 1):
            start, end = m.span(g)
            if end > start:
                return start, end
        return m.span()


@functools.cache
def _allowlist(raw: str) -> Allowlist:
    return Allowlist.load(json.loads(raw))


def _quoted(text: str, start: int) -> bool:
    return start > 0 and text[start - 1] in "\"'`"


def _line_end(text: str, end: int) -> int:
    i = text.find("\n", end)
    return len(text) if i < 0 else i


def load(taken: set[str]) -> tuple[tuple[Rule, ...], dict[str, Any]]:
    """The generated rules (ids in ``taken`` get a ``gitleaks-`` prefix) and the source record."""
    table = json.loads(TABLE.read_text(encoding="utf-8"))
    source = table["source"]
    overall = json.dumps(table["global_allowlist"])
    rules: list[Rule] = []
    for raw in table["rules"]:
        rule_id = raw["id"] if raw["id"] not in taken else f"gitleaks-{raw['id']}"
        judge = Judge(
            entropy=raw["entropy"],
            secret_group=raw["secret_group"],
            redact_match=raw["redact_match"],
            left_context=raw["left_context"],
            raw_allowlists=(overall, *(json.dumps(a) for a in raw.get("allowlists", []))),
        )
        rules.append(
            Rule(
                id=rule_id,
                pattern=raw["regex"],
                flags=_FLAGS,
                description=raw["description"],
                source=f"gitleaks '{raw['id']}' ({source['version']})",
                keywords=tuple(raw["keywords"]),
                caseless=tuple(raw["caseless"]),
                anchored=raw["anchored"],
                bounded=raw["bounded"],
                starts=tuple(raw["starts"]),
                starts_caseless=tuple(raw["starts_caseless"]),
                locate=judge,
            )
        )
    return tuple(rules), source
