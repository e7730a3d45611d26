"""Block secrets (private keys) are redacted whole inside line-numbered and quoted output.

Claude Code's Read tool prefixes each line with ``"     N→"``; a quote with
``"> "``; ``bat`` with ``" N │ "``; ``cat -n``, ``nl`` and ``grep -n`` with line
numbers; a diff with ``+``. The key's body and END line must go with its
BEGIN line in every such shape, raw or JSON-escaped.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import orjson
import pytest

from viva_store.redact import RULES_BY_ID, redact_obj, redact_text

from .support import transcript_line

Shape = Callable[[list[str]], str]

PEM = RULES_BY_ID["private-key"].tp_example.rstrip("\n").split("\n")
BODY = PEM[1:-1]
SHAPES: dict[str, Shape] = {
    "read-tool": lambda ls: "\n".join(f"{n:>6}\u2192{line}" for n, line in enumerate(ls, 1)),
    "quote": lambda ls: "\n".join("> " + line for line in ls),
    "nested-quote": lambda ls: "\n".join(">> " + line for line in ls),
    "bat": lambda ls: "\n".join(f"{n:>4} \u2502 {line}" for n, line in enumerate(ls, 1)),
    "cat-n": lambda ls: "\n".join(f"{n:>6}\t{line}" for n, line in enumerate(ls, 1)),
    "nl": lambda ls: "\n".join(f"{n:>6}  {line}" for n, line in enumerate(ls, 1)),
    "grep-n": lambda ls: "\n".join(f"{n}:{line}" for n, line in enumerate(ls, 1)),
    "diff": lambda ls: "\n".join("+" + line for line in ls),
}
ENCODINGS: dict[str, Callable[[str], str]] = {
    "text": lambda t: t,
    "json": lambda t: orjson.dumps(t).decode(),  # UTF-8 as written: "→"
    "json-ascii": json.dumps,  # "\u2192"
}


def _left(out: str) -> list[str]:
    return [line for line in BODY if line in out or line.replace("/", "\\/") in out]


@pytest.mark.parametrize("encoding", ENCODINGS)
@pytest.mark.parametrize("shape", SHAPES)
def test_a_key_in_prefixed_output_is_redacted_whole(shape: str, encoding: str) -> None:
    text = SHAPES[shape](PEM) + "\n" + SHAPES[shape](["print('after the key')"])
    out, hits = redact_text(ENCODINGS[encoding](text))
    assert hits
    assert _left(out) == [], out
    assert "END RSA" not in out
    assert "after the key" in out


@pytest.mark.parametrize("shape", SHAPES)
def test_a_truncated_key_in_prefixed_output_is_redacted(shape: str) -> None:
    # Read with a line limit: the END line is never shown.
    out, hits = redact_text(SHAPES[shape](PEM[:-1]))
    assert [h.rule for h in hits] == ["private-key"]
    assert _left(out) == []


def test_the_block_ends_at_a_blank_numbered_line() -> None:
    lines = [*PEM[:-1], "", "def main():", "    return 0"]
    out, _ = redact_text(SHAPES["read-tool"](lines))
    assert out.splitlines() == [
        "     1\u2192[REDACTED:private-key]",
        "     6\u2192",
        "     7\u2192def main():",
        "     8\u2192    return 0",
    ]


def test_a_key_read_by_the_read_tool_is_redacted_in_the_stored_message() -> None:
    line = transcript_line(SHAPES["read-tool"](PEM))
    out, hits = redact_obj(line)
    assert [h.rule for h in hits] == ["private-key"]
    assert _left(json.dumps(out)) == []


def test_a_putty_key_in_escaped_read_output_is_redacted() -> None:
    ppk = RULES_BY_ID["putty-private-key"].tp_example.rstrip("\n").split("\n")
    raw = json.dumps(SHAPES["read-tool"](ppk))
    out, hits = redact_text(raw)
    assert hits and "Private-MAC" not in out


def test_many_prefixed_lines_without_an_end_stay_linear() -> None:
    text = PEM[0] + "".join(f"\n{n:>6}\u2192AAAA" for n in range(10_000))
    start = time.perf_counter()
    out, _ = redact_text(text)
    assert time.perf_counter() - start < 5.0
    assert out == "[REDACTED:private-key]"
