"""Deciding a member's engagement state at a session's entry (DESIGN §6), as pure functions.

Precedence, per field (domain, project, counterpart, activity):

1. an explicit setting (by the member or the owner) wins and stays until it
   is cleared — automatic decisions never overwrite it;
2. otherwise the entry rules from ``[state]`` in ``config.toml``:
   ``[state.projects]`` maps a cwd prefix to a project, ``[state.activities]``
   a harness to an activity, ``[state.domains]`` a project to a domain;
3. otherwise a :class:`Judge` — any object with a ``judge`` method returning
   typed :class:`Decision` values with a confidence (the shipped one is
   :class:`RuleJudge`, local keyword rules; a model-backed judge fits the same
   protocol). A decision below ``judge_threshold`` leaves the field unknown
   for the owner to settle.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from viva_store.errors import InvalidInput

FIELDS = ("domain", "project", "counterpart", "activity")
EXPLICIT = ("explicit", "correction")
AUTOMATIC = ("rule", "judge")
JUDGE_THRESHOLD = 0.7
DEFAULT_ACTIVITIES = {
    "claude-code": "development",
    "codex": "development",
    "opencode": "development",
    "pi": "development",
    "gemini": "development",
    "hermes": "conversation",
}


@dataclass(frozen=True, slots=True)
class Observation:
    """What is known when a member's session starts."""

    member: str
    cwd: str | None = None
    harness: str | None = None
    task: str = ""

    def to_json(self) -> dict[str, Any]:
        return {"cwd": self.cwd, "harness": self.harness, "task": self.task[:500]}


@dataclass(frozen=True, slots=True)
class Decision:
    """A proposed value for one field; ``value`` ``None`` means "unknown"."""

    field: str
    value: str | None
    confidence: float
    source: str  # rule | judge
    reason: str


class Judge(Protocol):
    """Anything that can propose values for the fields no rule decided."""

    name: str

    def judge(self, observation: Observation, fields: Sequence[str]) -> list[Decision]:
        """One decision per field it has an opinion on (confidence 0..1)."""
        ...


def _home() -> str:
    return os.path.expanduser("~")


def _norm_path(path: str) -> str:
    return os.path.normpath(os.path.expanduser(path))


@dataclass(frozen=True, slots=True)
class EntryRules:
    """The configured entry rules; deterministic, so their confidence is 1."""

    projects: tuple[tuple[str, str], ...] = ()  # (cwd prefix, project), longest first
    activities: tuple[tuple[str, str], ...] = tuple(DEFAULT_ACTIVITIES.items())
    domains: tuple[tuple[str, str], ...] = ()  # (project, domain)
    threshold: float = JUDGE_THRESHOLD

    @classmethod
    def from_config(cls, section: Mapping[str, Any]) -> EntryRules:
        """Read ``[state]``; bad shapes are :class:`InvalidInput`."""

        def table(name: str, default: Mapping[str, str]) -> dict[str, str]:
            value = section.get(name, default)
            if not isinstance(value, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in value.items()
            ):
                raise InvalidInput(f"[state.{name}] must map names to strings")
            return dict(value)

        threshold = section.get("judge_threshold", JUDGE_THRESHOLD)
        if isinstance(threshold, bool) or not isinstance(threshold, int | float):
            raise InvalidInput("[state] judge_threshold must be a number between 0 and 1")
        if not 0 <= threshold <= 1:
            raise InvalidInput("[state] judge_threshold must be between 0 and 1")
        projects = {_norm_path(k): v for k, v in table("projects", {}).items()}
        return cls(
            projects=tuple(sorted(projects.items(), key=lambda kv: -len(kv[0]))),
            activities=tuple(table("activities", DEFAULT_ACTIVITIES).items()),
            domains=tuple(table("domains", {}).items()),
            threshold=float(threshold),
        )

    def project_of(self, cwd: str) -> str | None:
        """The project a cwd belongs to by the configured prefixes."""
        path = _norm_path(cwd)
        for prefix, project in self.projects:
            if path == prefix or path.startswith(prefix.rstrip(os.sep) + os.sep):
                return project
        return None

    def prefixes_of(self, project: str) -> tuple[str, ...]:
        """The configured cwd prefixes of ``project`` (to find its sessions)."""
        return tuple(prefix for prefix, name in self.projects if name == project)

    def decide(self, obs: Observation, project_now: str | None) -> list[Decision]:
        """What the rules say about ``obs``; ``project_now`` feeds the domain rule."""
        out: list[Decision] = []
        project = self.project_of(obs.cwd) if obs.cwd else None
        if project is not None:
            out.append(Decision("project", project, 1.0, "rule", f"cwd {obs.cwd} is in {project}"))
        activity = dict(self.activities).get(obs.harness or "")
        if activity is not None:
            out.append(
                Decision("activity", activity, 1.0, "rule", f"harness {obs.harness} → {activity}")
            )
        domain = dict(self.domains).get(project or project_now or "")
        if domain is not None:
            out.append(Decision("domain", domain, 1.0, "rule", f"project {project or project_now}"))
        return out


_ACTIVITY_WORDS = (
    (r"\b(test|tests|testing|qa|regression)\b", "testing"),
    (r"\b(review|reviewing)\b", "review"),
    (r"\b(deploy|deployment|release|incident|outage|on-?call)\b", "operations"),
    (r"\b(debug|debugging|bug|fix|crash)\b", "debugging"),
    (r"\b(plan|planning|roadmap|design)\b", "planning"),
    (r"\b(trade|trading|backtest|portfolio)\b", "trading"),
    (r"\b(research|investigate|analy[sz]e)\b", "research"),
)
_PERSONAL = r"\b(personal|family|travel|health|holiday|vacation|birthday)\b"


class RuleJudge:
    """The shipped judge: local keyword and path heuristics, no model.

    Confidences are fixed per rule (heuristic, not calibrated against data):
    0.8 for a keyword in the task, 0.75 for a project named after a working
    directory, 0.5 when it only guesses — below the default threshold, so the
    field stays unknown.
    """

    name = "rules"

    def __init__(self, members: Sequence[str] = ()) -> None:
        self.members = tuple(members)

    def judge(self, observation: Observation, fields: Sequence[str]) -> list[Decision]:
        """Decisions for ``fields`` from the task text, the cwd and the harness."""
        task = observation.task.lower()
        out: list[Decision] = []
        if "project" in fields and observation.cwd:
            path = _norm_path(observation.cwd)
            name = os.path.basename(path)
            generic = path in (os.sep, _home(), "/tmp") or not name
            confidence = 0.3 if generic else 0.75
            out.append(Decision("project", name or None, confidence, "judge", f"cwd {path}"))
        if "activity" in fields:
            for pattern, activity in _ACTIVITY_WORDS:
                if re.search(pattern, task):
                    out.append(Decision("activity", activity, 0.8, "judge", "task mentions it"))
                    break
        if "domain" in fields:
            if re.search(_PERSONAL, task):
                out.append(Decision("domain", "personal", 0.8, "judge", "task reads personal"))
            elif observation.harness in DEFAULT_ACTIVITIES and observation.cwd:
                out.append(Decision("domain", "work", 0.75, "judge", "agent harness in a folder"))
            else:
                out.append(Decision("domain", "work", 0.5, "judge", "a guess"))
        if "counterpart" in fields:
            named = [m for m in self.members if re.search(rf"\b{re.escape(m)}\b", task)]
            named = [m for m in named if m != observation.member]
            if len(named) == 1:
                out.append(Decision("counterpart", named[0], 0.8, "judge", "task names them"))
        return out


def resolve(
    obs: Observation,
    rules: EntryRules,
    judge: Judge,
    pinned: Sequence[str],
    project_now: str | None = None,
) -> list[Decision]:
    """One decision per field that is not pinned by an explicit setting.

    A rule wins; else the judge's most confident decision at or above the
    threshold; else ``value=None`` (unknown), keeping the judge's confidence.
    """
    open_fields = [f for f in FIELDS if f not in pinned]
    decided = {d.field: d for d in rules.decide(obs, project_now) if d.field in open_fields}
    rest = [f for f in open_fields if f not in decided]
    best: dict[str, Decision] = {}
    for d in judge.judge(obs, rest) if rest else []:
        if d.field in rest and (d.field not in best or d.confidence > best[d.field].confidence):
            best[d.field] = d
    for name in rest:
        guess = best.get(name)
        if guess is not None and guess.confidence >= rules.threshold and guess.value:
            decided[name] = guess
        else:
            confidence = guess.confidence if guess is not None else 0.0
            why = guess.reason if guess is not None else "no rule and no judgement"
            decided[name] = Decision(
                name, None, confidence, "judge", f"below {rules.threshold:.2f}: {why}"
            )
    return [decided[f] for f in FIELDS if f in decided]
