"""A value is told from a placeholder, a status word, a name, a variable reference, a test
literal and a public JWT; what looks like a real credential is still redacted.

The benign examples are the ones real Codex and Claude Code sessions lost to
``[REDACTED:secret-assignment]``; every secret below is built at run time.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import string

import pytest

from viva_store.redact import RULES_BY_ID, redact_obj, redact_text
from viva_store.redact.jwt import is_public_jwt
from viva_store.redact.rule import B64URL, fill

ALNUM = string.ascii_letters + string.digits


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _jwt(header: dict[str, object], claims: dict[str, object], key: bytes | None) -> str:
    head = _b64(json.dumps(header, separators=(",", ":")).encode())
    body = _b64(json.dumps(claims, separators=(",", ":")).encode())
    if key is None:
        return f"{head}.{body}."
    signature = hmac.new(key, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{_b64(signature)}"


# jwt.io's debugger sample: HS256 over its documented claims, with its documented secret.
JWT_IO = _jwt(
    {"alg": "HS256", "typ": "JWT"},
    {"sub": "1234567890", "name": "John Doe", "iat": 1516239022},
    b"your-256-bit-secret",
)
UNSIGNED = _jwt({"alg": "none", "typ": "JWT"}, {"sub": "42", "role": "admin"}, None)
REAL = _jwt({"alg": "HS256", "typ": "JWT"}, {"sub": fill(12, seed=5), "exp": 1900000000}, b"k")


@pytest.mark.parametrize(
    "text",
    [
        "ANTHROPIC_API_KEY=set",
        "ANTHROPIC_API_KEY=present",
        "OPENAI_API_KEY=missing",
        'token := "runtime-operator-token"',
        "POSTHOG_API_KEY=test_key",
        'apiKey = "disabled"',
        "docker build --secret id=SECRET_TOKEN -t app .",
        '{"secret": "must-not-appear"}',
        "DatabasePassword: databaseCredentialPath",
        "GITHUB_TOKEN=configured, STRIPE_KEY=absent",
        "docker build --secret id=npmrc,src=$HOME/.npmrc .",
    ],
)
def test_what_real_sessions_lost_is_kept(text: str) -> None:
    assert redact_text(text) == (text, [])


def test_a_sentinel_under_a_secret_key_is_kept_in_decoded_json() -> None:
    obj = {"secret": "must-not-appear", "env": {"ANTHROPIC_API_KEY": "missing"}}
    assert redact_obj(obj) == (obj, [])


@pytest.mark.parametrize(
    "text",
    [
        "ANTHROPIC_API_KEY=" + RULES_BY_ID["anthropic-api-key"].tp_example,
        "DB_PASSWORD=hunter2x",
        'token := "' + fill(24, seed=9) + '"',
        'apiKey = "' + fill(20, B64URL, 10) + '"',
        "docker login --password " + fill(16, seed=11),
        '{"secret": "' + fill(20, seed=12) + '"}',
        "password: Tr0ub4dor&3",
        "API_KEY=correct-horse-battery-staple",
        "lob key = live_" + fill(35, "0123456789abcdef", 13),  # snake-shaped, but random
    ],
)
def test_what_looks_like_a_credential_is_still_redacted(text: str) -> None:
    out, hits = redact_text(text)
    assert hits, text
    assert "[REDACTED:" in out


@pytest.mark.parametrize(
    "text",
    [
        JWT_IO,
        f"Authorization: Bearer {JWT_IO}",
        f"curl -H 'Authorization: Bearer {UNSIGNED}' localhost",
        f'{{"id_token": "{UNSIGNED}"}}',
    ],
    ids=["jwt.io", "jwt.io-header", "alg-none-header", "alg-none-json"],
)
def test_public_jwts_are_not_secrets(text: str) -> None:
    assert is_public_jwt(JWT_IO) and is_public_jwt(UNSIGNED)
    assert redact_text(text) == (text, [])


def test_public_jwts_under_a_token_key_are_kept() -> None:
    obj = {"token": JWT_IO, "id_token": UNSIGNED}
    assert redact_obj(obj) == (obj, [])


def test_a_signed_jwt_is_redacted() -> None:
    assert not is_public_jwt(REAL)
    assert redact_text(f"Bearer {REAL}")[0] == "Bearer [REDACTED:jwt]"
    assert redact_obj({"token": REAL})[0] == {"token": "[REDACTED:jwt]"}


def test_a_jwt_io_token_with_other_claims_is_a_secret() -> None:
    token = _jwt({"alg": "HS256"}, {"sub": "1234567890", "name": "Jane"}, b"your-256-bit-secret")
    assert not is_public_jwt(token)
    assert redact_text(token)[1]


@pytest.mark.parametrize("word", ["Bad", "Foo", "Key", "Test", "Pass", "Mock", "Api", "Not"])
def test_a_random_password_that_spells_a_telling_word_is_still_redacted(word: str) -> None:
    """A random value split at its humps gives letter pairs (`…WbZ8zBAdMZ`: `wb`, `bad`,
    `mz`); one that spells a telling word made the value read as a name, and it leaked."""

    rng = random.Random(word)  # random values, the same ones each run

    def pick(letters: str, k: int = 1) -> str:
        return "".join(rng.choices(letters, k=k))

    low, up = string.ascii_lowercase, string.ascii_uppercase
    for _ in range(200):
        # Humps around the word and letter pairs beside it, as in the one that leaked.
        password = (
            pick(ALNUM, rng.randint(8, 14))
            + pick(low) + pick(up) + pick(low) + pick(up) + pick(string.digits) + pick(low)
            + word[0] + word[1:].upper()[:1] + word[2:] + pick(up, 2)
        )  # fmt: skip
        cwd = f"/srv/postgres://app:{password}@db-internal:5432/app"
        assert password not in redact_text(cwd)[0]
