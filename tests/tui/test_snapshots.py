"""Snapshots of every pane on the demo store (160×48, clock frozen, times in UTC).

Regenerate after an intended change with ``pytest tests/tui/test_snapshots.py
--snapshot-update`` and look at the report before committing the SVGs.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from textual.pilot import Pilot

from viva_store.store import Context
from viva_tui.app import VivaApp
from viva_tui.widgets.principles_pane import PrinciplesPane

from .conftest import SIZE, TEXT_V3
from .helpers import settle
from .test_principles import highlight

Snap = Callable[..., bool]


def steps(
    *keys: str, member: str | None = None, theme: str | None = None
) -> Callable[[Pilot[None]], Awaitable[None]]:
    """Wait for the store, optionally pick a member and theme, press ``keys``, wait again."""

    async def run(pilot: Pilot[None]) -> None:
        await settle(pilot)
        screen: Any = pilot.app.screen_stack[0]
        if member:
            screen.choose_member(member, announce=False)
        if theme:
            pilot.app.theme = theme
            await settle(pilot)  # the stylesheet and the plot follow the theme first
        for key in keys:
            await pilot.press(key)
            await settle(pilot)

    return run


class TestPanes:
    """Each pane as the owner first sees it."""

    def test_members(self, app: VivaApp, snap_compare: Snap) -> None:
        """The roster with counts (sessions, skills, principles, last active); samuel's
        soul.md rendered below; the sidebar lists the five panes with their keys."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps())

    def test_triage(self, app: VivaApp, snap_compare: Snap) -> None:
        """The unattributed queue newest first with suggestions and their confidence; the
        preview shows the first session with roles styled and tool calls folded; the status
        line names the key of each member."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("2"))

    def test_timeline(self, app: VivaApp, snap_compare: Snap) -> None:
        """Deven's sessions grouped by day with his skill events and principle decisions
        between them; the preview shows the highlighted session."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("3", member="deven"))

    def test_skills(self, app: VivaApp, snap_compare: Snap) -> None:
        """Deven's skill set (status, weight, track, last used, uses, trend) and the decay
        curve of the first skill: history, projection, the 0.1 line, uses marked."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("4", member="deven"))

    def test_principles_queue(self, app: VivaApp, snap_compare: Snap) -> None:
        """Candidates by ISO week (one deferred); the first one's text, proposer,
        rationale, evidence, and its difference from the version in force."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("5"))

    def test_principles_diff(self, app: VivaApp, snap_compare: Snap) -> None:
        """A candidate that would replace deven's version in force: removed words struck,
        added words in bold."""

        async def run(pilot: Pilot[None]) -> None:
            await steps("5")(pilot)
            highlight(pilot.app.screen.query_one(PrinciplesPane), TEXT_V3)
            await settle(pilot)

        assert snap_compare(app, terminal_size=SIZE, run_before=run)

    def test_principles_history(self, app: VivaApp, snap_compare: Snap) -> None:
        """Every proposal and decision, newest first; deven's v2 marked in force."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("5", "h"))


class TestDialogs:
    """What opens over the panes."""

    def test_help(self, app: VivaApp, snap_compare: Snap) -> None:
        """F1 on Triage: what the pane is for, then its keys with their binding ids."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("2", "f1"))

    def test_transcript(self, app: VivaApp, snap_compare: Snap) -> None:
        """Enter on a queued session: the whole redacted transcript, tool calls folded."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("2", "enter"))

    def test_usage(self, app: VivaApp, snap_compare: Snap) -> None:
        """ctrl+u: the last 30 days' tokens as bars in the theme's primary colour, and the
        table by project (sessions, each kind of token, no cost: no [prices])."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("ctrl+u"))

    def test_search_everything(self, app: VivaApp, snap_compare: Snap) -> None:
        """/ then a word: every session's best hit, unattributed ones too, with provenance
        and the match highlighted."""
        assert snap_compare(
            app, terminal_size=SIZE, run_before=steps("slash", *"WAL", "enter", "down")
        )

    def test_reject_needs_a_reason(self, app: VivaApp, snap_compare: Snap) -> None:
        """r on a candidate: the reason box (rejecting without one is refused)."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("5", "r"))


class TestThemes:
    """The semantic colours follow the theme."""

    def test_light_triage(self, app: VivaApp, snap_compare: Snap) -> None:
        """Triage in viva-light."""
        assert snap_compare(app, terminal_size=SIZE, run_before=steps("2", theme="viva-light"))

    def test_high_contrast_skills(self, app: VivaApp, snap_compare: Snap) -> None:
        """The decay plot in viva-high-contrast: curve, projection and 0.1 line recoloured."""
        run = steps("4", member="deven", theme="viva-high-contrast")
        assert snap_compare(app, terminal_size=SIZE, run_before=run)

    def test_timeline_cursor_on_a_skill_event(self, app: VivaApp, snap_compare: Snap) -> None:
        """The cursor on a skill event of deven's timeline: the row's colour stays
        readable on the dim cursor (it used to vanish, drawn in the cursor's own colour)."""
        run = steps("3", *["down"] * 3, member="deven")
        assert snap_compare(app, terminal_size=SIZE, run_before=run)


class TestNarrow:
    """At 80×24 the sidebar keeps the pane keys; Triage keeps title and suggestion."""

    def test_narrow_triage(self, app: VivaApp, snap_compare: Snap) -> None:
        """The start, title and suggestion columns; the slim sidebar with its badges."""
        assert snap_compare(app, terminal_size=(80, 24), run_before=steps("2"))

    def test_narrow_members(self, app: VivaApp, snap_compare: Snap) -> None:
        """The roster at 80×24: the counts in view, the engine and harnesses scrolled."""
        assert snap_compare(app, terminal_size=(80, 24), run_before=steps())

    def test_narrow_skills(self, app: VivaApp, snap_compare: Snap) -> None:
        """Skills at 80×24: the table across the pane (weight, track, last used), the
        decay curve under it."""
        run = steps("4", member="deven")
        assert snap_compare(app, terminal_size=(80, 24), run_before=run)


def test_snapshot_store_is_the_demo(demo_ctx: Context) -> None:
    """The snapshots above are of a store the demo built (guards against an empty one)."""
    from viva_store.sessions.service import SessionFilter, list_sessions

    assert list_sessions(demo_ctx, SessionFilter(status="unattributed", limit=1))
