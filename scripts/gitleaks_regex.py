"""Go (RE2) regular expressions as Python ``re`` patterns, and what every match must contain.

gitleaks writes its rules for Go's ``regexp``. Python's ``re`` differs where it
matters here: a flag group such as ``(?i)`` may stand only at the very start
(Go allows it anywhere and it lasts to the end of the enclosing group, across
``|``); ``\\z`` is ``\\Z``; ``$`` without ``(?m)`` is the end of the text only;
``\\s`` is ``[\\t\\n\\f\\r ]``; POSIX classes (``[[:alnum:]]``) do not exist.
:func:`translate` rewrites those and leaves the rest as written; patterns are
compiled with ``re.ASCII`` so that ``\\w``, ``\\d`` and ``\\b`` mean what they mean
in Go.

:func:`prefixes` and :func:`required` read a compiled pattern's syntax tree:
the literals every match starts with (a rule can then be tried only where one
occurs) and the literals every match contains (the keyword gate).
"""

from __future__ import annotations

import re
import re._constants as sre_c  # type: ignore[import-not-found]  # no stubs; the parser itself
import re._parser as sre_parse  # type: ignore[import-not-found]
from typing import Any

FLAGS = re.ASCII
_GO_SPACE = r"\t\n\f\r "
_POSIX = {
    "alnum": "0-9A-Za-z",
    "alpha": "A-Za-z",
    "ascii": r"\x00-\x7f",
    "blank": r"\t ",
    "cntrl": r"\x00-\x1f\x7f",
    "digit": "0-9",
    "graph": r"!-~",
    "lower": "a-z",
    "print": r" -~",
    "punct": r"!-/:-@\[-`{-~",
    "space": _GO_SPACE + r"\v",
    "upper": "A-Z",
    "word": "0-9A-Za-z_",
    "xdigit": "0-9A-Fa-f",
}
_FLAG_GROUP = re.compile(r"\(\?([imsU]*)(?:-([imsU]*))?\)")


class Unsupported(ValueError):
    """A Go construct with no faithful Python equivalent."""


def _class(go: str, i: int) -> tuple[str, int]:
    """Translate the character class starting at ``go[i] == '['``; return it and the next index."""
    out = ["["]
    i += 1
    if go.startswith("^", i):
        out.append("^")
        i += 1
    first = True
    while True:
        if i >= len(go):
            raise Unsupported("unterminated character class")
        c = go[i]
        if c == "]" and not first:
            out.append("]")
            return "".join(out), i + 1
        first = False
        if c == "[" and go.startswith("[:", i):
            end = go.index(":]", i + 2)
            name = go[i + 2 : end]
            if name.startswith("^"):
                raise Unsupported("negated POSIX class")
            out.append(_POSIX[name])
            i = end + 2
        elif c == "\\":
            esc = go[i + 1]
            if esc == "s":
                out.append(_GO_SPACE)
            elif esc in "pPQEC":
                raise Unsupported(f"\\{esc} in a class")
            elif esc == "x" and go.startswith("{", i + 2):
                end = go.index("}", i)
                out.append(f"\\U{int(go[i + 3 : end], 16):08x}")
                i = end + 1
                continue
            else:
                out.append(go[i : i + 2])
            i += 2
        elif c in "[&~|":
            out.append("\\" + c)  # Python warns about (future) set operations
            i += 1
        else:
            out.append(c)
            i += 1


# A JSON escape (`\n`, `\u001b`) before a word counts as a word boundary, so that a
# token at the start of a line is found in undecoded JSON text too.
JSON_BOUNDARY = r"(?:\b|(?<=\\[nrtbf])(?=\w)|(?<=\\u[0-9a-fA-F]{4})(?=\w))"


def translate(go: str, *, json_escapes: bool = False) -> str:
    """Rewrite the Go regular expression ``go`` for Python's ``re`` (compile with :data:`FLAGS`).

    With ``json_escapes``, a ``\b`` also holds after a JSON escape (see
    :data:`JSON_BOUNDARY`). Raises :class:`Unsupported` for constructs that
    would change meaning.
    """
    out: list[str] = []
    # One frame per open group: the flag scopes opened inside it by `(?i)`-style groups.
    frames: list[list[str]] = [[]]
    i = 0
    while i < len(go):
        c = go[i]
        if c == "\\":
            esc = go[i + 1]
            if esc == "z":
                out.append(r"\Z")
            elif esc == "b" and json_escapes:
                out.append(JSON_BOUNDARY)
            elif esc == "s":
                out.append(f"[{_GO_SPACE}]")
            elif esc == "S":
                out.append(f"[^{_GO_SPACE}]")
            elif esc == "x" and go.startswith("{", i + 2):
                end = go.index("}", i)
                out.append(f"\\U{int(go[i + 3 : end], 16):08x}")
                i = end + 1
                continue
            elif esc in "pPQEC":
                raise Unsupported(f"\\{esc}")
            else:
                out.append(go[i : i + 2])
            i += 2
        elif c == "[":
            text, i = _class(go, i)
            out.append(text)
        elif c == "(":
            flags = _FLAG_GROUP.match(go, i)
            if flags:
                on, off = flags.group(1), flags.group(2) or ""
                if "m" in on or "U" in on or "U" in off:
                    raise Unsupported("(?m) and (?U)")
                scope = on + (f"-{off}" if off else "")
                if scope:
                    out.append(f"(?{scope}:")
                    frames[-1].append(scope)
                i = flags.end()
                continue
            if go.startswith("(?<", i) and not go.startswith(("(?<=", "(?<!"), i):
                out.append("(?P<")
                i += 3
            else:
                out.append("(")
                i += 1
            frames.append([])
        elif c == ")":
            out.append(")" * len(frames[-1]) + ")")
            frames.pop()
            i += 1
        elif c == "|":
            scopes = frames[-1]
            out.append(")" * len(scopes) + "|" + "".join(f"(?{s}:" for s in scopes))
            i += 1
        elif c == "$":
            out.append(r"\Z")
            i += 1
        elif c == "{" and re.match(r"\{,\d+\}", go[i:]):
            out.append(r"\{")  # a literal in Go; a repetition in Python
            i += 1
        else:
            out.append(c)
            i += 1
    if len(frames) != 1:
        raise Unsupported("unbalanced parentheses")
    out.append(")" * len(frames[0]))
    return "".join(out)


Literal = tuple[str, bool]
"""A literal string and whether it matches regardless of (ASCII) case (then lower-cased)."""

_ZERO_WIDTH = {sre_c.AT, sre_c.ASSERT, sre_c.ASSERT_NOT}
_REPEATS = {sre_c.MAX_REPEAT, sre_c.MIN_REPEAT}
_CAP = 64  # largest literal set worth keeping (cross products grow fast)


def _zero_width(node: Any) -> bool:
    """Whether ``node`` consumes nothing (an assertion, or alternatives of assertions)."""
    op, av = node
    if op in _ZERO_WIDTH:
        return True
    if op is sre_c.SUBPATTERN:
        return all(_zero_width(n) for n in av[3])
    if op is sre_c.BRANCH:
        return all(all(_zero_width(n) for n in branch) for branch in av[1])
    return False


def _parse(pattern: str) -> Any:
    return sre_parse.parse(pattern, FLAGS)


def _join(a: Literal, b: Literal) -> Literal:
    caseless = a[1] or b[1]
    text = a[0] + b[0]
    return (text.lower(), True) if caseless else (text, False)


def _product(left: set[Literal], right: set[Literal]) -> set[Literal] | None:
    if len(left) * len(right) > _CAP:
        return None
    return {_join(a, b) for a in left for b in right}


def _inner_ci(av: Any, ci: bool) -> bool:
    _, add, remove, _ = av
    return (ci or bool(add & re.IGNORECASE)) and not remove & re.IGNORECASE


def _exact(node: Any, ci: bool) -> set[Literal] | None:
    """The finite set of strings ``node`` matches, when it is one (else None)."""
    op, av = node
    if op is sre_c.LITERAL:
        ch = chr(av)
        return {(ch.lower(), True)} if ci and ch.lower() != ch.upper() else {(ch, False)}
    if op is sre_c.IN and all(o is sre_c.LITERAL for o, _ in av) and len(av) <= 8:
        chars = {chr(c) for _, c in av}
        if len(chars) == 2 and len({c.lower() for c in chars}) == 1:
            return {(next(iter(chars)).lower(), True)}  # [Aa]
        return {(c.lower(), True) if ci and c.lower() != c.upper() else (c, False) for c in chars}
    if op is sre_c.SUBPATTERN:
        return _exact_items(list(av[3]), _inner_ci(av, ci))
    if op is sre_c.BRANCH:
        out: set[Literal] = set()
        for branch in av[1]:
            got = _exact_items(list(branch), ci)
            if got is None:
                return None
            out |= got
        return out if len(out) <= _CAP else None
    if op in _REPEATS and av[0] == av[1] and 1 <= av[0] <= 8:
        one = _exact_items(list(av[2]), ci)
        acc: set[Literal] | None = {("", False)}
        for _ in range(av[0]):
            if one is None or acc is None:
                return None
            acc = _product(acc, one)
        return acc
    return None


def _exact_items(items: list[Any], ci: bool) -> set[Literal] | None:
    acc: set[Literal] | None = {("", False)}
    for node in items:
        if _zero_width(node):
            continue
        got = _exact(node, ci)
        if got is None or acc is None:
            return None
        acc = _product(acc, got)
    return acc


def _starts_items(items: list[Any], ci: bool) -> set[Literal] | None:
    """Literal starts of every match of the sequence (None when some match may start
    with anything)."""
    acc: set[Literal] = {("", False)}
    for node in items:
        if _zero_width(node):
            continue
        got = _exact(node, ci)
        if got is not None:
            joined = _product(acc, got)
            if joined is not None:
                acc = joined
                continue
        tail = _starts_node(node, ci)
        if tail is not None:
            acc = _product(acc, tail) or acc
        break
    return acc if all(text for text, _ in acc) else None


def _starts_node(node: Any, ci: bool) -> set[Literal] | None:
    op, av = node
    if op is sre_c.SUBPATTERN:
        return _starts_items(list(av[3]), _inner_ci(av, ci))
    if op is sre_c.BRANCH:
        out: set[Literal] = set()
        for branch in av[1]:
            got = _starts_items(list(branch), ci)
            if got is None:
                return None
            out |= got
        return out if len(out) <= _CAP else None
    if op in _REPEATS and av[0] >= 1:
        return _starts_items(list(av[2]), ci)
    return None


def prefixes(pattern: str) -> set[Literal] | None:
    """The literals every match of ``pattern`` starts with, once its leading zero-width
    assertions are passed (None when some match may start otherwise)."""
    parsed = _parse(pattern)
    return _starts_items(list(parsed), bool(parsed.state.flags & re.IGNORECASE))


def _rank(lits: set[Literal]) -> tuple[int, int, int]:
    """Sets that occur less sort first: a longer shortest literal, case-sensitive, fewer."""
    return (-min(len(t) for t, _ in lits), sum(c for _, c in lits), len(lits))


def _required_items(items: list[Any], ci: bool) -> set[Literal] | None:
    candidates: list[set[Literal]] = []
    chain: set[Literal] = {("", False)}
    for node in items:
        if _zero_width(node):
            continue
        got = _exact(node, ci)
        joined = _product(chain, got) if got is not None else None
        if joined is not None:
            chain = joined
            continue
        tail = _starts_node(node, ci)
        extended = _product(chain, tail) if tail is not None else None
        for candidate in (chain, extended, _required_node(node, ci)):
            if candidate and all(text for text, _ in candidate):
                candidates.append(candidate)
        chain = got if got is not None and len(got) <= _CAP else {("", False)}
    if all(text for text, _ in chain):
        candidates.append(chain)
    return min(candidates, key=_rank) if candidates else None


def _required_node(node: Any, ci: bool) -> set[Literal] | None:
    op, av = node
    if op is sre_c.SUBPATTERN:
        return _required_items(list(av[3]), _inner_ci(av, ci))
    if op is sre_c.BRANCH:
        out: set[Literal] = set()
        for branch in av[1]:
            got = _required_items(list(branch), ci)
            if got is None:
                return None
            out |= got
        return out
    if op in _REPEATS and av[0] >= 1:
        return _required_items(list(av[2]), ci)
    return _exact(node, ci)


def required(pattern: str) -> set[Literal] | None:
    """Literals of which every match of ``pattern`` contains one (None if unknown); of
    several such sets, the one with the longest shortest literal."""
    parsed = _parse(pattern)
    return _required_items(list(parsed), bool(parsed.state.flags & re.IGNORECASE))


def is_fixed(pattern: str) -> bool:
    """Whether ``pattern`` matches only a finite set of fixed strings."""
    parsed = _parse(pattern)
    return _exact_items(list(parsed), bool(parsed.state.flags & re.IGNORECASE)) is not None
