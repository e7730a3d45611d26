"""Context rules: a secret recognised by where it stands, not by its shape.

Passwords in URLs, ``Authorization`` / ``x-api-key`` headers, bare bearer
tokens, ``--password`` flags and ``.env`` / ``export`` / config assignments to
secret-looking names. Only the value is replaced; the name stays readable.
These rules come last in the table: a shaped token inside the same span keeps
its more specific rule id.
"""

from __future__ import annotations

import re

from viva_store.redact.names import is_name
from viva_store.redact.rule import B64, B64URL, Rule, cases, fill
from viva_store.redact.values import (
    accept_random,
    accept_value,
    is_placeholder,
    looks_like_secret,
    secret_group,
)

_Q = r"""(?:\\?["'])?"""  # optional quote, possibly JSON-escaped
_HDR_SEP = rf"{_Q}\s{{0,4}}[:=]\s{{0,4}}{_Q}"
_HDR_VALUE = r"(?:[A-Za-z0-9._~+=\-]|\\?/)"  # "/" may be JSON-escaped as "\/"
_SCHEMES = frozenset({"bearer", "basic", "token", "bot", "apikey", "digest", "negotiate", "ntlm"})

# Names that end in one of these words hold secrets (case-insensitive), plus
# the upper-case env style `..._KEY` / `..._PASS`.
SECRET_WORDS = (
    r"passw(?:or)?d|passphrase|pwd|secret(?:[_-]?key)?|token|credentials?"
    r"|api[_-]?key|access[_-]?key|private[_-]?key"
)
# Names ending in these are often not secrets (`SORT_KEY`, `$PWD`).
_WEAK_WORDS = frozenset({"_key", "pwd"})
_ASSIGN_KEYWORDS = (
    *cases("passw", "pwd", "secret", "token"),
    # Lower case left out: made of common letters only, it would slow the
    # prefilter, and a lower-case `passphrase=` is rare.
    *("Passphrase", "PASSPHRASE"),
    *cases("api_key", "api-key", "apikey", "access_key", "private_key"),
    *("apiKey", "ApiKey", "accessKey", "AccessKey", "privateKey", "PrivateKey"),
    "_PASS",
    "_KEY",
)


def _accept_header(m: re.Match[str]) -> bool:
    value = secret_group(m)
    if is_placeholder(value) or value.lower() in _SCHEMES:
        return False
    has_scheme = "scheme" in m.re.groupindex and m.start("scheme") >= 0
    if is_name(value, literal=has_scheme):  # `authorization = base64.decodebytes(...)`
        return False
    return has_scheme or _random_enough(value)


def _random_enough(value: str) -> bool:
    return any(c.isdigit() for c in value) or len(value) >= 20


def _accept_api_key_header(m: re.Match[str]) -> bool:
    value = secret_group(m)
    return not is_placeholder(value) and _random_enough(value)


def _accept_flag(m: re.Match[str]) -> bool:
    value = secret_group(m)
    literal = m.group("sep") == "=" or m.start("q") >= 0
    return not value.startswith("-") and looks_like_secret(value, literal=literal)


def _accept_assignment(m: re.Match[str]) -> bool:
    if m.start("secret") >= 0:
        value, literal = m.group("secret"), True
    elif m.start("secret2") >= 0:
        value, literal = m.group("secret2"), True
    else:
        value = m.group("secret3")
        gap = m.string[m.end("word") : m.start("secret3")]
        literal = gap == "=" and m.group("word").isupper()
    if m.group("word").lower() in _WEAK_WORDS:
        # `STORAGE_KEY = 'todos'`: a key *name*, not a secret; demand randomness.
        literal = False
    return looks_like_secret(value, literal=literal)


RULES: tuple[Rule, ...] = (
    Rule(
        id="url-password",
        pattern=(
            r""":(?:\\?/){2}(?P<user>[^\s:/@"'<>\\]{0,256}):"""
            r"""(?P<secret>[^\s:/@"'<>\\]{1,256})@(?=[A-Za-z0-9\[])"""
        ),
        description="Password inside a URL (scheme://user:PASSWORD@host; only the password)",
        source="detect-secrets BasicAuthDetector (format); after gitleaks 'curl-auth-user'",
        tp_example_parts=("postgres://app:", "Pw", fill(14, seed=101), "@db.internal:5432/app"),
        fp_example="postgres://app:${DB_PASSWORD}@db.internal/app and git@github.com:o/r.git",
        keywords=("://", ":\\/\\/"),
        anchored=True,
        accept=accept_value,
    ),
    Rule(
        id="authorization-header",
        pattern=(
            rf"(?i:authorization){_HDR_SEP}"
            rf"(?:(?P<scheme>(?i:{'|'.join(sorted(_SCHEMES))}))\s{{1,4}})?"
            rf"(?P<secret>{_HDR_VALUE}{{8,8192}})(?!{_HDR_VALUE})"
        ),
        description="Credentials in an Authorization header (Bearer, Basic, token, Bot...)",
        source="RFC 7235 header syntax; GitHub secret scanning (HTTP basic auth) for Basic",
        tp_example_parts=("Authorization: Basic ", fill(30, B64, 102), "=="),
        fp_example="Authorization: Bearer $TOKEN (set the Authorization header)",
        keywords=cases("authorization"),
        anchored=True,
        accept=_accept_header,
    ),
    Rule(
        id="api-key-header",
        pattern=rf"(?i:api-key){_HDR_SEP}(?P<secret>{_HDR_VALUE}{{8,1024}})(?!{_HDR_VALUE})",
        description="x-api-key / api-key / x-goog-api-key header value",
        source="Anthropic and Azure OpenAI request headers (x-api-key, api-key)",
        tp_example_parts=("x-api-key: ", fill(40, seed=103)),
        fp_example="x-api-key: <your-key> (the x-api-key header)",
        keywords=("api-key", "Api-Key", "API-Key", "API-KEY"),
        anchored=True,
        accept=_accept_api_key_header,
    ),
    Rule(
        id="bearer-token",
        pattern=(
            r"(?i:bearer)\s{1,4}(?P<secret>(?:[A-Za-z0-9._~+\-]|\\?/){16,8192}=*)"
            r"(?![A-Za-z0-9._~+/=\-]|\\/)"
        ),
        description="A bearer token outside a recognised header (Bearer <token>)",
        source="RFC 6750 b64token syntax",
        tp_example_parts=("curl -H 'X: Bearer ", fill(40, B64URL + ".", 104), "'"),
        fp_example="Bearer tokens are sent by the client; bearer-instruments-explained",
        keywords=("Bearer", "BEARER"),
        anchored=True,
        accept=accept_random,
    ),
    Rule(
        id="secret-cli-flag",
        pattern=(
            r"--(?:pass(?:word|wd)?|token|api-?key|secret|client-secret|auth-token|access-token)"
            r"(?P<sep>=|\s{1,4})(?P<q>\\?[\"'])?"
            r"(?P<secret>[^\s\"'`\\$<>(){}\[\];|&]{4,512})"
        ),
        description="Secret passed as a command-line flag (--password X, --token=X)",
        source="detect-secrets KeywordDetector (format); common CLI conventions",
        tp_example_parts=("mysql -u app --password ", "Pw", fill(14, seed=105), " app"),
        fp_example="--password-file /run/secrets/db --token $GITHUB_TOKEN",
        keywords=(
            "--pass",
            "--token",
            "--api-key",
            "--apikey",
            "--secret",
            "--client-secret",
            "--auth-token",
            "--access-token",
        ),
        anchored=True,
        accept=_accept_flag,
    ),
    Rule(
        id="secret-assignment",
        pattern=(
            rf"(?P<word>(?i:{SECRET_WORDS})|_PASS(?:WORD|WD)?|_KEY)"
            # Not across a line break (`TOKEN=` then the next line), nor shell's `${X:+y}`.
            r"""(?:\\?["'])?[ \t]{0,4}(?::=|=>|=(?!=)|:(?![:/+\-=?]))[ \t]{0,4}"""
            r"""(?:\\?"(?P<secret>[^"\\\r\n]{1,512})|'(?P<secret2>[^'\\\r\n]{1,512})"""
            r"""|(?P<secret3>[^\s"'`\\$<>{}()\[\],;|&*][^\s"'`\\<>{}()\[\],;|&]{0,511}))"""
        ),
        description=".env / export / config assignment to a secret-looking name (value only)",
        source="after gitleaks 'generic-api-key' (its keywords); detect-secrets KeywordDetector",
        tp_example_parts=("export DB_PASSWORD=", "Pw", fill(14, seed=106)),
        fp_example="password = getpass.getpass(); token = make_token(); api_key: str = None",
        keywords=_ASSIGN_KEYWORDS,
        anchored=True,
        accept=_accept_assignment,
    ),
)
