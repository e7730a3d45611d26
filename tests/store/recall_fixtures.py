"""A small team history for the recall tests: real Claude Code files, the real importer.

deven has a session with a planted rare phrase; alice has one with a different
rare phrase; both share ordinary words with each other and with an
unattributed session, so scoping is what keeps them apart.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from tests.store_templates import Template, load_shipped_team, viva_now
from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.importing.pipeline import run_import
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.sessions.service import SessionFilter, list_sessions
from viva_store.store import Context
from viva_store.triage.classify import classify

PLANTED = "zanzibar quokka lanternfish"
ALICE_PHRASE = "marmalade gyroscope"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


def spec(
    native: str, cwd: str, start: datetime, *turns: Turn, title: str | None = None
) -> SessionSpec:
    return SessionSpec(
        native_id=native,
        cwd=cwd,
        start=start,
        turns=turns,
        model="claude-sonnet-4-5",
        title=title,
    )


def import_all(ctx: Context, root: Path) -> None:
    """Drain the importer over ``root`` (Claude Code layout)."""
    gen = run_import(ctx, ["claude-code"], {"claude-code": str(root)})
    while True:
        try:
            next(gen)
        except StopIteration:
            return


def session_of(ctx: Context, native: str) -> str:
    for s in list_sessions(ctx, SessionFilter(limit=None)):
        if s.native_id == native:
            return s.id
    raise AssertionError(native)


def build_history(ctx: Context, root: Path) -> dict[str, str]:
    """Write and import the team history; returns native id → Viva session id."""
    day = timedelta(days=1)
    specs = [
        spec(
            "d-planted",
            "/work/viva",
            NOW - 40 * day,
            Turn("Remember the idea about the cache?", f"Yes: the {PLANTED} approach to caching."),
            Turn("Write it down", "Done; the cache layer notes are in docs."),
            title="cache idea",
        ),
        spec(
            "d-recent",
            "/work/viva",
            NOW - 1 * day,
            Turn("Run the cache tests", "All cache tests pass."),
            title="cache tests",
        ),
        spec(
            "d-other-project",
            "/work/trader",
            NOW - 2 * day,
            Turn("Tune the cache of the trading feed", "The feed cache is tuned."),
            title="feed cache",
        ),
        spec(
            "a-private",
            "/work/viva",
            NOW - 3 * day,
            Turn("Check the cache", f"The {ALICE_PHRASE} cache check found nothing."),
            title="alice checks the cache",
        ),
        spec(
            "u-queue",
            "/tmp/scratch",
            NOW - 5 * day,
            Turn("cache question from a terminal", "An answer about the cache."),
        ),
    ]
    for s in specs:
        claude_code(root, s)
    import_all(ctx, root)
    ids = {s.native_id: session_of(ctx, s.native_id) for s in specs}
    classify(ctx, [ids["d-planted"], ids["d-recent"], ids["d-other-project"]], "deven")
    classify(ctx, [ids["a-private"]], "alice")
    return ids


def _team_and_history(ctx: Context, files: Path) -> dict[str, str]:
    load_shipped_team(ctx)
    with viva_now(NOW):
        return build_history(ctx, files / "claude")


RECALL_HISTORY = Template("recall-history", _team_and_history)
"""The shipped team, then :func:`build_history` on the clock at ``NOW`` (its harness
files in the template's own folder)."""


def as_member(ctx: Context, name: str) -> Context:
    return ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, name).token))
