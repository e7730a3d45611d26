"""Per-rule evidence for Viva's own rules: each true positive is redacted, each false
positive is left alone (the generated gitleaks rules have theirs in test_gitleaks)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from viva_store.redact import RULES, RULES_BY_ID, Rule, redact_text
from viva_store.redact.rules import VIVA_RULES

from .support import secret_of, survivors

REQUIRED = {
    "anthropic-api-key",
    "anthropic-oauth-token",
    "openai-project-key",
    "openai-service-account-key",
    "openrouter-api-key",
    "github-pat",
    "github-fine-grained-pat",
    "github-oauth-token",
    "github-app-token",
    "github-refresh-token",
    "gitlab-pat",
    "aws-access-key-id",
    "aws-secret-access-key",
    "slack-token",
    "slack-webhook-url",
    "stripe-secret-key",
    "stripe-restricted-key",
    "stripe-webhook-secret",
    "google-api-key",
    "huggingface-token",
    "npm-access-token",
    "pypi-upload-token",
    "supabase-access-token",
    "telegram-bot-token",
    "jwt",
    "private-key",
    "url-password",
    "authorization-header",
    "api-key-header",
    "secret-assignment",
    "sendgrid-api-key",
    "twilio-api-key",
    "digitalocean-token",
    "discord-bot-token",
    "azure-storage-account-key",
    "gcp-service-account-key",
}


def test_rule_table_covers_the_required_families() -> None:
    assert len(RULES) >= 32
    assert len(RULES_BY_ID) == len(RULES)
    assert set(RULES_BY_ID) >= REQUIRED


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.id)
def test_rule_is_documented(rule: Rule) -> None:
    assert re.fullmatch(r"[a-z0-9]+(?:-[a-z0-9]+)*", rule.id) and len(rule.id) <= 64
    assert rule.description and rule.source
    keywords = rule.keywords + rule.caseless
    assert keywords and all(len(k) >= 2 for k in keywords)


@pytest.mark.parametrize("rule", VIVA_RULES, ids=lambda r: r.id)
def test_viva_rule_keywords_gate_its_example(rule: Rule) -> None:
    assert rule.tp_example_parts and rule.fp_example
    assert rule.keyword_starts(rule.tp_example), "keywords must gate the example"


@pytest.mark.parametrize("rule", VIVA_RULES, ids=lambda r: r.id)
def test_true_positive_is_redacted(rule: Rule) -> None:
    text = rule.tp_example
    secret = secret_of(rule)
    out, hits = redact_text(text)
    assert not survivors(secret, out), f"{rule.id} left part of its secret in {out!r}"
    assert f"[REDACTED:{rule.id}]" in out
    assert [h.rule for h in hits] == [rule.id]
    for hit in hits:
        assert out[hit.start : hit.end] == f"[REDACTED:{hit.rule}]"


@pytest.mark.parametrize("rule", VIVA_RULES, ids=lambda r: r.id)
def test_false_positive_is_untouched(rule: Rule) -> None:
    assert list(rule.spans(rule.fp_example)) == []
    out, hits = redact_text(rule.fp_example)
    assert (out, hits) == (rule.fp_example, [])


@pytest.mark.parametrize("rule", VIVA_RULES, ids=lambda r: r.id)
def test_only_the_secret_is_replaced(rule: Rule) -> None:
    text = rule.tp_example
    secret = secret_of(rule)
    out, _ = redact_text(text)
    start = text.index(secret)
    assert out == text[:start] + f"[REDACTED:{rule.id}]" + text[start + len(secret) :]


def test_telegram_keeps_the_public_bot_id() -> None:
    rule = RULES_BY_ID["telegram-bot-token"]
    bot_id = rule.tp_example.split(":")[0]
    out, _ = redact_text(rule.tp_example)
    assert out == f"{bot_id}:[REDACTED:telegram-bot-token]"


# The patterns the project's pre-commit check greps for: no file of this
# package or its tests may contain a token-shaped string, not even a fake one.
_TOKEN_SHAPED = re.compile(
    r"sk-ant-(api|oat|ort)[0-9]{2}-[A-Za-z0-9_-]{20,}|sk-(proj-)?[A-Za-z0-9_-]{40,}"
    r"|gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{50,}|AKIA[0-9A-Z]{16}"
    r"|xox[abposr]-[0-9A-Za-z-]{20,}|sk_live_[0-9A-Za-z]{20,}|AIza[0-9A-Za-z_-]{35}"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[A-Za-z0-9+/=]"
    r"|dapi[a-f0-9]{32}|hvs\.[\w-]{90}|glpat-[\w-]{20}|npm_[A-Za-z0-9]{36}|AKCp[A-Za-z0-9]{69}"
    r"|pypi-AgEIcHlwaS5vcmc[\w-]{50}|ya29\.[\w-]{30}|sntrys_eyJ[A-Za-z0-9+/]{30}"
)


def test_no_token_shaped_string_in_the_sources() -> None:
    root = Path(__file__).resolve().parents[2]
    files = [
        *(root / "viva_store" / "redact").rglob("*.py"),
        *(root / "viva_store" / "redact").rglob("*.json"),
        *Path(__file__).parent.glob("*.py"),
        *(root / "scripts").glob("*.py"),
        *(root / "benchmarks").glob("*.py"),
        root / "README.md",
        *(root / "docs").glob("*.md"),
    ]
    assert len(files) > 40
    offenders = [str(f) for f in files if _TOKEN_SHAPED.search(f.read_text())]
    assert offenders == []
