"""Generate Viva's copy of gitleaks' default rules (``viva_store/redact/gitleaks/rules.json``).

    python scripts/gen_gitleaks_rules.py GITLEAKS_TOML --version "gitleaks v8.30.0 (commit b58d3f1)"

Every content rule of the toml is kept with its id, description, entropy
threshold and allowlists; its Go regex is translated for Python
(``scripts/gitleaks_regex.py``) and stored beside the original. What Viva adds
is *where* a rule is tried: the literals every match starts with (the rule is
then tried only where one occurs) or, failing that, the literals every match
contains, when they are rarer than gitleaks' own keywords. Both come from the
pattern itself, so a rule never misses a match gitleaks would report.

Changes of form: the optional identifier prefix gitleaks puts before its
keywords (``[\\w.-]{0,50}?``) is dropped from the pattern (it only widened the
reported match; the allowlists that look at the whole match see it again,
``left_context``); a JSON escape counts as a word boundary, and a backslash
(undecoded JSON text) or a ``/`` (a path) ends a secret; an unbounded ``.*`` runs at most 1,024
characters (the two curl rules; Python's engine backtracks); and allowlisted
literal tokens (public demo keys) are kept as SHA-256 digests, so no
token-shaped string is committed.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tomllib
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from gitleaks_regex import (
    FLAGS,
    JSON_BOUNDARY,
    Literal,
    is_fixed,
    prefixes,
    required,
    translate,
)

OUT = Path(__file__).resolve().parents[1] / "viva_store" / "redact" / "gitleaks" / "rules.json"
_IDENT_PREFIX = r"[\w.-]{0,50}?"
_BEFORE_PREFIX = re.compile(r"(?:\(\?i\)|\(\?i:)*")
# A path-only rule finds files by name: there is no file name in a transcript's text.
_SKIP_WHY = "a rule on file names only (no content pattern)"
# A rule matching one fixed string marks the public prefix of a token as the secret.
_FIXED = {
    "aws-amazon-bedrock-api-key-short-lived": (
        "matches only the fixed public prefix of the token; Viva's "
        "aws-bedrock-short-term-api-key redacts the whole token"
    ),
}


# gitleaks ends a secret at a quote, space, `;`, the text's end or an escaped newline;
# Viva also at any backslash (undecoded JSON: `\"`, `\\n`, `\u0022`) and at a `/` (a
# token as a folder name).
_END = r"""(?:[\x60'"\s;]|\\[nr]|$)"""
_WIDER_END = r"""(?:[\x60'"\s;/]|\\|$)"""


# In undecoded JSON the quotes and tabs around a value are escaped: `\"key\": \"...\"`.
_WIDER = {
    _END: _WIDER_END,
    r"""[\s'"]{0,3}""": r"""(?:[\s'"]|\\[nrt"']){0,3}""",
    r"""[\x60'"\s=]{0,5}""": r"""(?:[\x60'"\s=]|\\[nrt"'\x60]){0,5}""",
    # curl-auth-user's end of the credential: also a quote closing the command around it
    r"(?:\s|\z)": r"""(?:[\s"'\x60;)]|\\|\z)""",
    # azure-ad-client-secret's own boundaries; it also starts after an escaped line break
    r"""(?:^|[\\'"\x60\s>=:(,)])""": r"""(?:^|[\\'"\x60\s>=:(,)/]|(?<=\\[nrt]))""",
    r"""(?:$|[\\'"\x60\s<),])""": r"""(?:$|[\\'"\x60\s<),/])""",
}


def widen_for_json(go: str) -> str:
    """``go`` with its secret terminator also taking a backslash or a ``/``, and the
    separators around a value also JSON escapes (never fewer matches)."""
    for narrow, wide in _WIDER.items():
        go = go.replace(narrow, wide)
    return go


# Python's regex engine backtracks where Go's does not: an unbounded `.*` tried at every
# occurrence of a common word (`curl`) on one long line costs the square of its length.
_DOT_LIMIT = 1024


def bound_dot_runs(go: str) -> str:
    """``go`` with each unbounded run of ``.`` (``.*``, ``.+``) bounded to 1,024 characters."""
    out: list[str] = []
    i = 0
    in_class = False
    while i < len(go):
        c = go[i]
        if c == "\\":
            out.append(go[i : i + 2])
            i += 2
            continue
        if in_class:
            in_class = c != "]"
        elif c == "[":
            in_class = True
            if go.startswith("]", i + 1) or go.startswith("^]", i + 1):
                out.append(go[i : i + 2])
                i += 2
                continue
        elif c == "." and i + 1 < len(go) and go[i + 1] in "*+":
            low = "0" if go[i + 1] == "*" else "1"
            out.append(f".{{{low},{_DOT_LIMIT}}}")
            i += 2
            continue
        out.append(c)
        i += 1
    return "".join(out)


def strip_identifier_prefix(go: str) -> tuple[str, bool]:
    """``go`` without gitleaks' leading ``[\\w.-]{0,50}?`` identifier prefixes, and whether
    one was dropped. Only a prefix with nothing but flag groups before it is dropped:
    a leading optional part can go without losing any match."""
    out, dropped = go, False
    while True:
        i = out.find(_IDENT_PREFIX)
        if i < 0 or not _BEFORE_PREFIX.fullmatch(out[:i]):
            return out, dropped
        out, dropped = out[:i] + out[i + len(_IDENT_PREFIX) :], True


def _keywords(lits: set[Literal]) -> dict[str, list[str]]:
    caseless = sorted({t for t, c in lits if c})
    exact = sorted({t for t, c in lits if not c and t.lower() not in caseless})
    return {"keywords": exact, "caseless": caseless}


def _no_commoner(lits: set[Literal] | None, theirs: list[str]) -> bool:
    """Whether each literal occurs at most about as often as one of gitleaks' keywords:
    it contains one, or starts one and is nearly as long (``passw`` for ``passwd``)."""
    if not lits:
        return False
    return all(
        any(k in text.lower() for k in theirs)
        or any(k.startswith(text.lower()) and len(text) >= max(5, 0.8 * len(k)) for k in theirs)
        for text, _ in lits
    )


def _shortest(lits: set[Literal] | None) -> int:
    return min((len(t) for t, _ in lits), default=0) if lits else 0


def choose_gate(python: str, gitleaks_keywords: list[str]) -> dict[str, Any]:
    """Keywords and anchoring for one rule, never commoner than gitleaks' own keywords:
    the literals every match starts with (the rule is tried only there), else those
    every match contains, else gitleaks' keywords (case-insensitive, as gitleaks
    checks them); and, when known, the literals its matches start with."""
    theirs = [k.lower() for k in gitleaks_keywords]
    starts = prefixes(python)
    needed = required(python)
    if _no_commoner(starts, theirs) and not (
        # A short start (`ey`) when every match also holds a longer literal (`.ey`).
        _no_commoner(needed, theirs)
        and _shortest(starts) < 4
        and _shortest(needed) > _shortest(starts)
    ):
        assert starts is not None
        # A rule whose matches start at a word boundary needs its keyword at one.
        bounded = python.startswith(JSON_BOUNDARY)
        return {
            **_keywords(starts),
            "anchored": True,
            "bounded": bounded,
            "gate": "starts",
            **_starts(starts),
        }
    gate = needed if _no_commoner(needed, theirs) else {(k, True) for k in theirs}
    assert gate is not None
    return {
        **_keywords(gate),
        "anchored": False,
        "bounded": False,
        "gate": "contains" if gate is needed else "gitleaks",
        **_starts(starts),
    }


def _starts(starts: set[Literal] | None) -> dict[str, list[str]]:
    """Where to try a rule the gate let through: at these literals (when known)."""
    if not starts or any(len(t) < 2 for t, _ in starts):
        return {"starts": [], "starts_caseless": []}
    words = _keywords(starts)
    return {"starts": words["keywords"], "starts_caseless": words["caseless"]}


def _is_token(go: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9_\-]{16,}", go) is not None


def allowlist(raw: dict[str, Any], rule_regex: re.Pattern[str] | None) -> dict[str, Any] | None:
    """One allowlist, as Viva checks it (None when it can never apply: it needs a path)."""
    condition = raw.get("condition", "OR")
    if raw.get("paths") and condition == "AND":
        return None
    regexes: list[dict[str, str]] = []
    digests: list[dict[str, Any]] = []
    for go in raw.get("regexes", []):
        python = translate(go)
        re.compile(python, FLAGS)
        if rule_regex is not None and _is_token(go) and rule_regex.search(go):
            # A public token itself (a documented demo key): kept as its digest.
            digests.append({"length": len(go), "sha256": hashlib.sha256(go.encode()).hexdigest()})
        else:
            regexes.append({"go": go, "regex": python})
    out: dict[str, Any] = {"target": raw.get("regexTarget", "secret"), "condition": condition}
    if regexes:
        out["regexes"] = regexes
    if digests:
        out["digests"] = sorted(digests, key=lambda d: d["sha256"])
    if raw.get("stopwords"):
        out["stopwords"] = sorted({w.lower() for w in raw["stopwords"]})
    if not (regexes or digests or raw.get("stopwords")):
        return None
    return out


def rule_regex(go: str) -> tuple[str, bool]:
    """A rule's Go regex as Viva runs it, and whether the identifier prefix was dropped."""
    stripped, dropped = strip_identifier_prefix(go)
    return translate(bound_dot_runs(widen_for_json(stripped)), json_escapes=True), dropped


def convert(rule: dict[str, Any]) -> dict[str, Any]:
    go = rule["regex"]
    python, dropped = rule_regex(go)
    compiled = re.compile(python, FLAGS)
    out: dict[str, Any] = {
        "id": rule["id"],
        "description": rule["description"],
        "go": go,
        "regex": python,
        **choose_gate(python, rule["keywords"]),
        "entropy": rule.get("entropy"),
        "secret_group": rule.get("secretGroup"),
        # A named first group marks a variant (jwt-base64), not the secret: redact the match.
        "redact_match": rule.get("secretGroup") is None
        and bool(compiled.groupindex)
        and min(compiled.groupindex.values()) == 1,
        "left_context": dropped,
    }
    if "path" in rule:
        out["gitleaks_path"] = rule["path"]  # gitleaks checks only such files; Viva, all text
    lists = [allowlist(a, compiled) for a in rule.get("allowlists", [])]
    if any(lists):
        out["allowlists"] = [a for a in lists if a]
    return out


def generate(toml_path: Path, version: str) -> dict[str, Any]:
    data = toml_path.read_bytes()
    config = tomllib.loads(data.decode())
    rules = [r for r in config["rules"] if "regex" in r and r["id"] not in _FIXED]
    skipped = [{"id": r["id"], "why": _SKIP_WHY} for r in config["rules"] if "regex" not in r]
    for rule in config["rules"]:
        if rule["id"] in _FIXED:
            if not is_fixed(rule_regex(rule["regex"])[0]):
                raise SystemExit(f"{rule['id']} is no longer a fixed string: review _FIXED")
            skipped.append({"id": rule["id"], "why": _FIXED[rule["id"]]})
    top = config.get("allowlist", {})
    return {
        "source": {
            "name": "gitleaks default configuration (config/gitleaks.toml)",
            "version": version,
            "sha256": hashlib.sha256(data).hexdigest(),
            "license": "MIT (LICENSE beside this file)",
        },
        "generator": "scripts/gen_gitleaks_rules.py",
        "global_allowlist": allowlist(
            {"regexes": top.get("regexes", []), "stopwords": top.get("stopwords", [])}, None
        ),
        "rules": [convert(r) for r in rules],
        "skipped": skipped,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("toml", type=Path)
    parser.add_argument("--version", required=True, help="gitleaks version and commit")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args()
    table = generate(args.toml, args.version)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(table, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{len(table['rules'])} rules ({len(table['skipped'])} skipped) -> {args.out}")


if __name__ == "__main__":
    main()
