"""Every Viva rule's secret is caught inside transcript lines, raw (undecoded) and decoded."""

from __future__ import annotations

import json
from collections.abc import Callable

import orjson
import pytest

from viva_store.redact import RULES_BY_ID, Rule, redact_obj, redact_text
from viva_store.redact.rules import VIVA_RULES

from .support import secret_of, strings_in, survivors, transcript_line


def _plain(text: str) -> str:
    return orjson.dumps(transcript_line(text)).decode()


def _slash_escaped(text: str) -> str:
    # Some encoders write "/" as "\/"; it is still valid JSON.
    return json.dumps(transcript_line(text)).replace("/", "\\/")


def _nested(text: str) -> str:
    # A Codex function_call: the arguments are JSON inside a JSON string.
    arguments = orjson.dumps({"cmd": ["bash", "-lc", "echo " + text]}).decode()
    line = {"type": "response_item", "payload": {"type": "function_call", "arguments": arguments}}
    return orjson.dumps(line).decode()


LINES: dict[str, Callable[[str], str]] = {
    "plain": _plain,
    "slash-escaped": _slash_escaped,
    "nested": _nested,
}


def _assert_gone(secret: str, raw_out: str) -> None:
    decoded = json.loads(raw_out)  # redaction must keep the line valid JSON
    for value in strings_in(decoded):
        assert not survivors(secret, value), value
        if value.startswith("{"):
            for inner in strings_in(json.loads(value)):
                assert not survivors(secret, inner), inner


@pytest.mark.parametrize("shape", LINES)
@pytest.mark.parametrize("rule", VIVA_RULES, ids=lambda r: r.id)
def test_raw_line(rule: Rule, shape: str) -> None:
    secret = secret_of(rule)
    raw = LINES[shape]("export X=" + rule.tp_example + "\nnext line")
    out, hits = redact_text(raw)
    assert hits, f"{rule.id} missed in the raw {shape} line"
    assert f"[REDACTED:{rule.id}]" in out
    _assert_gone(secret, out)


@pytest.mark.parametrize("shape", LINES)
@pytest.mark.parametrize("rule", VIVA_RULES, ids=lambda r: r.id)
def test_decoded_line(rule: Rule, shape: str) -> None:
    secret = secret_of(rule)
    raw = LINES[shape]("export X=" + rule.tp_example + "\nnext line")
    obj = json.loads(raw)
    out, hits = redact_obj(obj)
    assert [h.rule for h in hits] == [rule.id]
    _assert_gone(secret, json.dumps(out))
    assert obj == json.loads(raw), "the input object must not be modified"


def test_nested_hit_path_points_into_the_inner_json() -> None:
    rule = RULES_BY_ID["github-pat"]
    obj = json.loads(_nested(rule.tp_example))
    out, hits = redact_obj(obj)
    assert [(h.path, h.rule) for h in hits] == [("payload.arguments>cmd[2]", "github-pat")]
    inner = json.loads(out["payload"]["arguments"])
    assert inner["cmd"][2][hits[0].start :].startswith("[REDACTED:github-pat]")


def test_decoded_hit_path_and_position() -> None:
    rule = RULES_BY_ID["anthropic-api-key"]
    out, hits = redact_obj(transcript_line("key: " + rule.tp_example))
    assert [(h.path, h.rule, h.start) for h in hits] == [
        ("message.content[0].content", "anthropic-api-key", 5)
    ]
    assert out["message"]["content"][0]["content"] == "key: [REDACTED:anthropic-api-key]"


def _pem_body() -> str:
    rule = RULES_BY_ID["private-key"]
    return rule.tp_example.split("-----\n", 1)[1].split("\n-----END", 1)[0]


def _begin() -> str:
    return "-----BEGIN " + "OPENSSH PRIVATE KEY-----"


@pytest.mark.parametrize(
    "text",
    [
        pytest.param(lambda b: _begin() + "\n" + b, id="to-end-of-text"),
        pytest.param(lambda b: _begin() + "\n" + b + "\n\nafter the key", id="to-blank-line"),
        pytest.param(
            lambda b: 'key = "' + _begin() + "\\n" + b.replace("\n", "\\n") + '"',
            id="to-closing-quote",
        ),
    ],
)
def test_private_key_without_end_line(text: Callable[[str], str]) -> None:
    body = _pem_body()
    source = text(body)
    for candidate in (source, orjson.dumps(source).decode()):
        out, hits = redact_text(candidate)
        assert [h.rule for h in hits] == ["private-key"]
        for line in body.splitlines():
            assert line not in out
    out, _ = redact_text(text(body))
    if "after the key" in source:
        assert out.endswith("\n\nafter the key")
    if source.endswith('"'):
        assert out == 'key = "[REDACTED:private-key]"'


def test_encrypted_pem_with_blank_line_inside_is_redacted_whole() -> None:
    body = _pem_body()
    pem = "".join(
        (
            "-----BEGIN RSA ",
            "PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00FF\n\n",
            body,
            "\n-----END RSA PRIVATE KEY-----",
        )
    )
    out, hits = redact_text("before\n" + pem + "\nafter")
    assert out == "before\n[REDACTED:private-key]\nafter"
    assert len(hits) == 1
