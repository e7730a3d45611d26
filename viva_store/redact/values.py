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
# What a check prints instead of the value: `KEY=set`, `token: missing`.
_STATUS_WORDS = frozenset(
    {
        "absent", "active", "available", "blank", "configured", "defined", "disabled",
        "enabled", "exists", "expired", "found", "inactive", "invalid", "loaded", "missing",
        "no", "not-set", "notset", "off", "ok", "on", "pending", "present", "provided",
        "ready", "revoked", "set", "unavailable", "valid", "yes",
    }
)  # fmt: skip
# Words that make a run of words a name or a test literal, not a passphrase.
_TELLING_WORDS = frozenset(
    {
        "api", "appear", "bad", "bar", "baz", "client", "credential", "credentials", "demo",
        "dummy", "example", "fake", "fixture", "foo", "invalid", "key", "keys", "leak",
        "leaked", "mock", "must", "never", "not", "operator", "pass", "passwd", "password",
        "placeholder", "pwd", "qux", "redacted", "replace", "sample", "secret", "secrets",
        "sentinel", "should", "shown", "stub", "test", "testing", "tests", "token", "tokens",
        "value", "wrong", "your",
    }
)  # fmt: skip
_WORDS = re.compile(r"[A-Za-z]{2,}(?:[-_.][A-Za-z]{2,})+")
_HUMPS = re.compile(r"[a-z]{2,}(?:[A-Z][a-z]{2,})+|(?:[A-Z][a-z]{2,}){2,}")
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")
_OPTIONS = re.compile(r"[a-z][a-z0-9-]*=[^,=\s]*(?:,[a-z][a-z0-9-]*=[^,=\s]*)*")
_OPTION_VALUE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[./~$][^,=\s]*|")


def _words(value: str) -> list[str]:
    """The lower-case words of a name: ``runtime-operator-token``, ``testKey``, ``TEST_KEY``."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", "-", value)
    return [w.lower() for w in re.split(r"[-_.]", spaced) if w]


def is_name(value: str, *, literal: bool) -> bool:
    """True if ``value`` names something rather than being a secret.

    A status word; a run of words with a telling word among them (a test
    literal, a sentinel); a variable reference (``SECRET_TOKEN``); an option
    list (``id=SECRET_TOKEN,src=./x``); and, where the syntax does not say the
    value is data, a camelCase identifier (``databaseCredentialPath``).
    """
    if value.lower() in _STATUS_WORDS:
        return True
    if (_WORDS.fullmatch(value) or _HUMPS.fullmatch(value)) and _TELLING_WORDS & set(_words(value)):
        return True
    if _ENV_NAME.fullmatch(value):
        return True
    if _OPTIONS.fullmatch(value):
        pairs = [p.split("=", 1)[1] for p in value.split(",")]
        if all(_OPTION_VALUE.fullmatch(v) for v in pairs):
            return True
    return not literal and _HUMPS.fullmatch(value) is not None


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


def looks_like_secret(value: str, *, literal: bool, spaces: bool = False) -> bool:
    """Decide whether an assigned ``value`` should be redacted.

    ``literal`` is true when the syntax says the value is data (quoted, or a
    ``.env`` line such as ``API_KEY=abc``); then anything that is not a
    placeholder counts. Otherwise (``token = make_token()``, YAML, prose) the
    value must look random: contain a digit or a symbol, or be a long
    mixed-case word. A value with whitespace is prose unless ``spaces``
    (a passphrase under a ``"password"`` key of a JSON object).
    """
    if len(value) < 4 or is_placeholder(value) or is_public_jwt(value):
        return False
    if not spaces and any(c.isspace() for c in value):
        return False
    if is_name(value, literal=literal):
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
    """Accept a match whose secret is not a placeholder."""
    value = secret_group(m)
    return not is_placeholder(value)


def accept_random(m: re.Match[str]) -> bool:
    """Accept a match whose secret is not a placeholder and mixes digits and letters."""
    value = secret_group(m)
    return not is_placeholder(value) and has_digit_and_letter(value)
