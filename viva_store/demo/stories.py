"""What each demo member works on: tasks drawn from its own subjects, and follow-ups.

Five weeks of a real team's sessions rarely repeat a title: the same kind of task comes
back about a different module, feed, host or issue. Each task template names the skill
it would read; follow-ups are what people type next in such a session.
"""

from __future__ import annotations

import random

Task = tuple[str, str, str | None]
"""``(prompt, reply, skill read in the session or None)``."""

SHARED = {
    "samuel": ["the redactor", "the ledger API pagination", "the nightly backup job"],
    "deven": ["the triage pane", "the redactor", "the import watcher", "the staging database"],
    "alice": ["the session writer", "the Codex reader", "the migration runner"],
    "oliver": ["the migration runner", "the CLI start-up", "the minute-bar feed"],
    "victor": ["the usage counters", "the weekly report"],
}
"""Subjects a member shares with teammates (work overlaps; suggestions must weigh it)."""
SUBJECTS: dict[str, list[str]] = {
    "samuel": [
        "the import milestone",
        "the ledger API 2.3 release",
        "the triage queue backlog",
        "the skills decay work",
        "the PostgreSQL support",
        "the onboarding docs",
        "the recall search",
        "the weekly report",
        "the harness readers",
        "the CI budget",
    ],
    "deven": [
        "the session writer",
        "the Codex reader",
        "the attribution rebuild",
        "the ledger API pagination",
        "the transactions endpoint",
        "the recall index",
        "the config loader",
        "the migration runner",
        "the CLI start-up",
        "the usage counters",
        "the import progress events",
        "the OpenCode reader",
    ],
    "alice": [
        "the redactor",
        "the triage pane",
        "the ledger rounding",
        "the skill decay curve",
        "the Gemini reader",
        "the append-only guards",
        "the import watcher",
        "the principles queue",
        "the recall ranking",
        "the timeline pane",
        "the ledger currency conversion",
    ],
    "oliver": [
        "the build host",
        "the nightly backup job",
        "the staging database",
        "the nginx front end",
        "the DNS resolver",
        "the log shipper",
        "the metrics disk",
        "the ledger-api 2.3 rollout",
        "the certificate renewal",
        "the CI runners",
    ],
    "victor": [
        "the momentum signal",
        "the mean-reversion signal",
        "the minute-bar feed",
        "the paper portfolio",
        "the volatility filter",
        "the FX carry basket",
        "the earnings-drift signal",
        "the options skew data",
        "the execution cost model",
    ],
}

TASKS: dict[str, list[Task]] = {
    "samuel": [
        (
            "Draft next week's plan for {s}.",
            "Plan drafted: {n} issues, owners proposed.",
            "weekly-planning",
        ),
        (
            "Turn the open reports about {s} into well-scoped issues.",
            "Filed {n} issues, each with a 'done when' list.",
            "writing-issues",
        ),
        (
            "Summarise where {s} stands for the Friday notes.",
            "Summary written; {n} items slipped to next week.",
            None,
        ),
        (
            "Hand over the notes on {s} before the weekend.",
            "Handoff note written with the open questions.",
            "session-handoff",
        ),
        (
            "Split {s} into pieces a member can finish in a day.",
            "{n} pieces, each with an owner and a test.",
            "writing-issues",
        ),
    ],
    "deven": [
        (
            "Refactor {s} so it is easier to test.",
            "Split into {n} functions; behaviour unchanged.",
            "python-refactoring",
        ),
        (
            "Fix the bug in {s} that Alice's failing test shows.",
            "Off-by-one at the page boundary; her test is green now.",
            None,
        ),
        (
            "Add a migration for {s} without editing old ones.",
            "Migration added; upgrade tested on a copy of the store.",
            "sqlite-migrations",
        ),
        (
            "Profile {s}; it got slower this week.",
            "An eager import; {n} ms faster now.",
            "cli-startup-profiling",
        ),
        (
            "Review the pull request that changes {s}.",
            "{n} comments: one real bug, the rest naming.",
            "code-review",
        ),
        (
            "Find out why the test for {s} fails one run in twenty.",
            "A shared temp dir; the test uses tmp_path now.",
            "debugging-flaky-tests",
        ),
    ],
    "alice": [
        (
            "Write property tests for {s}.",
            "Hypothesis found {n} cases the examples missed.",
            "property-based-testing",
        ),
        (
            "Reproduce the reported bug in {s} with a failing test first.",
            "Failing test committed; handed to Deven.",
            "regression-test-first",
        ),
        (
            "Add snapshot tests for {s} with a frozen clock.",
            "Snapshots stable across runs.",
            "tui-snapshot-testing",
        ),
        (
            "Check that {s} keeps the append-only rules on PostgreSQL too.",
            "Both engines refuse UPDATE and DELETE.",
            "append-only-invariant-testing",
        ),
        (
            "Triage last night's CI failures around {s}.",
            "{n} real failures, one infrastructure flake.",
            None,
        ),
        (
            "Review the test coverage of {s}.",
            "Coverage {n}%; the error paths were missing.",
            "code-review",
        ),
    ],
    "oliver": [
        (
            "Run the restore drill for {s}.",
            "Restore took {n} minutes; checksums match.",
            "postgres-backup-restore",
        ),
        (
            "The alert on {s} fired overnight; investigate.",
            "Disk filled by old layers; pruned and scheduled.",
            "incident-triage",
        ),
        (
            "Read the logs of {s}; timeouts since Tuesday.",
            "A resolver change; pinned it and the timeouts stopped.",
            "log-investigation",
        ),
        (
            "Prepare the release checklist for {s}.",
            "Checklist done; rollback rehearsed.",
            "release-checklist",
        ),
        (
            "Audit {s} for leaked credentials.",
            "No live keys; {n} stale test tokens rotated.",
            "secret-redaction-audit",
        ),
    ],
    "victor": [
        (
            "Backtest {s} on 2024 data with a proper holdout.",
            "Sharpe 0.{n} out-of-sample; not convincing yet.",
            "backtest-hygiene",
        ),
        (
            "Validate {s} against the exchange's daily closes.",
            "{n} gaps on half-days; flagged to the vendor.",
            "market-data-validation",
        ),
        (
            "Size positions for {s} with a 1% risk budget.",
            "Largest position {n}% of equity.",
            "risk-position-sizing",
        ),
        (
            "Review last week's paper trades of {s}.",
            "{n} trades broke the stop rule; noted.",
            "paper-trading-review",
        ),
        ("Look for a seasonality effect in {s}.", "No effect beyond noise at 5%.", None),
    ],
}

FOLLOW_UPS: dict[str, list[tuple[str, str]]] = {
    "samuel": [
        ("Who is free to take the second issue?", "Alice has the fewest open items."),
        ("Keep it to one page.", "Trimmed to one page; details linked."),
        ("Add a risk section.", "Two risks added, each with an owner."),
    ],
    "deven": [
        ("Run the whole test suite.", "All {n} tests pass."),
        ("Any type errors left?", "mypy --strict is clean."),
        ("Also run ruff.", "Two unused imports removed; clean now."),
        ("Write the commit message.", "Committed with a message that says why."),
    ],
    "alice": [
        ("Does it fail without the fix?", "Yes: it fails on main and passes on the branch."),
        ("Shrink the failing example.", "Shrunk to a two-row input."),
        ("Run it a hundred times.", "{n}0 runs, no failure."),
    ],
    "oliver": [
        ("Add it to the runbook.", "Runbook updated with the commands used."),
        ("Is the alert threshold right?", "Raised to 85%; it fired at 80% on backups."),
        ("Check the other hosts too.", "{n} hosts checked; only the build host was affected."),
    ],
    "victor": [
        ("Plot the equity curve.", "Plotted; the drawdown is in March."),
        ("What about transaction costs?", "At 2 bp per trade the edge halves."),
        ("Save the seed with the report.", "Seed and data version saved in the report."),
    ],
}

AD_HOC = [
    ("Why is the build red?", "A fixture path changed; fixed and pushed."),
    ("What changed here since Friday?", "Four commits: two fixes, a refactor, a docs change."),
    ("This test is slow, why?", "It rebuilds the store per case; now once per module."),
    ("Clean up the warnings in this folder.", "Seven warnings fixed; none left."),
    ("Explain this function to me.", "It batches rows per transaction and retries when busy."),
    ("Update the README for the change I just made.", "README section updated."),
]
"""Work sessions that name no subject (started by hand in a project folder)."""

OUTSIDE_PROMPTS = [
    "quick question: how do I squash the last three commits?",
    "what does this stack trace mean",
    "help me write a regex for ISO dates",
    "summarise this article about WAL mode",
    "convert this CSV to JSON lines",
    "explain this nginx config line",
]
"""Sessions about nothing of the team's (the owner marks some nobody's)."""


def task(rng: random.Random, member: str) -> Task:
    """One of ``member``'s tasks, about one of its subjects."""
    prompt, reply, skill = rng.choice(TASKS[member])
    subject = rng.choice(SUBJECTS[member] + SHARED[member])
    n = str(rng.randint(2, 9))
    return prompt.format(s=subject), reply.format(s=subject, n=n), skill


def follow_ups(rng: random.Random, member: str, count: int) -> list[tuple[str, str]]:
    """``count`` different follow-up exchanges of the kind ``member`` has."""
    chosen = rng.sample(FOLLOW_UPS[member], min(count, len(FOLLOW_UPS[member])))
    return [(user, reply.format(n=rng.randint(2, 9))) for user, reply in chosen]
