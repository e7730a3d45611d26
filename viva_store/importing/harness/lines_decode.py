"""The slow path of :mod:`viva_store.importing.harness.lines`: make sense of one bad line.

Only lines that ``orjson.loads`` rejects get here, so clarity beats speed, but
nothing in here may be quadratic, recurse without bound or raise on content.

Policy, applied in this order:

* a line that is empty or ASCII whitespace is ``blank`` (so is a line holding
  only a UTF-8 BOM and whitespace, with the BOM noted);
* a line nested deeper than :data:`MAX_DEPTH` is quarantined before any
  recursive parser sees it (depth is measured outside strings, in C-speed
  passes);
* invalid UTF-8 is **decoded with replacement** (U+FFFD), never quarantined
  for that alone: transcripts are text whose value survives a broken byte, and
  the reason ``"invalid UTF-8 replaced"`` records the repair. Bytes that are
  invalid *outside* a JSON string make the line unparseable anyway;
* the stdlib decoder then reads every JSON value on the line
  (``raw_decode`` in a loop), skipping whitespace, BOMs and NUL padding
  between them; it accepts ``NaN``/``Infinity`` (turned into ``None``), lone
  surrogate escapes (turned into U+FFFD, so the text can be stored as UTF-8)
  and raw control characters inside strings;
* the line becomes records only if *all* of it was understood and every value
  is an object; otherwise it is quarantined whole, so its original bytes are
  kept and nothing is silently dropped.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from itertools import accumulate, count
from operator import sub
from typing import Any, Literal

import orjson

from viva_store.importing.harness.model import JsonObj

Kind = Literal["record", "blank", "quarantined"]

MAX_DEPTH = 512
"""Deepest nesting the slow path parses; orjson's own limit is 1024, the
stdlib parser recurses once per level and must stay clear of the recursion limit."""

_BOM = "\ufeff"
# Characters tolerated between and around JSON values on one line.
_JUNK = re.compile("[ \t\r\n\x0b\x0c\x00\ufeff]*")
_LEADING_JUNK = re.compile(rb"(?:[ \t\r\n\x0b\x0c\x00]|\xef\xbb\xbf)+")
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89abcdefABCDEF]")
# Brackets only: openers become 2, closers 0, so depth after the i-th bracket
# is (running sum) - (i + 1).
_BRACKET_WEIGHTS = bytes.maketrans(b"[{]}", b"\x02\x02\x00\x00")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


@dataclass(frozen=True, slots=True)
class Decoded:
    """What the slow path made of one line (body without its newline)."""

    kind: Kind
    records: tuple[JsonObj, ...] = ()
    reason: str | None = None
    positions: tuple[int, ...] = ()


def too_deep(body: bytes, limit: int = MAX_DEPTH) -> bool:
    """Tell whether ``body`` nests ``[``/``{`` deeper than ``limit``, ignoring strings.

    Runs in C-speed passes (count, regex, translate, accumulate): a line nested
    100,000 deep costs milliseconds and no recursion.
    """
    if body.count(b"[") + body.count(b"{") <= limit:
        return False
    brackets = _JSON_STRING.sub(b"", body).translate(_BRACKET_WEIGHTS, _NOT_BRACKETS)
    return bool(brackets) and max(map(sub, accumulate(brackets), count(1))) > limit


def decode_line(body: bytes) -> Decoded:
    """Classify and salvage one line that the orjson fast path rejected.

    ``body`` is the line without its ``\\n``. Never raises on content.
    """
    if not body.strip():
        return Decoded("blank")
    notes: list[str] = []
    lead = _LEADING_JUNK.match(body)
    if lead is not None:
        # The common repair (a BOM at file start, NUL padding after a crash)
        # stays on the fast parser.
        try:
            obj = orjson.loads(body[lead.end() :])
        except orjson.JSONDecodeError:
            pass
        else:
            if type(obj) is dict:
                _note_junk(notes, body[: lead.end()].decode("utf-8", "replace"))
                return Decoded("record", (obj,), "; ".join(notes) or None)
    if too_deep(body):
        return Decoded("quarantined", reason=f"nested deeper than {MAX_DEPTH}")
    try:
        text = body.decode("utf-8")
        bad_utf8 = False
    except UnicodeDecodeError:
        # surrogateescape keeps byte positions exact; the sanitizer below turns
        # the escaped bytes into U+FFFD like any other lone surrogate.
        text = body.decode("utf-8", "surrogateescape")
        bad_utf8 = True
    try:
        return _salvage(text, body, bad_utf8)
    except RecursionError:
        return Decoded("quarantined", reason=f"nested deeper than {MAX_DEPTH}")
    except Exception as exc:  # never raise on content (e.g. a 5,000-digit integer)
        return Decoded("quarantined", reason=f"not JSON ({type(exc).__name__})")


def _salvage(text: str, body: bytes, bad_utf8: bool) -> Decoded:
    constants = [0]

    def parse_constant(_name: str) -> None:
        constants[0] += 1

    strict = json.JSONDecoder(parse_constant=parse_constant)
    lenient = json.JSONDecoder(parse_constant=parse_constant, strict=False)
    values: list[Any] = []
    starts: list[int] = []
    junk: list[str] = []
    control_chars = False
    end = len(text)
    pos = _skip(text, 0, junk)
    while pos < end:
        try:
            value, stop = strict.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            if not exc.msg.startswith("Invalid control character"):
                return _failed(exc, text, len(values))
            try:
                value, stop = lenient.raw_decode(text, pos)
            except json.JSONDecodeError as exc2:
                return _failed(exc2, text, len(values))
            control_chars = True
        values.append(value)
        starts.append(pos)
        pos = _skip(text, stop, junk)
    skipped = "".join(junk)
    if not values:
        if "\x00" in skipped:
            return Decoded("quarantined", reason="only NUL bytes, no JSON")
        return Decoded("blank", reason="utf-8 BOM removed")
    if any(type(v) is not dict for v in values):
        return Decoded("quarantined", reason="not a JSON object")
    bad_strings, non_finite = _sanitize(values)
    notes: list[str] = []
    _note_junk(notes, skipped)
    if bad_utf8:
        notes.append("invalid UTF-8 replaced")
    if control_chars:
        notes.append("raw control characters inside strings kept")
    if bad_strings and _SURROGATE_ESCAPE.search(text):
        notes.append("lone surrogates replaced by U+FFFD")
    if constants[0] or non_finite:
        notes.append(f"{constants[0] + non_finite} NaN/Infinity replaced by null")
    positions: tuple[int, ...] = ()
    if len(values) > 1:
        notes.append(f"{len(values)} JSON objects glued on one line, salvaged")
        positions = _byte_positions(text, starts)
    return Decoded("record", tuple(values), "; ".join(notes) or None, positions)


def _skip(text: str, pos: int, junk: list[str]) -> int:
    match = _JUNK.match(text, pos)
    stop = match.end() if match else pos
    if stop > pos:
        junk.append(text[pos:stop])
    return stop


def _note_junk(notes: list[str], skipped: str) -> None:
    if _BOM in skipped:
        notes.append("utf-8 BOM removed")
    nuls = skipped.count("\x00")
    if nuls:
        notes.append(f"{nuls} NUL bytes removed")


def _failed(exc: json.JSONDecodeError, text: str, decoded: int) -> Decoded:
    at_end = exc.pos >= len(text.rstrip(" \t\r\n\x0b\x0c\x00\ufeff"))
    what = "truncated JSON" if at_end or exc.msg.startswith("Unterminated") else "not JSON"
    if decoded:
        plural = "s" if decoded > 1 else ""
        what = f"{decoded} JSON object{plural} followed by {what}"
    return Decoded("quarantined", reason=what)


def _byte_positions(text: str, starts: list[int]) -> tuple[int, ...]:
    out: list[int] = []
    byte_pos = 0
    prev = 0
    for start in starts:
        byte_pos += len(text[prev:start].encode("utf-8", "surrogateescape"))
        prev = start
        out.append(byte_pos)
    return tuple(out)


def _clean(s: str) -> str:
    return _SURROGATE.sub("\ufffd", s)


def _has_surrogate(s: str) -> bool:
    if s.isascii():
        return False
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _sanitize(values: list[Any]) -> tuple[int, int]:
    """Replace lone surrogates and non-finite floats in place, without recursion.

    Returns (strings repaired, numbers replaced by ``None``).
    """
    bad_strings = 0
    non_finite = 0
    stack: list[Any] = [values]
    while stack:
        container = stack.pop()
        if type(container) is list:
            items: Any = enumerate(container)
        else:
            items = list(container.items())
        rename = False
        for key, value in items:
            kind = type(value)
            if kind is str:
                if _has_surrogate(value):
                    container[key] = _clean(value)
                    bad_strings += 1
            elif kind is float:
                if not math.isfinite(value):
                    container[key] = None
                    non_finite += 1
            elif kind is dict or kind is list:
                stack.append(value)
            if type(key) is str and _has_surrogate(key):
                rename = True
        if rename:
            pairs = list(container.items())
            container.clear()
            for key, value in pairs:
                if _has_surrogate(key):
                    bad_strings += 1
                    key = _clean(key)
                container[key] = value
    return bad_strings, non_finite


TAIL_TAKEN = "last line has no newline; the file has settled, so it is taken as complete"


def decode_tail(body: bytes) -> Decoded | None:
    """A settled file's unterminated tail as a last line, or ``None`` to keep it back:
    only a complete JSON object (or blank space) is taken, and a record says so."""
    if not body.strip():
        return Decoded("blank")
    decoded = decode_line(body)
    if decoded.kind != "record":
        return None
    reason = TAIL_TAKEN if decoded.reason is None else f"{TAIL_TAKEN}; {decoded.reason}"
    return Decoded("record", decoded.records, reason, decoded.positions)
