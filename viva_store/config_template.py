"""The commented ``config.toml`` written on first use, built from the parameter definitions.

Sections whose parameters are a dataclass (``[skills]``, ``[recall]``) list its fields with
their defaults, so a parameter added there appears here without anyone writing it twice;
the other sections' keys and defaults are defined in :data:`PARAMETERS`, beside the
modules that read them. A test walks the code's reads of every section and checks each
key is in the template.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, fields
from pathlib import Path
from typing import Any

HEADER = "# Viva configuration. Every value below is a default; uncomment to change it.\n"


@dataclass(frozen=True, slots=True)
class Param:
    """One key of a section: its default (as TOML) and what it does."""

    key: str
    default: str
    note: str = ""


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, dict):
        return "{ " + ", ".join(f'{k} = "{v}"' for k, v in value.items()) + " }"
    return repr(value)


def _dataclass_params(cls: Any, notes: dict[str, str]) -> list[Param]:
    out = []
    for f in fields(cls):
        factory: Any = f.default_factory
        default = f.default if f.default is not MISSING else factory()
        out.append(Param(f.name, _toml(default), notes.get(f.name, "")))
    return out


SKILL_NOTES = {
    "value_success": "a use that succeeded adds this to the weight",
    "value_failure": "a use that failed",
    "value_corrected": "a use the owner corrected",
    "initial_weight": "a skill's weight on entering a set",
    "half_life_sessions": "session track",
    "half_life_days": "time track",
    "forget_below": "a weight below this is forgotten once idle",
    "trial_days": "a store's first days: nothing is forgotten",
    "projection_limit": "skills projected into one session at most",
}
RECALL_NOTES = {
    "relevance_k": "0: the search engine's own default",
    "state_mode": "prefer | restrict | off: the member's current project in ranking",
    "max_query_chars": "a longer query is cut",
}


def _sections() -> list[tuple[str, str, list[Param]]]:
    """Every section: its name, a one-line heading and its parameters."""
    from viva_store.engagement.rules import DEFAULT_ACTIVITIES, JUDGE_THRESHOLD
    from viva_store.importing.harness import registry
    from viva_store.launch.render import LAYOUTS
    from viva_store.recall.ranking import RecallParams
    from viva_store.skills.params import SkillParams

    harnesses = registry.names()
    roots = [Param(h, _toml(registry.default_layout(h).split(" or ")[0])) for h in harnesses]
    return [
        ("skills", "skill weights and forgetting", _dataclass_params(SkillParams, SKILL_NOTES)),
        ("recall", "`viva recall` ranking", _dataclass_params(RecallParams, RECALL_NOTES)),
        (
            "triage",
            "classifying sessions",
            [
                Param("match_window_seconds", "120", "execution record vs. session start"),
                Param("suggest_min_confidence", "0.6", "`viva suggest` shows no weaker guess"),
            ],
        ),
        (
            "knowledge",
            "the owner's review queue, the task brief",
            [
                Param("unused_days", "60", "admitted and unused this long: up for review"),
                Param("unverified_days", "30", "never used, less sure than min_confidence"),
                Param("min_confidence", "0.5"),
                Param("brief_limit", "10", "related items a task brief shows"),
            ],
        ),
        (
            "import",
            "`viva import`",
            [Param("settle_minutes", "10.0", "a file unchanged this long is read once more")],
        ),
        (
            "state",
            "a member's state on entering a session",
            [
                Param(
                    "judge_threshold",
                    _toml(JUDGE_THRESHOLD),
                    "a less sure judgement stays unknown",
                ),
                Param("projects", '{ "~/src/shop" = "shop" }', "working folder -> project"),
                Param("activities", _toml(DEFAULT_ACTIVITIES)),  # harness -> activity
                Param("domains", '{ shop = "e-commerce" }', "project -> domain"),
            ],
        ),
        (
            "launch",
            "`viva launch`: the harness programs (default: on PATH)",
            [
                *(
                    Param(h, _toml(f"/usr/local/bin/{lay.executable}"))
                    for h, lay in LAYOUTS.items()
                ),
                Param("grant_ttl", '"12h"', "how long a launched session's grant lives at most"),
            ],
        ),
        ("roots", "where each harness writes its sessions", roots),
        (
            "redact",
            "your own secrets, beside the built-in rules",
            [
                Param("allow", '["pk_demo_0000"]', "values never redacted"),
                Param("allow_patterns", "['^acme-public-']", "Python regexes: a match is kept"),
                Param("rules", "", "[[redact.rules]] tables: name, regex, keywords"),
            ],
        ),
        (
            "prices",
            "`viva usage` costs, per model, per million tokens (no price: no cost shown)",
            [
                Param(
                    "claude-sonnet-4-5",
                    "{ input = 3.0, output = 15.0, cache_read = 0.3, cache_write = 3.75 }",
                    "an example: use your provider's prices",
                )
            ],
        ),
        (
            "keys",
            "the app's keys, by binding id (see the app's help)",
            [Param("triage.accept", '"a"', 'one key, or several: "a,ctrl+k"')],
        ),
    ]


def section_names() -> list[str]:
    """The sections the template documents."""
    return [name for name, _, _ in _sections()]


def config_template() -> str:
    """The text of a new ``config.toml``: every section and key, commented out."""
    parts = [HEADER]
    for name, heading, params in _sections():
        parts.append(f"\n# [{name}]  # {heading}\n")
        for p in params:
            if name == "redact" and p.key == "rules":
                parts.append(
                    "# [[redact.rules]]\n"
                    '# name = "acme-token"         # the marker reads [REDACTED:acme-token]\n'
                    "# regex = 'acme_[A-Za-z0-9]{32}'  # Python syntax; a group named "
                    '"secret" narrows it\n'
                    '# keywords = ["acme_"]        # one of them occurs in every match\n'
                )
                continue
            line = f"# {_key(p.key)} = {p.default}"
            parts.append(f"{line:<40}  # {p.note}\n" if p.note else line + "\n")
    return "".join(parts)


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else f'"{key}"'


def write_template(path: Path) -> None:
    """Write a new ``config.toml`` (0600: it may come to hold secrets' allow-lists)."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.write_text(config_template(), encoding="utf-8")
    path.chmod(0o600)
