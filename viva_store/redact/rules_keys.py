"""Rules for private-key material and signed tokens: PEM / OpenSSH / PGP, PuTTY, age, JWT."""

from __future__ import annotations

from viva_store.redact.rule import B64, B64URL, HEX, UPPER_DIGITS, Rule, fill, token

_GL = "gitleaks default rule"

_PEM_HEAD = r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
_PEM_END = r"-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
# One character of a key body; a JSON escape (\n, \\n, \/) counts as one.
_PEM_CHAR = r"(?:[A-Za-z0-9+/=\s:,.\-]|\\+[nrt/])"
# A line break (raw or JSON-escaped) and the prefix a tool put before the next line:
# Claude Code's Read (`    12→`), `bat` (`  12 │ `), a quote (`> `, `>> `). Line
# numbers alone (`cat -n`, `nl`, `grep -n`) and diff signs are key characters already.
_MARK = r"(?:→|\\+u2192|│|\\+u2502|>)"
_MARKED_LINE = rf"(?:\n|\\+n)[ \t]{{0,12}}\d{{0,9}}[ \t]{{0,2}}(?:{_MARK}[ \t]?){{1,4}}"
_BODY = rf"(?:{_MARKED_LINE}|{_PEM_CHAR})"  # the marked line first: the greedy loop takes it
# A blank line, raw or JSON-escaped, perhaps behind such a prefix, ends a block that
# has no END line.
_BLANK = (
    rf"(?:\n[ \t\r]{{0,8}}\n|(?:\\+r)?\\+n(?:\\+r)?\\+n|{_MARKED_LINE}[ \t\r]{{0,8}}(?:\n|\\+n))"
)


def _pem(kind: str, body: str) -> str:
    """A PEM block of ``kind`` with ``body``, assembled at run time."""
    return "".join(("-----BEGIN ", kind, "-----\n", body, "\n-----END ", kind, "-----\n"))


def _body(seed: int) -> str:
    return "\n".join(fill(64, B64, seed + i) for i in range(3)) + "\n" + fill(20, B64, seed) + "=="


RULES: tuple[Rule, ...] = (
    Rule(
        id="private-key",
        pattern=(
            # With an END line: the whole block. Without one (a truncated paste): up to
            # the end of the text, the next blank line or the closing quote.
            rf"{_PEM_HEAD}(?:{_BODY}{{0,64000}}?{_PEM_END}|(?:(?!{_BLANK}){_BODY}){{0,64000}})"
        ),
        description="PEM, OpenSSH, PGP or encrypted private-key block, with or without END line,"
        " also inside line-numbered or quoted output",
        source="after gitleaks 'private-key'; GitHub secret scanning (private keys)",
        tp_example_parts=(
            "-----BEGIN ",
            "RSA PRIVATE KEY",
            "-----\n",
            _body(91),
            "\n-----END RSA ",
            "PRIVATE KEY-----\n",
        ),
        fp_example=_pem("PUBLIC KEY", _body(92)),
        keywords=("-----BEGIN",),
    ),
    Rule(
        id="putty-private-key",
        pattern=(
            r"PuTTY-User-Key-File-\d:(?:[^\"\\]|\\+[nrt/]|\\+u[0-9a-fA-F]{4}){0,20000}?"
            r"Private-MAC:\s?[0-9a-f]{20,128}"
        ),
        description="PuTTY .ppk private key (from the header through Private-MAC)",
        source="PuTTY .ppk format documentation",
        tp_example_parts=(
            "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\n",
            "Public-Lines: 2\n",
            fill(64, B64, 93),
            "\n",
            fill(20, B64, 94),
            "\nPrivate-Lines: 1\n",
            fill(44, B64, 95),
            "\nPrivate-MAC: ",
            fill(64, HEX, 96),
            "\n",
        ),
        fp_example="A .ppk file starts with PuTTY-User-Key-File-3: and a key type.",
        keywords=("PuTTY-User-Key-File-",),
    ),
    Rule(
        id="age-secret-key",
        pattern=token(r"AGE-SECRET-KEY-1", r"[0-9A-Z]{58}"),
        description="age encryption identity (AGE-SECRET-KEY-1...)",
        source=f"{_GL} 'age-secret-key'",
        tp_example_parts=("AGE-SECRET-", "KEY-1", fill(58, UPPER_DIGITS, 97)),
        fp_example="age-keygen prints AGE-SECRET-KEY-1 followed by the key.",
        keywords=("AGE-SECRET-KEY-1",),
    ),
    Rule(
        id="jwt",
        pattern=token(
            r"eyJ",
            r"[A-Za-z0-9_\-]{8,8000}\.eyJ[A-Za-z0-9_\-]{8,8000}\.(?:[A-Za-z0-9_\-]{1,8000})?",
        ),
        description="JSON Web Token (header.payload.signature, both JSON parts base64url)",
        source="after gitleaks 'jwt' (RFC 7519 compact form: both JSON parts start eyJ)",
        tp_example_parts=(
            "eyJ",
            fill(30, B64URL, 98),
            ".",
            "eyJ",
            fill(60, B64URL, 99),
            ".",
            fill(43, B64URL, 100),
        ),
        fp_example='eyJhbGciOi is base64 for {"alg": and not a token by itself.',
        keywords=("eyJ",),
    ),
)
