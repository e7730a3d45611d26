"""Pane 5: the owner's approval queue by week, and the decision history with rollback."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from viva_tui import keys
from viva_tui.views import PrinciplesData
from viva_tui.widgets.diff import word_diff
from viva_tui.widgets.format import clip, plural, when
from viva_tui.widgets.pane import Pane, titled
from viva_tui.widgets.tables import RowList

ROLLBACK_FROM = ("approved", "rolled_back")


class PrinciplesPane(Pane):
    """Candidates waiting for the owner, grouped by ISO week; or every decision event."""

    DEFAULT_CSS = """
    #principles-body { height: 1fr; }
    #principles-list { width: 2fr; height: 1fr; }
    #principles-detail { width: 3fr; border-left: tall $panel; padding: 0 1; }
    """

    PANE_ID = "principles"
    TITLE = "Principles"
    BINDINGS: ClassVar[list[BindingType]] = [*keys.PRINCIPLES]
    HELP_TEXT = """\
Principles are member-level norms. Members and the coordinator propose them; only you
approve. Nothing is ever promoted automatically, and every decision is an event that
can be rolled back (nothing is deleted).

* The **queue** lists candidates by ISO week. The right side shows the text, who
  proposed it, the rationale, the evidence (**o** opens a cited session) and the
  **difference from the member's version in force** (struck: removed, bold: added).
* **a** approves, **e** lets you edit the wording and then approve, **r** rejects (a
  reason is required), **d** defers. Every decision asks for confirmation first.
* A candidate marked **stale** was proposed against a version that has changed since;
  the store refuses to approve it until it is proposed again.
* **h** switches to the **history**: every proposal and decision, newest first. On an
  approved version that is not in force, **b** rolls back to it (a new event).
"""

    class LoadRequested(Message):
        """The queue, the history and what is in force."""

    @dataclass(eq=False, repr=False)
    class DecisionRequested(Message):
        """The owner pressed a decision key; the screen confirms, then stores it.

        ``action``: approve | edit | reject | defer | rollback. ``ref`` is the candidate id
        (the principle id for a rollback); ``text`` what the owner reads in the question.
        """

        action: str
        ref: str
        member: str
        text: str
        version: int = 0

    @dataclass(eq=False, repr=False)
    class EvidenceRequested(Message):
        """Open one of the sessions a candidate cites."""

        refs: tuple[str, ...]

    history_mode: var[bool] = var(False, init=False)
    """Whether the list shows every decision event instead of the queue."""

    def __init__(self) -> None:
        super().__init__()
        self.data: PrinciplesData | None = None
        self._items: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        yield Static("", id="principles-banner", classes="status")
        with Horizontal(id="principles-body"):
            yield titled(RowList(id="principles-list"), "Candidates")
            with VerticalScroll(id="principles-detail"):
                yield Static("Loading the queue…", id="principles-text")

    def request_data(self) -> None:
        self.ask(self.LoadRequested())

    def focus_main(self) -> None:
        self.query_one(RowList).focus()

    # Showing -----------------------------------------------------------------------------

    def show_data(self, data: PrinciplesData) -> None:
        """Fill the list from fresh data, keeping the highlighted entry when it survives."""
        self.data = data
        waiting = len(data.open)
        banner = (
            Content.styled(
                f"{plural(waiting, 'candidate')} waiting for you", "bold $approval-needed"
            )
            if waiting
            else Content.styled("No candidates wait for a decision.", "$text-muted")
        )
        mode = "history (h: queue)" if self.history_mode else "queue (h: history)"
        self.query_one("#principles-banner", Static).update(
            banner + Content.styled(f"   showing the {mode}", "$text-muted")
        )
        self._fill()

    def _fill(self) -> None:
        if self.data is None:
            return
        self._items = {}
        options = self._history_options() if self.history_mode else self._queue_options()
        if not self.query_one(RowList).refill(options):
            empty = (
                "No decisions yet."
                if self.history_mode
                else "The queue is empty: nothing waits for your approval."
            )
            self.query_one("#principles-text", Static).update(Content.styled(empty, "$text-muted"))

    def _queue_options(self) -> list[Option]:
        assert self.data is not None
        options: list[Option] = []
        week = None
        for c in self.data.open:
            if c.week != week:
                week = c.week
                count = sum(1 for x in self.data.open if x.week == week)
                options.append(
                    Option(Content.styled(f"{week} · {count} waiting", "bold"), disabled=True)
                )
            flag = " stale" if c.stale else (" deferred" if c.status == "deferred" else "")
            options.append(
                Option(
                    Content.assemble(
                        (f"  {c.member:<8} ", "bold $approval-needed"),
                        clip(c.text, 34),
                        (flag, "italic $warning"),
                    ),
                    id=c.id,
                )
            )
            self._items[c.id] = c
        return options

    def _history_options(self) -> list[Option]:
        assert self.data is not None
        options: list[Option] = []
        for ev in sorted(self.data.history, key=lambda e: e.id, reverse=True):
            key = f"ev:{ev.id}"
            version = f" v{ev.version}" if ev.version is not None else ""
            active = (
                self.data.active.get(ev.principle_id) == ev.version and ev.action in ROLLBACK_FROM
            )
            options.append(
                Option(
                    Content.assemble(
                        (f"{when(ev.at)} ", "$text-muted"),
                        (f"{ev.member:<8} ", "bold"),
                        f"{ev.action}{version}",
                        (" (in force)" if active else "", "$success"),
                    ),
                    id=key,
                )
            )
            self._items[key] = ev
        return options

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        item = self._items.get(event.option.id or "")
        if item is None:
            return
        detail = self._event_detail(item) if self.history_mode else self._candidate_detail(item)
        self.query_one("#principles-text", Static).update(detail)

    def _candidate_detail(self, c: Any) -> Content:
        parts = [
            Content.assemble(
                ("Candidate for ", "bold"),
                (c.member, "bold $approval-needed"),
                (f" · proposed by {c.proposed_by} · week {c.week} · {c.status}", "$text-muted"),
            ),
        ]
        if c.stale:
            parts.append(
                Content.styled(
                    "\nStale: the version in force changed since this was proposed; "
                    "approval will be refused until it is proposed again.",
                    "bold $warning",
                )
            )
        parts += [Content.styled("\n\nText\n", "bold"), Content(c.text)]
        if c.active_version is not None and c.active_text:
            parts.append(
                Content.styled(f"\n\nChange from version {c.active_version} in force\n", "bold")
            )
            parts.append(word_diff(c.active_text, c.text))
        else:
            parts.append(
                Content.styled("\n\nNew: no version of this principle is in force", "bold")
            )
        parts += [Content.styled("\n\nRationale\n", "bold"), Content(c.rationale or "—")]
        evidence = ", ".join(c.evidence) if c.evidence else "none cited"
        parts += [
            Content.styled("\n\nEvidence", "bold"),
            Content.styled(" (o opens)\n", "$text-muted"),
        ]
        parts.append(Content(evidence))
        if c.merged:
            parts.append(
                Content.styled(f"\n\nMerged duplicates: {', '.join(c.merged)}", "$text-muted")
            )
        return Content("").join(parts)

    def _event_detail(self, ev: Any) -> Content:
        assert self.data is not None
        version = ev.version if ev.version is not None else None
        text = ev.text or (self.data.wording.get((ev.principle_id, version)) if version else None)
        active = self.data.active.get(ev.principle_id)
        parts = [
            Content.assemble(
                (f"{ev.action}", "bold"),
                (f" v{version}" if version else "", "bold"),
                (f" · {ev.member} · by {ev.actor} · {when(ev.at)}", "$text-muted"),
            ),
            Content.styled(
                f"\nversion in force: {f'v{active}' if active else 'none'}", "$text-muted"
            ),
        ]
        if text:
            parts += [Content.styled("\n\nText\n", "bold"), Content(text)]
        if ev.reason:
            parts += [Content.styled("\n\nReason\n", "bold"), Content(ev.reason)]
        if ev.action in ROLLBACK_FROM and version and active != version:
            parts.append(Content.styled("\n\nb rolls back to this version", "$accent"))
        return Content("").join(parts)

    # Requests ----------------------------------------------------------------------------

    def _current(self) -> Any | None:
        option = self.query_one(RowList).highlighted_option
        return self._items.get(option.id or "") if option else None

    def _decide(self, action: str) -> None:
        if self.history_mode:
            self.notify("Decisions are made in the queue (h switches back).", severity="warning")
            return
        c = self._current()
        if c is not None:
            self.ask(self.DecisionRequested(action, c.id, c.member, c.text))

    def action_approve(self) -> None:
        self._decide("approve")

    def action_edit(self) -> None:
        self._decide("edit")

    def action_reject(self) -> None:
        self._decide("reject")

    def action_defer(self) -> None:
        self._decide("defer")

    def action_toggle_history(self) -> None:
        self.history_mode = not self.history_mode

    def watch_history_mode(self) -> None:
        # The list's title says what it holds (it said "Candidates" over the history).
        self.query_one(RowList).border_title = "History" if self.history_mode else "Candidates"
        if self.data is not None:
            self.show_data(self.data)

    def action_rollback(self) -> None:
        ev = self._current()
        if not self.history_mode or ev is None or self.data is None:
            self.notify("Roll back from the history (h), on an approved version.")
            return
        if ev.action not in ROLLBACK_FROM or not ev.version:
            self.notify("Only an approved version can be rolled back to.", severity="warning")
            return
        if self.data.active.get(ev.principle_id) == ev.version:
            self.notify(f"Version {ev.version} is already in force.")
            return
        text = ev.text or self.data.wording.get((ev.principle_id, ev.version), "")
        self.ask(self.DecisionRequested("rollback", ev.principle_id, ev.member, text, ev.version))

    def action_evidence(self) -> None:
        c = self._current()
        if self.history_mode or c is None:
            return
        if not c.evidence:
            self.notify("This candidate cites no evidence.")
            return
        self.ask(self.EvidenceRequested(tuple(c.evidence)))
