"""Planted secrets: every rule's true positive, in every shape a secret reaches Viva in.

A rule's example comes from the rule (Viva's written parts, or a sample of a
generated rule's pattern, see ``gitleaks_examples``), so nothing token-shaped
is committed. The shapes: bare in prose, in an assignment, inside an
undecoded JSON line, inside Claude Code's line-numbered Read output, quoted
(``> ``), in a path, and in text typed on the command line. A secret that its
rule finds only in context (``asana_client_id = ...``) travels with its
context; one it finds alone is planted alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import orjson

from viva_store.redact import Rule, redacted
from viva_store.redact.rules import VIVA_RULES

from .gitleaks_examples import true_positive
from .support import secret_of, survivors

_MARKER = re.compile(r"\[REDACTED:[a-z0-9-]{1,64}\]")


@dataclass(frozen=True, slots=True)
class Example:
    """A rule's true positive: the text to plant and the secret inside it."""

    rule: str
    text: str
    secret: str
    alone: bool  # the rule finds the secret without its context


@dataclass(frozen=True, slots=True)
class Plant:
    """One example in one shape: what Viva is given, and what must not come back."""

    rule: str
    shape: str
    text: str
    secret: str


def example(rule: Rule) -> Example:
    if rule in VIVA_RULES:
        text, secret = rule.tp_example, secret_of(rule)
    else:
        found = true_positive(rule)
        assert found is not None, rule.id
        text, secret = found
    # Alone: the redactor (keyword gate and all) finds the secret without its context.
    alone = "\n" not in secret and not survivors(secret, redacted(secret))
    return Example(rule.id, text, secret, alone)


def _lines(text: str) -> list[str]:
    return ["# settings", *text.split("\n"), "# end"]


SHAPES: dict[str, Callable[[Example], str]] = {
    "bare": lambda e: f"Here is what the command printed:\n{e.secret if e.alone else e.text}\nok",
    "assignment": lambda e: f"export PLANTED_TOKEN={e.secret}" if e.alone else e.text,
    "json-escaped": lambda e: orjson.dumps(
        {"type": "user", "message": {"content": f"before\n{e.text}\nafter"}}
    ).decode(),
    "read-output": lambda e: "\n".join(
        f"{n:>6}\u2192{line}" for n, line in enumerate(_lines(e.text), 1)
    ),
    "quoted": lambda e: "\n".join("> " + line for line in _lines(e.text)),
    "path": lambda e: (
        f"/home/dev/src/{e.secret}/main.py" if e.alone else f"/home/dev/src/app/{e.text}"
    ),
    "cli-text": lambda e: (
        f'viva principle propose --text "rotate {e.secret if e.alone else e.text}"'
    ),
}


def planted(rules: tuple[Rule, ...]) -> Iterator[Plant]:
    """Every rule's example in every shape."""
    for rule in rules:
        found = example(rule)
        for shape, make in SHAPES.items():
            yield Plant(rule.id, shape, make(found), found.secret)


def leaked(plant: Plant, output: str, ignore: frozenset[str] = frozenset()) -> list[str]:
    """Pieces of the planted secret still in ``output`` (markers aside; decoded too), but
    for those in ``ignore`` (pieces other secrets or rule names share)."""
    bare = _MARKER.sub("", output)
    pieces = survivors(plant.secret, bare)
    if plant.shape == "json-escaped":
        escaped = orjson.dumps(plant.secret).decode()[1:-1]
        pieces += survivors(escaped, bare)
    return [p for p in pieces if p not in ignore]


def shared_pieces(plants: list[Plant], names: list[str]) -> frozenset[str]:
    """Pieces (as :func:`leaked` cuts them) found anywhere inside another distinct secret,
    or inside a rule's name: finding one says nothing about which secret leaked. (The
    sampler repeats runs across rules, at any offset, not only on the pieces' grid.)"""
    secrets = sorted({plant.secret for plant in plants})
    joined = "\n".join(names)
    shared: set[str] = set()
    for secret in secrets:
        for piece in _pieces(secret):
            if piece in joined or any(piece in other for other in secrets if other != secret):
                shared.add(piece)
    return frozenset(shared)


def _pieces(secret: str, width: int = 16) -> set[str]:
    if len(secret) <= width:
        return {secret}
    pieces = {secret[i : i + width] for i in range(0, len(secret) - width + 1, width // 2)}
    return pieces | {secret[-width:]}
