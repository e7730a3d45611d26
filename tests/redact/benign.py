"""A benign corpus, assembled at run time from real-shaped content that holds no secret.

Every redaction in it is a wrong one. Parts: the Python standard library's
source on this machine and this repository's own code and documents (read from
disk; not its tests, which plant credential-shaped strings on purpose), and
generated text: ``.env.example``-style files with placeholders, shell
sessions that check variables, Go/TypeScript/Python test literals, hashes and
UUIDs in their usual places, the public jwt.io sample and ``alg: none`` JWTs,
and base64 images. Nothing token-shaped is written in this file.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import random
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
STDLIB = Path(sys.base_prefix) / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}"

_SERVICES = [
    "ANTHROPIC", "OPENAI", "GITHUB", "STRIPE", "SENTRY", "POSTHOG", "DATADOG", "SLACK",
    "TWILIO", "SENDGRID", "VAULT", "DOPPLER", "NOTION", "HEROKU", "PULUMI", "DATABRICKS",
]  # fmt: skip
_SUFFIXES = ["API_KEY", "TOKEN", "SECRET", "SECRET_KEY", "ACCESS_KEY", "PASSWORD", "AUTH_TOKEN"]
_PLACEHOLDERS = [
    "", "your-api-key-here", "<your-token>", "changeme", "xxxxxxxxxxxxxxxx", "${{ secrets.X }}",
    "$SECRET", "TODO", "replace-me", "sk-...", "********", "<redacted>", "none", "false",
    "your_secret_here", "{{ vault.token }}", "%(password)s", "dummy", "test_key", "set",
]  # fmt: skip
_STATUSES = ["set", "present", "missing", "unset", "configured", "absent", "ok"]
_WORDS = [
    "alpha",
    "beta",
    "gamma",
    "operator",
    "runtime",
    "fixture",
    "client",
    "server",
    "worker",
    "session",
    "value",
]


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt_samples() -> list[str]:
    """jwt.io's debugger sample (built from its documented claims and secret) and unsigned JWTs."""
    head = _b64(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    claims = {"sub": "1234567890", "name": "John Doe", "iat": 1516239022}
    body = _b64(json.dumps(claims, separators=(",", ":")).encode())
    signature = hmac.new(b"your-256-bit-secret", f"{head}.{body}".encode(), hashlib.sha256)
    unsigned = _b64(json.dumps({"alg": "none"}).encode())
    return [
        f"{head}.{body}.{_b64(signature.digest())}",
        f"{unsigned}.{body}.",
        f"{unsigned}.{_b64(json.dumps({'sub': 'user-42', 'scope': 'read'}).encode())}.",
    ]


def _env_example(rng: random.Random) -> str:
    lines = ["# Copy to .env and fill in your own values"]
    for _ in range(rng.randint(6, 14)):
        name = f"{rng.choice(_SERVICES)}_{rng.choice(_SUFFIXES)}"
        lines.append(f"{name}={rng.choice(_PLACEHOLDERS)}")
    lines.append("DATABASE_URL=postgres://user:password@localhost:5432/app")
    lines.append("REDIS_URL=redis://localhost:6379/0")
    return "\n".join(lines) + "\n"


def _shell_session(rng: random.Random) -> str:
    name = f"{rng.choice(_SERVICES)}_{rng.choice(_SUFFIXES)}"
    status = rng.choice(_STATUSES)
    return "\n".join(
        [
            f'$ test -n "${name}" && echo "{name}=present" || echo "{name}=missing"',
            f"{name}={status}",
            f"$ echo ${{{name}:+set}}",
            "set",
            f"$ env | grep -c {name.split('_')[-1]}",
            str(rng.randint(0, 3)),
            f"$ docker build --secret id={name},src=$HOME/.secrets/{name.lower()} -t app .",
            f'$ gh secret set {name} --body "${name}"',
            f"$ kubectl create secret generic {rng.choice(_WORDS)}-creds --from-env-file=.env",
            f"$ printenv | cut -d= -f1 | grep {name[:6]}",
            name,
        ]
    )


def _test_literals(rng: random.Random) -> str:
    word = "-".join(rng.sample(_WORDS, 2))
    return "\n".join(
        [
            "func TestRedaction(t *testing.T) {",
            f'\ttoken := "{word}-token"',
            '\tt.Setenv("API_KEY", "dummy")',
            '\tcfg := Config{DatabasePassword: databaseCredentialPath, APIKey: "disabled"}',
            "}",
            "it('hides nothing it should not', () => {",
            f"  const secret = 'must-not-appear';  const apiKey = '{rng.choice(_WORDS)}';",
            '  expect(mask({ password: "test_key" })).toEqual({ password: "***" });',
            "});",
            "def test_login(client):",
            '    client.login(user="alice", password="pass")',
            '    assert settings.SECRET_KEY == "test"',
        ]
    )


def _hashes(rng: random.Random) -> str:
    data = rng.randbytes(64)
    sha1 = hashlib.sha1(data).hexdigest()
    sha256 = hashlib.sha256(data).hexdigest()
    sha512 = base64.b64encode(hashlib.sha512(data).digest()).decode()
    ident = uuid.UUID(int=rng.getrandbits(128))
    return "\n".join(
        [
            f"commit {sha1}",
            f"Merge: {sha1[:7]} {hashlib.sha1(data[:8]).hexdigest()[:7]}",
            f"{sha256}  dist/app.tar.gz",
            f'"integrity": "sha512-{sha512}",',
            f"image: ghcr.io/acme/app@sha256:{sha256}",
            f'{{"id": "{ident}", "request_id": "{uuid.UUID(int=rng.getrandbits(128))}"}}',
            f"session {ident} resumed; md5 {hashlib.md5(data).hexdigest()}",
        ]
    )


def _jwt_text(rng: random.Random) -> str:
    token = rng.choice(jwt_samples())
    return f"Paste a token into jwt.io to decode it, e.g.\nAuthorization: Bearer {token}\n"


def _image(rng: random.Random) -> str:
    raw = b"\x89PNG\r\n\x1a\n" + rng.randbytes(rng.randint(2_000, 12_000))
    return f'<img src="data:image/png;base64,{base64.b64encode(raw).decode()}">'


_GENERATED = (_env_example, _shell_session, _test_literals, _hashes, _jwt_text, _image)


def _files(root: Path, patterns: tuple[str, ...]) -> list[Path]:
    skip = {".venv", ".git", "site-packages", "__pycache__", "node_modules"}
    found = [p for pat in patterns for p in root.rglob(pat) if not skip & set(p.parts)]
    return sorted(found)


def benign(mb: float, seed: int = 1) -> Iterator[tuple[str, str]]:
    """``(label, text)`` pieces adding up to about ``mb`` megabytes: files of the standard
    library and of this repository in turn with generated pieces (about a fifth)."""
    rng = random.Random(seed)
    # Not this repository's tests: the redaction tests hold credential-shaped inputs on purpose.
    ours = [REPO / d for d in ("viva_store", "viva_tui", "docs", "scripts", "benchmarks")]
    files = _files(STDLIB, ("*.py",)) + [p for d in ours for p in _files(d, ("*.py", "*.md"))]
    files += [REPO / "README.md"]
    rng.shuffle(files)
    budget = int(mb * (1 << 20))
    written = 0
    for path in files:
        if written >= budget:
            return
        text = path.read_text(encoding="utf-8", errors="replace")
        written += len(text.encode())
        yield str(path), text
        while rng.random() < 0.8 and written < budget:
            make = rng.choice(_GENERATED)
            piece = make(rng)
            written += len(piece.encode())
            yield make.__name__.strip("_"), piece
