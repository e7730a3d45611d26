"""Engine behaviour: hits, merging, decoded-object walking, keyed secrets, worst cases."""

from __future__ import annotations

import time
from typing import Any

import orjson
import pytest

from viva_store.redact import RULES_BY_ID, RULESET_VERSION, Hit, PathHit, redact_obj, redact_text
from viva_store.redact.rule import fill

GH = RULES_BY_ID["github-pat"].tp_example
AWS = RULES_BY_ID["aws-access-key-id"].tp_example
OPENROUTER = RULES_BY_ID["openrouter-api-key"].tp_example
JWT = RULES_BY_ID["jwt"].tp_example


def test_ruleset_version_is_a_string() -> None:
    assert isinstance(RULESET_VERSION, str) and RULESET_VERSION


def test_hits_point_at_markers_in_the_output() -> None:
    text = f"a {GH} b {JWT} c"
    out, hits = redact_text(text)
    assert out == "a [REDACTED:github-pat] b [REDACTED:jwt] c"
    assert hits == [Hit("github-pat", 2, 23), Hit("jwt", 26, 40)]
    for h in hits:
        assert out[h.start : h.end] == f"[REDACTED:{h.rule}]"


def test_specific_rule_names_a_secret_that_a_context_rule_also_sees() -> None:
    out, _ = redact_text(f"Authorization: Bearer {JWT}")
    assert out == "Authorization: Bearer [REDACTED:jwt]"
    out, _ = redact_text(f"export GITHUB_TOKEN={GH}")
    assert out == "export GITHUB_TOKEN=[REDACTED:github-pat]"


def test_overlapping_secrets_merge_into_one_marker() -> None:
    out, hits = redact_text(f'SECRET="x:{GH}"')
    assert out == 'SECRET="[REDACTED:secret-assignment]"'
    assert len(hits) == 1


@pytest.mark.parametrize(
    "before", ["\x1b[1m", "\x1b[01;32m", "\x00", "\n", "=", "/", "'", "(", ":"], ids=repr
)
def test_token_boundaries_include_escapes_and_colour_codes(before: str) -> None:
    text = before + GH + "\x1b[0m"
    out, _ = redact_text(text)
    assert out == before + "[REDACTED:github-pat]\x1b[0m"
    raw = orjson.dumps(text).decode()
    assert redact_text(raw)[0] == orjson.dumps(out).decode()


@pytest.mark.parametrize("before", ["a", "9", "_"])
def test_a_token_inside_a_longer_run_is_not_a_token(before: str) -> None:
    text = before + AWS
    assert redact_text(text) == (text, [])


@pytest.mark.parametrize("before", ["a", "9", "_", "-"])
def test_a_prefix_gitleaks_finds_without_a_boundary_is_redacted(before: str) -> None:
    # Viva's github-pat wants a boundary; gitleaks' has none, and the table is a superset.
    text = before + GH
    assert list(RULES_BY_ID["github-pat"].spans(text)) == []
    assert redact_text(text)[0] == before + "[REDACTED:gitleaks-github-pat]"


def test_a_token_glued_to_another_secret_is_redacted_too() -> None:
    pem = RULES_BY_ID["private-key"].tp_example
    out, hits = redact_text(OPENROUTER + pem)
    assert out == "[REDACTED:openrouter-api-key][REDACTED:private-key]\n"
    assert [(h.rule, h.start) for h in hits] == [("openrouter-api-key", 0), ("private-key", 29)]
    assert redact_text(out) == (out, [])


def test_a_value_redacted_by_a_text_rule_is_not_replaced_again_by_its_key() -> None:
    once, _ = redact_obj({"token": "=" + GH})
    assert once == {"token": "=[REDACTED:github-pat]"}
    assert redact_obj(once) == (once, [])


def test_a_marker_next_to_text_is_not_redacted_again() -> None:
    for text in ("PASSWORD=[REDACTED:x]", 'token = "[REDACTED:jwt]"', "u://a:[REDACTED:y]@h"):
        assert redact_text(text) == (text, [])


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("DB_PASSWORD=hunter2x", "DB_PASSWORD=[REDACTED:secret-assignment]"),
        ("password: 's3cr3t-value'", "password: '[REDACTED:secret-assignment]'"),
        ('{"api_key": "abc123def456"}', '{"api_key": "[REDACTED:secret-assignment]"}'),
        ("API_KEY=correcthorsebattery", "API_KEY=[REDACTED:secret-assignment]"),
        ("--token=abc123def", "--token=[REDACTED:secret-cli-flag]"),
        ("redis://:hunter2pw@cache:6379", "redis://:[REDACTED:url-password]@cache:6379"),
    ],
)
def test_context_rules_replace_only_the_value(text: str, expected: str) -> None:
    assert redact_text(text)[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        "token = os.environ['TOKEN']",
        "api_key = settings.OPENAI_KEY",
        "password=password, token=token",
        "def get_token(self) -> str:",
        "const STORAGE_KEY = 'todos';",
        "PWD=/home/user/project",
        "TOKEN=$GITHUB_TOKEN",
        "token: Optional[str] = None",
        '"max_tokens": 4096, "input_tokens": 12',
        "Authorization: Bearer <token>",
        "https://user@example.com/path and git@github.com:org/repo.git",
        "postgres://user:${PASSWORD}@db/app",
        "The password: is required.",
    ],
)
def test_code_and_prose_are_not_mangled(text: str) -> None:
    assert redact_text(text) == (text, [])


def test_redact_obj_returns_the_same_object_without_hits() -> None:
    obj = {"a": ["x", {"b": "y"}], "n": 3}
    out, hits = redact_obj(obj)
    assert out is obj and hits == []


def test_redact_obj_copies_only_the_changed_branch() -> None:
    untouched: dict[str, Any] = {"b": ["y"]}
    obj = {"keep": untouched, "msg": {"text": "token " + GH}}
    out, hits = redact_obj(obj)
    assert hits == [PathHit("msg.text", "github-pat", 6)]
    assert out["keep"] is untouched
    assert obj["msg"]["text"] == "token " + GH
    assert out["msg"]["text"] == "token [REDACTED:github-pat]"


def test_secret_named_keys_have_their_value_replaced() -> None:
    obj = {
        "env": {"GITHUB_TOKEN": "hunter2hunter", "PATH": "/usr/bin", "STRIPE_KEY": "k9x8"},
        "tool": {"passphrase": "correct horse", "Authorization": "Basic dXNlcjpwYXNzd29yZA=="},
        "cfg": {
            "token_type": "bearer",
            "sort_key": "name",
            "STORAGE_KEY": "todos",
            "user_authorization": "approved",
        },
    }
    out, hits = redact_obj(obj)
    assert out["env"] == {
        "GITHUB_TOKEN": "[REDACTED:secret-assignment]",
        "PATH": "/usr/bin",
        "STRIPE_KEY": "[REDACTED:secret-assignment]",
    }
    assert out["tool"] == {
        "passphrase": "[REDACTED:secret-assignment]",
        "Authorization": "[REDACTED:secret-assignment]",
    }
    assert out["cfg"] == obj["cfg"]
    assert {h.path for h in hits} == {
        "env.GITHUB_TOKEN",
        "env.STRIPE_KEY",
        "tool.passphrase",
        "tool.Authorization",
    }


def test_root_string_and_scalars() -> None:
    assert redact_obj("x " + GH) == ("x [REDACTED:github-pat]", [PathHit("", "github-pat", 2)])
    assert redact_obj(7) == (7, [])
    assert redact_obj(None) == (None, [])


def test_deeply_nested_object_does_not_recurse() -> None:
    obj: Any = "end " + GH
    for _ in range(20000):
        obj = [obj]
    out, hits = redact_obj(obj)
    assert len(hits) == 1 and hits[0].path == "[0]" * 20000
    inner = out
    while isinstance(inner, list):
        inner = inner[0]
    assert inner == "end [REDACTED:github-pat]"


def test_json_string_that_is_not_json_is_scanned_as_text() -> None:
    out, hits = redact_obj({"a": "[1/3] " + GH, "b": "{not json " + GH})
    assert out == {"a": "[1/3] [REDACTED:github-pat]", "b": "{not json [REDACTED:github-pat]"}
    assert len(hits) == 2


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("-----BEGIN RSA " + "PRIVATE KEY-----\n" + "A" * 300_000, id="pem"),
        pytest.param("eyJ" + "a" * 300_000 + ".eyJ", id="jwt"),
        pytest.param("://" + "a:" * 150_000, id="url"),
        pytest.param("Authorization: " + "a" * 300_000, id="header"),
        pytest.param("token=" * 50_000, id="assignments"),
        pytest.param("x" * 300_000 + "ghp_" * 50_000, id="prefixes"),
        pytest.param(fill(300_000, seed=3), id="random"),
        pytest.param("PuTTY-User-Key-File-2:" + "a" * 300_000, id="putty"),
    ],
)
def test_worst_case_inputs_stay_linear(text: str) -> None:
    start = time.perf_counter()
    redact_text(text)
    assert time.perf_counter() - start < 5.0
