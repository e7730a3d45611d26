"""What the demo team talks about: projects, prompts and replies per member.

Plain data, so the demo reads like a real fortnight of work and the triage
suggestions have something honest to learn from (projects, folders and words
differ by member, with some overlap).
"""

from __future__ import annotations

PROJECTS: dict[str, list[str]] = {
    "samuel": ["/home/haisu/work/roadmap", "/home/haisu/work/viva"],
    "deven": ["/home/haisu/src/viva", "/home/haisu/src/ledger-api"],
    "alice": ["/home/haisu/src/viva", "/home/haisu/src/ledger-api"],
    "oliver": ["/home/haisu/ops/infra", "/home/haisu/ops/backups"],
    "victor": ["/home/haisu/research/signals", "/home/haisu/research/backtests"],
}

HARNESSES: dict[str, list[str]] = {
    "samuel": ["claude-code"],
    "deven": ["codex", "claude-code"],
    "alice": ["claude-code", "gemini", "pi"],
    "oliver": ["pi", "codex"],
    "victor": ["claude-code", "pi"],
}

MODELS = {
    "claude-code": "claude-sonnet-4-5",
    "codex": "gpt-5-codex",
    "pi": "claude-sonnet-4-5",
    "gemini": "gemini-2.5-pro",
}

# (prompt, reply, skill read in the session or None)
WORK: dict[str, list[tuple[str, str, str | None]]] = {
    "samuel": [
        (
            "Draft next week's plan from the open issues and last week's report.",
            "Plan drafted: three themes, eight issues, owners proposed.",
            "weekly-planning",
        ),
        (
            "Turn the import bug reports into well-scoped issues with acceptance criteria.",
            "Filed four issues, each with a 'done when' list.",
            "writing-issues",
        ),
        (
            "Gather this week's principle candidates from the team's sessions.",
            "Five candidates gathered, two duplicates merged.",
            "principle-candidate-review",
        ),
        (
            "Summarise what Deven and Alice finished on the ledger API this week.",
            "Summary written; two items slipped to next week.",
            None,
        ),
        (
            "Hand over the roadmap notes before the weekend.",
            "Handoff note written with the open questions.",
            "session-handoff",
        ),
    ],
    "deven": [
        (
            "Fix the flaky test in test_importer that fails one run in twenty.",
            "Root cause: a shared temp dir; the test now uses tmp_path.",
            "debugging-flaky-tests",
        ),
        (
            "Refactor the session writer so inserts are batched per transaction.",
            "Batched with executemany; import is 4x faster on the fixture.",
            "python-refactoring",
        ),
        (
            "Add a migration for the execution table without editing old ones.",
            "Migration 0007 added; upgrade tested on a copy of the store.",
            "sqlite-migrations",
        ),
        (
            "Review Alice's pull request for the redaction property tests.",
            "Two comments: a bounded quantifier and a missing rule example.",
            "code-review",
        ),
        (
            "Why does viva start slowly? Profile the CLI start-up.",
            "Textual was imported eagerly; now lazy. Start-up 180 ms -> 70 ms.",
            "cli-startup-profiling",
        ),
        (
            "Implement pagination for the ledger API transactions endpoint.",
            "Cursor pagination added with tests for the last page.",
            None,
        ),
    ],
    "alice": [
        (
            "Write property tests for the redactor: planted secrets never survive.",
            "Hypothesis tests added; found one rule that missed escaped slashes.",
            "property-based-testing",
        ),
        (
            "Reproduce the ledger rounding bug with a failing test first.",
            "Failing test committed; Deven's fix turns it green.",
            "regression-test-first",
        ),
        (
            "Add snapshot tests for the triage pane with a frozen clock.",
            "Snapshots are stable across runs now.",
            "tui-snapshot-testing",
        ),
        (
            "Check that the append-only tables refuse UPDATE on PostgreSQL too.",
            "Both engines refuse UPDATE, DELETE and TRUNCATE.",
            "append-only-invariant-testing",
        ),
        (
            "Triage the test failures from last night's CI run.",
            "Two real failures, one infrastructure flake.",
            None,
        ),
    ],
    "oliver": [
        (
            "Run the monthly PostgreSQL backup restore drill.",
            "Restore took 6 minutes; checksums match.",
            "postgres-backup-restore",
        ),
        (
            "The disk usage alert fired on the build host; investigate.",
            "Old Docker layers; pruned 41 GB and added a weekly job.",
            "incident-triage",
        ),
        (
            "Find out why the nightly job logs show timeouts since Tuesday.",
            "DNS resolver change; pinned the resolver.",
            "log-investigation",
        ),
        (
            "Prepare the release checklist for ledger-api 2.3.",
            "Checklist done; rollback plan rehearsed.",
            "release-checklist",
        ),
        (
            "Audit the shared transcripts for leaked credentials.",
            "No live keys found; two stale test tokens rotated anyway.",
            "secret-redaction-audit",
        ),
    ],
    "victor": [
        (
            "Backtest the momentum signal on 2024 data with a proper holdout.",
            "Sharpe 0.9 in-sample, 0.4 out-of-sample; not convincing yet.",
            "backtest-hygiene",
        ),
        (
            "Validate the new minute-bar feed against the exchange's daily closes.",
            "Three gaps found on half-days; flagged to the vendor.",
            "market-data-validation",
        ),
        (
            "Size positions for the paper portfolio with a 1% risk budget.",
            "Sizes computed; largest position 4.2% of equity.",
            "risk-position-sizing",
        ),
        (
            "Review last week's paper trades against the plan.",
            "Two trades broke the plan's stop rule; noted.",
            "paper-trading-review",
        ),
        (
            "Look for a seasonality effect in the signal's returns.",
            "No effect beyond noise at 5%.",
            None,
        ),
    ],
}

OUTSIDE_PROMPTS = [
    "quick question: how do I squash the last three commits?",
    "what does this stack trace mean",
    "help me write a regex for ISO dates",
    "summarise this article about WAL mode",
]
