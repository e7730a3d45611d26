"""A process compiles only the rule patterns its texts need: importing the redactor and
redacting a sentence with no keyword compiles none (nor a keyword automaton), a text with
a secret only the rules whose keywords it holds. Each case runs in a fresh interpreter,
which watches re.compile."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import viva_store

_PROBE = """
import json, re, sys

compiled = []
_compile = re.compile


def spy(pattern, flags=0):
    compiled.append(getattr(pattern, "pattern", pattern))
    return _compile(pattern, flags)


re.compile = spy
from viva_store.redact import active, redacted

text = sys.argv[1]
out = redacted(text)
seen = set(compiled)
rules, index = active().rules, active().index
print(json.dumps({
    "out": out,
    "automaton": index._database is not None or index._regexes is not None,
    "compiled": sorted(r.id for r in rules if r.compiled.pattern in seen),
    "flagged": sorted(rules[i].id for i in active().index.find(text)),
}))
"""


def _probe(text: str) -> dict[str, Any]:
    root = str(Path(viva_store.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root}
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, text],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_a_sentence_without_keywords_compiles_no_rule_pattern() -> None:
    text = "Run the tests first."
    result = _probe(text)
    assert result["out"] == text
    assert result["flagged"] == []
    assert result["compiled"] == []
    assert not result["automaton"]


def test_a_secret_compiles_only_the_rules_whose_keywords_it_holds() -> None:
    secret = "ghp" + "_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"[::-1]  # built at run time
    result = _probe(f"export GITHUB_TOKEN={secret}")
    assert secret not in result["out"]
    assert "github-pat" in result["compiled"]
    assert set(result["compiled"]) <= set(result["flagged"])
