"""JSON Web Tokens that are not secrets: unsigned ones and jwt.io's published samples.

An ``alg: none`` token carries no signature, so it proves nothing and grants
nothing; the jwt.io debugger's sample tokens (the "John Doe" claims) are in
countless tutorials and tests. Redacting either hides ordinary work. They are
recognised by their decoded header and claims, so no token is written here.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

import orjson

_SHAPE = re.compile(r"eyJ[A-Za-z0-9_-]{2,2000}\.[A-Za-z0-9_-]{2,8000}\.[A-Za-z0-9_-]{0,2000}")
# The claims of the samples jwt.io has shown (with and without "admin").
_JWT_IO_CLAIMS = (
    {"sub": "1234567890", "name": "John Doe", "iat": 1516239022},
    {"sub": "1234567890", "name": "John Doe", "admin": True, "iat": 1516239022},
)


def _decode(part: str) -> Any:
    try:
        raw = base64.urlsafe_b64decode(part + "=" * (-len(part) % 4))
        return orjson.loads(raw)
    except (binascii.Error, ValueError):
        return None


def is_public_jwt(value: str) -> bool:
    """True if ``value`` is exactly a JWT that is unsigned (``alg: none``) or a jwt.io sample."""
    if not value.startswith("eyJ") or _SHAPE.fullmatch(value) is None:
        return False
    head, body, _ = value.split(".")
    header = _decode(head)
    if not isinstance(header, dict):
        return False
    if str(header.get("alg", "")).lower() == "none":
        return True
    return _decode(body) in _JWT_IO_CLAIMS
