"""Heuristics that tell a literal secret value from what only stands where one could.

Context rules (``PASSWORD=...``, ``Authorization: ...``) see many values that
are not secrets: placeholders (``$TOKEN``, ``<your-key>``, ``None``), status
words (``ANTHROPIC_API_KEY=present``), identifiers and variable references
(``databaseCredentialPath``, ``id=SECRET_TOKEN``), test literals
(``"runtime-operator-token"``, ``test_key``, ``"must-not-appear"``) and public
JWTs. These checks keep such values, judged by shape, length and the words
they are made of, so redaction hides credentials and not the work around them.
"""

from __future__ import annotations

import re

from viva_store.redact.jwt import is_public_jwt
from viva_store.redact.names import is_name, is_word

_PLACEHOLDERS = frozenset(
    {
        "any",
        "bool",
        "boolean",
        "bytes",
        "change_me",
        "changeme",
        "credential",
        "credentials",
        "default",
        "dummy",
        "empty",
        "env",
        "example",
        "false",
        "hidden",
        "int",
        "key",
        "masked",
        "n/a",
        "nil",
        "none",
        "null",
        "object",
        "optional",
        "passwd",
        "password",
        "placeholder",
        "redacted",
        "required",
        "secret",
        "str",
        "string",
        "tbd",
        "test",
        "todo",
        "token",
        "true",
        "undefined",
        "unset",
        "value",
    }
)
_PLACEHOLDER_PREFIXES = (
    "$",
    "<",
    "{{",
    "%(",
    "%s",
    "[redacted",
    "your",
    "example",
    "process.env",
    "os.environ",
    "os.getenv",
    "env.",
    "secrets.",
    "vars.",
    "/",
    "./",
    "../",
    "~/",
    "http://",
    "https://",
)
_PLACEHOLDER_INFIXES = ("xxxx", "XXXX", "****", "...", "\u2026", "\u2022", "<", ">", "[REDACTED:")
_DOTTED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+")
_WORD = re.compile(r"[A-Za-z_]+")


def is_placeholder(value: str) -> bool:
    """True if ``value`` is a stand-in (``$X``, ``<key>``, ``xxxx``, ``None``...), not a secret."""
    low = value.lower()
    if low in _PLACEHOLDERS or low.startswith(_PLACEHOLDER_PREFIXES):
        return True
    if any(s in value for s in _PLACEHOLDER_INFIXES):
        return True
    if value.isdigit():
        return True
    return len(set(value)) <= 2


def not_a_credential(value: str, *, literal: bool) -> bool:
    """True if ``value``, found where a secret could stand, is evidently none: a
    placeholder, a public JWT, a name (:func:`~viva_store.redact.names.is_name`) or a
    single short word (a test literal or a default such as ``pass``, ``postgres``)."""
    return (
        is_placeholder(value)
        or is_public_jwt(value)
        or is_name(value, literal=literal)
        or is_word(value)
    )


def looks_like_secret(value: str, *, literal: bool, spaces: bool = False) -> bool:
    """Decide whether an assigned ``value`` should be redacted.

    ``literal`` is true when the syntax says the value is data (quoted, or a
    ``.env`` line such as ``API_KEY=abc``); then anything that is not evidently
    something else (:func:`not_a_credential`) counts. Otherwise (``token =
    make_token()``, YAML, prose) the value must look random: contain a digit or
    a symbol, or be a long mixed-case word. A value with whitespace is prose unless ``spaces``
    (a passphrase under a ``"password"`` key of a JSON object).
    """
    if len(value) < 4 or not_a_credential(value, literal=literal):
        return False
    if not spaces and any(c.isspace() for c in value):
        return False
    if literal:
        return True
    if _DOTTED_NAME.fullmatch(value):
        return False
    if _WORD.fullmatch(value):
        return len(value) >= 16 and not value.islower() and not value.isupper()
    if any(c.isdigit() for c in value):
        return True
    return any(not c.isalnum() and c not in "_.-" for c in value)


def has_digit_and_letter(value: str) -> bool:
    """True if ``value`` mixes digits and letters, as generated tokens do."""
    return any(c.isdigit() for c in value) and any(c.isalpha() for c in value)


def secret_group(m: re.Match[str]) -> str:
    """The text of the first ``secret*`` group that took part in the match."""
    for g in ("secret", "secret2", "secret3"):
        if g in m.re.groupindex and m.start(g) >= 0:
            return m.group(g)
    return m.group()


def accept_value(m: re.Match[str]) -> bool:
    """Accept a match whose secret is not a placeholder, a name or a single short word."""
    return not not_a_credential(secret_group(m), literal=True)


def accept_random(m: re.Match[str]) -> bool:
    """Accept a match whose secret is not a placeholder and mixes digits and letters."""
    value = secret_group(m)
    return not is_placeholder(value) and has_digit_and_letter(value)
