"""Secrets inside a quoted command: a tool call that prints a planted secret with
``printf %s '<repr>'`` escapes its quotes and tabs once more (``\\'``, ``\\t``), and a
JSON-escaped plant inside it is escaped twice. Every plant is still redacted."""

from __future__ import annotations

import pytest

from tests.redact.planted import leaked, planted
from viva_store.redact import RULES, redact_obj, redact_text
from viva_store.redact.escapes import escaped_views

SHAPES = ("bare", "json-escaped", "read-output", "quoted", "assignment")


@pytest.mark.parametrize("shape", SHAPES)
def test_a_secret_printed_by_a_quoted_command_is_redacted(shape: str) -> None:
    plants = [p for p in planted(RULES) if p.shape == shape]
    assert plants
    missed = []
    for plant in plants:
        args, _ = redact_obj({"command": f"printf %s {plant.text!r}"})
        if leaked(plant, str(args["command"])):
            missed.append(plant.rule)
    assert missed == []


def test_views_decode_twice_and_stop_when_nothing_is_escaped() -> None:
    twice = "say \\\\'a\\\\tb\\\\'"  # escaped, then escaped again
    views = escaped_views(twice)
    assert [v.view for v in views] == ["say \\'a\\tb\\'", "say 'a\tb'"]
    assert escaped_views("plain text, no escapes") == []


def test_an_escaped_quote_alone_does_not_hide_benign_text() -> None:
    text = "echo \\'hello world\\' && ls -la src/"
    assert redact_text(text)[0] == text
