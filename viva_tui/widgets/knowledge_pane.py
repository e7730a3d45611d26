"""Pane 6: knowledge — the gate's candidates, admitted items by kind, the review queue."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.content import Content
from textual.message import Message
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from viva_tui import keys
from viva_tui.views import KnowledgeData
from viva_tui.widgets.format import clip, plural, when
from viva_tui.widgets.pane import Pane, titled
from viva_tui.widgets.tables import RowList

KIND_TITLES = {
    "personal_memory": "Personal memory",
    "self_model_candidate": "Self-model hypotheses",
    "project_knowledge": "Project knowledge",
    "team_knowledge": "Team knowledge",
    "skill": "Skills",
}


class KnowledgePane(Pane):
    """Candidates waiting at the gate, admitted items grouped by kind, the review queue."""

    DEFAULT_CSS = """
    #knowledge-body { height: 1fr; }
    #knowledge-list { width: 2fr; height: 1fr; }
    #knowledge-detail { width: 3fr; border-left: tall $panel; padding: 0 1; }
    """

    PANE_ID = "knowledge"
    TITLE = "Knowledge"
    BINDINGS: ClassVar[list[BindingType]] = [*keys.KNOWLEDGE]
    HELP_TEXT = """\
Knowledge is what was worth keeping from experience, each item with where it came from.
A candidate reaches a task only once admitted; nothing is admitted by itself.

* **At the gate**: each candidate names its reason (it recurred, it surprised, you
  emphasised it, or it is costly to re-derive) and its evidence; **o** opens a cited
  session. A candidate flagged as a live status (an issue, a PR, a task, a grant) is
  admitted only with a reason. **a** admits, **x** declines (with a reason).
* **Admitted**, by kind: personal memory and self-model hypotheses stay with their
  member; project knowledge reaches that project's tasks; team knowledge and skills
  every task. An item is "recorded" until a use is recorded; then "reused N times".
* **Review**: items long unused or unverified. **r** retracts one (with a reason);
  nothing is deleted.
"""

    class LoadRequested(Message):
        """The gate, the admitted items, the review queue."""

    @dataclass(eq=False, repr=False)
    class DecisionRequested(Message):
        """admit | decline | retract on ``item_id``; the screen asks, confirms, stores."""

        action: str
        item_id: str
        summary: str
        flagged: bool = False

    @dataclass(eq=False, repr=False)
    class EvidenceRequested(Message):
        """Open one of the sessions an item cites."""

        refs: tuple[str, ...]

    def __init__(self) -> None:
        super().__init__()
        self.data: KnowledgeData | None = None
        self._items: dict[str, Any] = {}

    def compose(self) -> ComposeResult:
        yield Static("", id="knowledge-banner", classes="status")
        with Horizontal(id="knowledge-body"):
            yield titled(RowList(id="knowledge-list"), "Items")
            with VerticalScroll(id="knowledge-detail"):
                yield Static("Loading knowledge…", id="knowledge-text")

    def request_data(self) -> None:
        self.ask(self.LoadRequested())

    def focus_main(self) -> None:
        self.query_one(RowList).focus()

    def show_data(self, data: KnowledgeData) -> None:
        """Fill the list from fresh data, keeping the highlighted entry when it survives."""
        self.data = data
        waiting = len(data.candidates)
        banner = (
            Content.styled(f"{plural(waiting, 'candidate')} at the gate", "bold $approval-needed")
            if waiting
            else Content.styled("No candidate waits at the gate.", "$text-muted")
        )
        due = f"   {plural(len(data.review), 'item')} to review" if data.review else ""
        self.query_one("#knowledge-banner", Static).update(banner + Content.styled(due, "$warning"))
        self._items = {}
        if not self.query_one(RowList).refill(self._options(data)):
            self.query_one("#knowledge-text", Static).update(
                Content.styled("Nothing recorded yet.", "$text-muted")
            )

    def _section(self, title: str, count: int) -> Option:
        return Option(Content.styled(f"{title} · {count}", "bold"), disabled=True)

    def _row(self, key: str, record: Any, note: str) -> Option:
        self._items[key] = record
        return Option(
            Content.assemble(
                (f"  {record.member:<8} ", "bold"), clip(record.summary, 32), (note, "$text-muted")
            ),
            id=key,
        )

    def _options(self, data: KnowledgeData) -> list[Option]:
        options: list[Option] = []
        if data.candidates:
            options.append(self._section("At the gate", len(data.candidates)))
            for r in data.candidates:
                flag = " live status!" if r.flags else ""
                options.append(self._row(f"c:{r.id}", r, f" {r.reason}{flag}"))
        for kind, records in data.admitted.items():
            if records:
                options.append(self._section(KIND_TITLES.get(kind, kind), len(records)))
                options += [self._row(f"a:{r.id}", r, f" {r.words}") for r in records]
        if data.review:
            options.append(self._section("Review", len(data.review)))
            options += [self._row(f"r:{d.item.id}", d.item, f" {d.why}") for d in data.review]
        return options

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        event.stop()
        record = self._items.get(event.option.id or "")
        if record is not None:
            self.query_one("#knowledge-text", Static).update(self._detail(record))

    def _detail(self, r: Any) -> Content:
        scope = ", ".join(
            f"{k} {v}" for k, v in (("project", r.project), ("domain", r.domain),
                                    ("pattern", r.task_pattern)) if v
        )  # fmt: skip
        parts = [
            Content.assemble(
                (r.summary, "bold"),
                (
                    f"\n{r.kind} of {r.member} · {r.words} · proposed by {r.proposed_by}",
                    "$text-muted",
                ),
            )
        ]
        if r.flags:
            parts.append(
                Content.styled(f"\nStates a live status ({', '.join(r.flags)})", "bold $warning")
            )
        if r.body:
            parts += [Content.styled("\n\nBody\n", "bold"), Content(r.body)]
        parts += [Content.styled("\n\nReason\n", "bold"), Content(r.reason)]
        if r.evidence:
            parts.append(Content(f": {r.evidence}"))
        sources = ", ".join(r.sources) or "none you can see"
        parts += [
            Content.styled("\n\nFrom", "bold"),
            Content.styled(" (o opens)\n", "$text-muted"),
            Content(f"{sources}; occurred {when(r.occurred_at)}"),
            Content.styled(f"\n\nScope: {scope or 'every task of its kind'}", "$text-muted"),
            Content.styled(f"\nImportance {r.importance:.2f} {r.why}".rstrip(), "$text-muted"),
        ]
        return Content("").join(parts)

    def _current(self) -> tuple[str, Any] | None:
        option = self.query_one(RowList).highlighted_option
        if option is None or not option.id or option.id not in self._items:
            return None
        return option.id.split(":", 1)[0], self._items[option.id]

    def _decide(self, action: str, wanted: str, where: str) -> None:
        current = self._current()
        if current is None or current[0] not in wanted:
            self.notify(f"Choose an item {where} first.", severity="warning")
            return
        r = current[1]
        self.ask(self.DecisionRequested(action, r.id, r.summary, bool(r.flags)))

    def action_admit(self) -> None:
        self._decide("admit", "c", "at the gate")

    def action_decline(self) -> None:
        self._decide("decline", "c", "at the gate")

    def action_retract(self) -> None:
        self._decide("retract", "ar", "admitted or in review")

    def action_evidence(self) -> None:
        current = self._current()
        if current is None or not current[1].sources:
            self.notify("No cited session you can open.")
            return
        self.ask(self.EvidenceRequested(tuple(s.split(":")[0] for s in current[1].sources)))
