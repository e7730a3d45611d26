"""A user's own rules and allow-listed values (``[redact]`` in ``config.toml``): checked at
start with one clear clause per bad entry, then in force for every redaction."""

from __future__ import annotations

import pickle
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from viva_store import redact
from viva_store.config import Config
from viva_store.errors import InvalidInput
from viva_store.redact import (
    RULES_BY_ID,
    RULESET_VERSION,
    configure,
    gate,
    redact_obj,
    redact_text,
    ruleset_version,
    settings_from_config,
)
from viva_store.redact.rule import fill
from viva_store.store import Store

ACME = "acme_" + fill(32, seed=21)
RULE = {"name": "acme-token", "regex": r"acme_[A-Za-z0-9]{32}", "keywords": ["acme_"]}


@pytest.fixture(autouse=True)
def _builtin_rules_after() -> Iterator[None]:
    yield
    configure(None)


def test_a_user_rule_redacts_its_tokens() -> None:
    assert redact_text(f"id {ACME} end")[1] == []
    configure(settings_from_config({"rules": [RULE]}))
    assert redact_text(f"id {ACME} end")[0] == "id [REDACTED:acme-token] end"
    assert redact_obj({"k": ACME})[0] == {"k": "[REDACTED:acme-token]"}
    assert gate.flagged(["nothing", f"x {ACME}"]) == {1}
    assert gate.flagged(["nothing", f"x {ACME}"], fast=False) == {1}


def test_a_secret_group_narrows_what_is_replaced() -> None:
    rule = {**RULE, "regex": r"ACME_KEY=(?P<secret>[A-Za-z0-9_]{37})", "keywords": ["ACME_KEY="]}
    configure(settings_from_config({"rules": [rule]}))
    assert redact_text(f"ACME_KEY={ACME}")[0] == "ACME_KEY=[REDACTED:acme-token]"


def test_allow_listed_values_and_patterns_are_kept() -> None:
    github = RULES_BY_ID["github-pat"].tp_example
    jwt = RULES_BY_ID["jwt"].tp_example
    configure(settings_from_config({"allow": [github], "allow_patterns": [r"^eyJ.{20}"]}))
    assert redact_text(f"{github} and {jwt}") == (f"{github} and {jwt}", [])
    assert redact_obj({"token": github}) == ({"token": github}, [])
    aws = RULES_BY_ID["aws-access-key-id"].tp_example
    assert redact_text(aws)[0] == "[REDACTED:aws-access-key-id]"


def test_the_rule_set_version_follows_the_settings() -> None:
    assert ruleset_version() == RULESET_VERSION
    configure(settings_from_config({"rules": [RULE]}))
    with_rule = ruleset_version()
    assert with_rule.startswith(RULESET_VERSION + "+") and with_rule != RULESET_VERSION
    configure(settings_from_config({"rules": [RULE], "allow": ["x"]}))
    assert ruleset_version() not in (with_rule, RULESET_VERSION)
    configure(settings_from_config({}))
    assert ruleset_version() == RULESET_VERSION


@pytest.mark.parametrize(
    ("table", "clause"),
    [
        (
            {"rules": [{**RULE, "regex": "acme_(["}]},
            "rule 1 ('acme-token'): regex does not compile",
        ),
        ({"rules": [{**RULE, "name": "Acme Token"}]}, "name must be lower-case words"),
        ({"rules": [{**RULE, "name": "github-pat"}]}, "the name is already taken"),
        ({"rules": [{**RULE, "keywords": []}]}, "keywords must be a list of ASCII strings"),
        ({"rules": [{**RULE, "keywords": ["a"]}]}, "keywords must be a list of ASCII strings"),
        ({"rules": [{**RULE, "keywords": ["clé_"]}]}, "keywords must be a list of ASCII strings"),
        ({"rules": [{**RULE, "keywords": ["ac?me"]}]}, "without a newline or ?"),
        ({"rules": [{**RULE, "regex": "x*"}]}, "regex matches the empty string"),
        ({"rules": [{**RULE, "regexp": "x"}]}, "unknown key 'regexp'"),
        ({"rules": [RULE, RULE]}, "rule 2 ('acme-token'): the name is already taken"),
        ({"rules": ["acme"]}, "rule 1 must be a table"),
        ({"rules": {"name": "x"}}, "rules must be an array of tables"),
        ({"allow": "x"}, "allow must be a list of strings"),
        ({"allow_patterns": ["("]}, "allow_patterns '(' does not compile"),
        ({"allowed": []}, "unknown key 'allowed'"),
    ],
)
def test_each_bad_entry_is_named(table: dict[str, Any], clause: str) -> None:
    with pytest.raises(InvalidInput) as info:
        settings_from_config(table, "/home/u/config.toml")
    message = str(info.value)
    assert message.startswith("/home/u/config.toml [redact]: ")
    assert clause in message
    assert "\n" not in message


def test_every_bad_rule_is_reported_at_once() -> None:
    table = {"rules": [{**RULE, "regex": "("}, RULE, {"name": "b", "regex": "b+"}]}
    with pytest.raises(InvalidInput) as info:
        settings_from_config(table)
    message = str(info.value)
    assert "rule 1 ('acme-token'): regex does not compile" in message
    assert "rule 3 ('b'): keywords must be" in message
    assert "rule 2" not in message


def test_opening_the_store_checks_the_table(tmp_path: Path, db_url: str) -> None:
    home = tmp_path / "home"
    bad = Config(home=home, db_url=db_url, raw={"redact": {"rules": [{"name": "x"}]}})
    with pytest.raises(InvalidInput, match=r"config\.toml \[redact\]: rule 1 \('x'\)"):
        Store.open(bad)
    good = Config(home=home, db_url=db_url, raw={"redact": {"rules": [RULE]}})
    store = Store.open(good)
    try:
        assert redact.redacted(ACME) == "[REDACTED:acme-token]"
    finally:
        store.close()
    Store.open(Config(home=home, db_url=db_url)).close()
    assert redact.redacted(ACME) == ACME


def test_the_settings_in_force_can_be_handed_to_another_process() -> None:
    settings = settings_from_config({"rules": [RULE], "allow": ["x"]})
    configure(settings)
    handed = pickle.loads(pickle.dumps(redact.active().settings))
    assert handed == settings
    configure(None)
    assert redact.redacted(ACME) == ACME
    configure(handed)  # what a reader process would do on start
    assert redact.redacted(ACME) == "[REDACTED:acme-token]"
