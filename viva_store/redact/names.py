"""Values that stand where a secret could but name something: words, identifiers, statuses.

``ANTHROPIC_API_KEY=present`` (a status), ``token := "runtime-operator-token"``
and ``"secret": "must-not-appear"`` (test literals), ``--secret id=SECRET_TOKEN``
(a variable reference), ``DatabasePassword: databaseCredentialPath`` (an
identifier), ``password = 'pass'`` (a single short word) — all lost to
redaction once. Generated credentials have none of these shapes; a password
made only of a short word, or of words around a word such as ``password``,
is what tests and examples use.
"""

from __future__ import annotations

import re

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
_PART = r"[A-Za-z]+[0-9]*"  # rc2, never l33t
_WORDS = re.compile(rf"{_PART}(?:[-_.]{_PART})+")  # runtime-operator-token, rc2_key_st
_HUMPS = re.compile(r"[a-z]{2,}(?:[A-Z][a-z]{2,})+|(?:[A-Z][a-z]{2,}){2,}")  # camelCase
_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")  # SECRET_TOKEN
# rc2_key_st, sha256_digest, user_2fa; not live_20e0e7131f35… (a random part is no word)
_SNAKE_PART = r"(?:[a-z]+[0-9]{0,4}|[a-z0-9]{1,8})"
_SNAKE = re.compile(rf"[a-z]{_SNAKE_PART}?(?:_{_SNAKE_PART})+")
_DOTTED = re.compile(r"[A-Za-z_]\w{0,40}(?:\.[A-Za-z_]\w{0,40}){1,5}", re.ASCII)  # base64.x
_SLASHED = re.compile(r"[A-Za-z][A-Za-z_]*(?:/[A-Za-z][A-Za-z_]*)+")  # Europe/Dublin
_OPTIONS = re.compile(r"[a-z][a-z0-9-]*=[^,=\s]*(?:,[a-z][a-z0-9-]*=[^,=\s]*)*")
_OPTION_VALUE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[./~$][^,=\s]*|")
_WORD = re.compile(r"[A-Za-z]{1,12}|[A-Za-z]{3,9}[0-9]{1,3}")
_SEPARATED = re.compile(r"[^A-Za-z0-9]+")


def _words(value: str) -> list[str]:
    """The lower-case words of a name: ``runtime-operator-token``, ``testKey``, ``TEST_KEY``."""
    spaced = re.sub(r"(?<=[a-z])(?=[A-Z])", "-", value)
    return [w.lower() for w in _SEPARATED.split(spaced) if w]


def is_word(value: str) -> bool:
    """True if ``value`` is one short word, perhaps with a short number: ``pass``,
    ``Incorrect``, ``test123`` (twelve characters at most)."""
    return len(value) <= 12 and _WORD.fullmatch(value) is not None


def is_name(value: str, *, literal: bool) -> bool:
    """True if ``value`` names something rather than being a secret.

    A status word; a run of words with a telling word among them (a test
    literal, a sentinel: ``must-not-appear``, ``rest-of-my-password``); a
    variable reference (``SECRET_TOKEN``); an option list (``id=X,src=./x``);
    a path of words (``Europe/Dublin``); and, where the syntax does not say the
    value is data, an identifier or a dotted reference (``databaseCredentialPath``,
    ``rc2_key_st``, ``base64.decodebytes``).
    """
    if len(value) > 80:  # names and sentinels are short; this is data
        return False
    if value.lower() in _STATUS_WORDS:
        return True
    words = _words(value)
    # Or three words between separators: split at its humps a random value gives letter
    # runs too (`…WbZ8zBAdMZ`: `wb`, `bad`, `mz`), and one of them may spell a telling word.
    if _TELLING_WORDS.intersection(words) and (
        _WORDS.fullmatch(value)
        or _HUMPS.fullmatch(value)
        or sum(w.isalpha() for w in _SEPARATED.split(value) if w) >= 3
    ):
        return True
    # `NEXT_NAME=` (an empty assignment on the next line), `Europe/Dublin`.
    if _ENV_NAME.fullmatch(value.rstrip("=")) or _SLASHED.fullmatch(value):
        return True
    if _OPTIONS.fullmatch(value):
        pairs = [p.split("=", 1)[1] for p in value.split(",")]
        if all(_OPTION_VALUE.fullmatch(v) for v in pairs):
            return True
    if literal:
        return False
    bare = value.rstrip(":./-")  # a namespace prefix: `skill_axis:`
    return any(p.fullmatch(bare) for p in (_HUMPS, _SNAKE, _DOTTED))
