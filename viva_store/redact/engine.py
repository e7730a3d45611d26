"""Redaction engine: replace every secret with ``[REDACTED:<rule-id>]`` (DESIGN I4).

Pure functions, no I/O. :func:`redact_text` scans one string (a decoded value
or a raw, undecoded line: JSON escapes such as ``\\n`` and ``\\/`` inside key
material are understood); :func:`redact_obj` walks decoded JSON and scans
every string value, decoding strings that are themselves JSON. Hits report
positions in the *output*, never the secret.

Redaction is idempotent: no rule matches a marker, and spans touching an
existing marker are left alone, so redacting twice changes nothing. The rules
are those of the active rule set (:mod:`viva_store.redact.ruleset`).
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass
from typing import Any, TypeVar

import orjson

from viva_store.redact.escapes import escaped_views
from viva_store.redact.rules_context import SECRET_WORDS
from viva_store.redact.ruleset import RULESET_VERSION, RuleSet, active
from viva_store.redact.values import looks_like_secret

__all__ = [
    "RULESET_VERSION",
    "Hit",
    "PathHit",
    "may_hold_secret",
    "redact_obj",
    "redact_text",
    "secret_spans",
]

_MARKER_RE = re.compile(r"\[REDACTED:[a-z0-9-]{1,64}\]")
# Strings of a decoded object are scanned together, joined by a blank line (one scan
# of a long text beats many short ones); each string a span touches is then redacted
# on its own, so a match running across the join redacts nothing by itself.
_JOIN = "\n\n"
_MAX_NESTING = 8
_MAX_PASSES = 4

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Hit:
    """One redaction in a text: the marker sits at ``[start, end)`` of the output."""

    rule: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class PathHit:
    """One redaction in a decoded object.

    ``path`` names the string, e.g. ``message.content[0].text``; a step into a
    string holding JSON is written ``>``, e.g. ``payload.arguments>cmd``.
    ``start`` is where the marker begins in that (redacted) string.
    """

    path: str
    rule: str
    start: int


def _found(rs: RuleSet, text: str) -> list[tuple[int, int, int]]:
    """``(start, end, rule index)`` of every secret some rule finds in ``text``."""
    candidates = rs.index.find(text)
    found: list[tuple[int, int, int]] = []
    rules = rs.rules
    for i in sorted(candidates):
        rule = rules[i]
        spans = rule.spans_at(text, candidates[i]) if rule.anchored else rule.spans(text)
        found += [(s, e, i) for s, e in spans if not rs.kept(text[s:e])]
    return found


def _spans(rs: RuleSet, text: str) -> list[tuple[int, int, int]]:
    """Merged ``(start, end, rule index)`` of the secrets in ``text``, in order; of
    overlapping spans, the one starting first (then the rule listed first) names the marker.
    Undecoded JSON is also read with its escapes decoded (:mod:`~viva_store.redact.escapes`)."""
    found = _found(rs, text)
    # Escaped quotes or tabs (`\"key\": \"value\"`) hide what some rules look for:
    # read the text decoded too, twice when it was escaped twice, each find mapped back.
    views = escaped_views(text)
    for depth, view in enumerate(views):
        for s, e, i in _found(rs, view.view):
            for outer in reversed(views[: depth + 1]):
                s, e = outer.to_raw(s, e)
            found.append((s, e, i))
    if not found:
        return []
    if "[REDACTED:" in text:
        marks = [m.span() for m in _MARKER_RE.finditer(text)]
        found = [f for f in found if not any(s < f[1] and f[0] < e for s, e in marks)]
    found.sort(key=lambda f: (f[0], f[2]))
    merged: list[tuple[int, int, int]] = []
    for s, e, i in found:
        if merged and s < merged[-1][1]:
            if e > merged[-1][1]:
                merged[-1] = (merged[-1][0], e, merged[-1][2])
        else:
            merged.append((s, e, i))
    return merged


def _apply(rs: RuleSet, text: str, spans: list[tuple[int, int, int]]) -> tuple[str, list[Hit]]:
    out: list[str] = []
    hits: list[Hit] = []
    pos = olen = 0
    for s, e, i in spans:
        out.append(text[pos:s])
        olen += s - pos
        marker = rs.markers[i]
        hits.append(Hit(rs.rules[i].id, olen, olen + len(marker)))
        out.append(marker)
        olen += len(marker)
        pos = e
    out.append(text[pos:])
    return "".join(out), hits


def may_hold_secret(text: str) -> bool:
    """False when no rule can find anything in ``text`` by its keywords (and starts):
    then :func:`redact_text` would return it unchanged. One cheap scan, for callers that
    would otherwise redact many short strings one by one (join them with ``"\\x00"``
    first)."""
    return active().occurs(text)


def secret_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, rule)`` of each span of ``text`` that :func:`redact_text` replaces
    by a marker, in order: for callers that must find the same secrets in a text made
    from ``text`` one character for one (a folder name made from a working folder)."""
    rs = active()
    found = _spans(rs, text)
    for _ in range(_MAX_PASSES if found else 0):
        # Later passes read the text with the markers in (as redact_text does); `origin`
        # is where each of its characters was in `text` (-1: inside a marker).
        parts: list[str] = []
        origin: list[int] = []
        pos = 0
        for s, e, i in found:
            parts += (text[pos:s], rs.markers[i])
            origin += [*range(pos, s), *([-1] * len(rs.markers[i]))]
            pos = e
        parts.append(text[pos:])
        origin += range(pos, len(text))
        more = _spans(rs, "".join(parts))
        if not more:
            break
        found = sorted(found + [(origin[s], origin[e - 1] + 1, i) for s, e, i in more])
    return [(s, e, rs.rules[i].id) for s, e, i in found]


def redact_text(text: str) -> tuple[str, list[Hit]]:
    """Replace each secret in ``text`` with ``[REDACTED:<rule-id>]``.

    Returns the redacted text and one :class:`Hit` per marker inserted. A text
    without any rule keyword is returned as the very same object.
    """
    rs = active()
    spans = _spans(rs, text)
    if not spans:
        return text, []
    out, hits = _apply(rs, text, spans)
    # A token that touched another secret (`<token>-----BEGIN...`) only shows
    # its boundary once that secret is a marker: scan again until nothing
    # changes, so that redacting the output again finds nothing.
    for _ in range(_MAX_PASSES):
        spans = _spans(rs, out)
        if not spans:
            break
        out, more = _apply(rs, out, spans)
        shifted: list[Hit] = []
        for h in hits:
            delta = sum(len(rs.markers[i]) - (e - s) for s, e, i in spans if e <= h.start)
            shifted.append(Hit(h.rule, h.start + delta, h.end + delta))
        hits = sorted(shifted + more, key=lambda h: h.start)
    return out, hits


def redacted(text: str) -> str:
    """``text`` with every secret replaced by its marker: for a string about to be
    stored, printed or put in an error message."""
    return redact_text(text)[0]


# `Authorization` only as the header itself: Codex logs a `user_authorization` decision.
_STRONG_KEY = re.compile(rf"(?i:.*?(?:{SECRET_WORDS})|(?:proxy-)?authorization)")
_WEAK_KEY = re.compile(r".*_KEY|.*_PASS")
_AUTH_SCHEME = re.compile(r"(?i:bearer|basic|token|bot)\s+")
_key_cache: dict[str, int] = {}


def _key_strength(key: str) -> int:
    """How surely a JSON object key names a secret: 2 ``password``, 1 ``SORT_KEY``, 0 not."""
    strength = _key_cache.get(key)
    if strength is None:
        strength = 0
        if len(key) <= 64:
            if _STRONG_KEY.fullmatch(key):
                strength = 2
            elif _WEAK_KEY.fullmatch(key):
                strength = 1
        if len(_key_cache) > 4096:
            _key_cache.clear()
        _key_cache[key] = strength
    return strength


def _keyed_secret(value: str, strength: int) -> bool:
    """Whether the value of a secret-named key is a literal secret."""
    m = _AUTH_SCHEME.match(value)
    strong = strength == 2
    return looks_like_secret(value[m.end() :] if m else value, literal=strong, spaces=strong)


Node = tuple[Any, int, Any]  # container, index of its parent node, key in the parent


def _path(nodes: list[Node], node: int, key: Any) -> str:
    steps: list[str] = []
    while node >= 0:
        steps.append(f"[{key}]" if isinstance(key, int) else f".{key}")
        _, node, key = nodes[node]
    return "".join(reversed(steps)).removeprefix(".")


def _copy_on_write(nodes: list[Node], changes: dict[tuple[int, Any], str]) -> Any:
    """A copy of the root sharing every container that holds no change."""
    copies: dict[int, Any] = {}
    for (node, key), value in changes.items():
        chain: list[int] = []
        n = node
        while n >= 0 and n not in copies:
            chain.append(n)
            n = nodes[n][1]
        for n in reversed(chain):
            container, parent, pkey = nodes[n]
            copies[n] = container.copy()
            if parent >= 0:
                copies[parent][pkey] = copies[n]
        copies[node][key] = value
    return copies[0]


def redact_obj(obj: T, _depth: int = 0) -> tuple[T, list[PathHit]]:
    """Redact every string value inside decoded JSON (dicts, lists, strings).

    Strings that are JSON objects or arrays themselves are decoded, redacted
    inside and re-serialized, so escaped secrets in them are caught. The value
    of a secret-named key (``"password": "..."``) is replaced whole when it
    looks like a literal secret. Keys are not rewritten. ``obj`` is never
    modified: containers on the way to a change are copied, the rest is shared;
    with no hit the very same object is returned.
    """
    if isinstance(obj, str):
        holder, held = redact_obj([obj], _depth)
        return holder[0], [PathHit(h.path.removeprefix("[0]"), h.rule, h.start) for h in held]
    if not isinstance(obj, dict | list):
        return obj, []
    nodes: list[Node] = [(obj, -1, None)]
    texts: list[str] = []
    where: list[tuple[int, Any]] = []
    keyed: list[tuple[int, int]] = []  # (text index, key strength)
    changes: dict[tuple[int, Any], str] = {}
    hits: list[PathHit] = []
    n = 0
    # The hot loop of an import: exact type checks and local lookups on purpose.
    while n < len(nodes):
        node = nodes[n][0]
        for key, value in node.items() if isinstance(node, dict) else enumerate(node):
            kind = type(value)
            if kind is not str:
                if kind is int or kind is float or kind is bool or value is None:
                    continue
                if kind is dict or kind is list or isinstance(value, dict | list):
                    nodes.append((value, n, key))
                    continue
                if not isinstance(value, str):
                    continue
            if _looks_like_json(value) and _depth < _MAX_NESTING:
                inner = _redact_json_string(value, _depth)
                if inner is not None:
                    new, inner_hits = inner
                    if inner_hits:
                        changes[(n, key)] = new
                        prefix = _path(nodes, n, key) + ">"
                        hits += [PathHit(prefix + h.path, h.rule, h.start) for h in inner_hits]
                    continue
            if type(key) is str:
                strength = _key_cache.get(key)
                if strength is None:
                    strength = _key_strength(key)
                if strength:
                    keyed.append((len(texts), strength))
            texts.append(value)
            where.append((n, key))
        n += 1
    rs = active()
    touched = _touched(rs, texts)
    for t in sorted(touched):
        new, text_hits = redact_text(texts[t])
        if text_hits:
            node, key = where[t]
            changes[(node, key)] = new
            path = _path(nodes, node, key)
            hits += [PathHit(path, h.rule, h.start) for h in text_hits]
    for t, strength in keyed:
        node, key = where[t]
        value = texts[t]
        if (node, key) not in changes and _keyed_secret(value, strength) and not rs.kept(value):
            changes[(node, key)] = rs.markers[rs.keyed]
            hits.append(PathHit(_path(nodes, node, key), rs.rules[rs.keyed].id, 0))
    if not changes:
        return obj, []
    return _copy_on_write(nodes, changes), hits


def _touched(rs: RuleSet, texts: list[str]) -> set[int]:
    """Indices of the texts that one joined scan finds a secret in."""
    if not texts:
        return set()
    joined = _JOIN.join(texts)
    spans = _spans(rs, joined)
    if not spans:
        return set()
    starts: list[int] = []
    pos = 0
    for t in texts:
        starts.append(pos)
        pos += len(t) + len(_JOIN)
    touched: set[int] = set()
    for s, e, _ in spans:
        first = bisect.bisect_right(starts, s) - 1
        last = bisect.bisect_right(starts, e - 1) - 1
        touched.update(range(first, last + 1))
    return touched


def _looks_like_json(value: str) -> bool:
    """Cheap test before trying to decode a string as a JSON object or array."""
    if len(value) < 2 or value[-1] not in "}] \n":
        return False
    if value[0] == "{":
        return True
    return value[0] == "[" and (
        value[1] in '{["-0123456789] \n\t\r' or value.startswith(("[true", "[false", "[null"))
    )


def _redact_json_string(value: str, depth: int) -> tuple[str, list[PathHit]] | None:
    """Redact inside a string holding a JSON object or array; ``None`` if it holds none."""
    try:
        decoded = orjson.loads(value)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(decoded, dict | list):
        return None
    new, hits = redact_obj(decoded, depth + 1)
    if not hits:
        return value, []
    return orjson.dumps(new).decode(), hits
