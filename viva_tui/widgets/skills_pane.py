"""Pane 4: a member's skill set with weights, and the selected skill's decay curve."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import var
from textual.timer import Timer
from textual.widgets import Static

from viva_tui import keys
from viva_tui.views import CurveData, SkillRow, SkillsData
from viva_tui.widgets.decay_plot import DecayPlot
from viva_tui.widgets.format import clip, local, plural, sparkline, when
from viva_tui.widgets.pane import Pane, titled
from viva_tui.widgets.tables import RowTable, leading_columns

# A narrow table shows the leading columns that fit whole (the weight and its track first).
COLUMNS = (
    ("skill", "skill", 22),
    ("status", "status", 11),
    ("weight", "weight", 6),
    ("track", "track", 7),
    ("uses", "uses", 4),
    ("last used", "last used", 10),
    ("trend", "trend", 10),
)
NAME_WIDTH = COLUMNS[0][2]
STATUS_VAR = {
    "active": "status-active",
    "native": "status-native",
    "protected": "status-protected",
    "would_forget": "status-would-forget",
    "forgotten": "status-forgotten",
}


class SkillsPane(Pane):
    """The table of skills on the left, the curve of the highlighted one on the right."""

    DEFAULT_CSS = """
    #skills-banner { height: auto; padding: 0 1; background: $warning 15%; }
    #skills-body { height: 1fr; }
    #skills-table { width: 5fr; height: 1fr; }
    #skills-curve { width: 3fr; border-left: tall $panel; }
    #decay-plot { height: 1fr; }
    #curve-facts { height: auto; padding: 0 1; }
    """

    PANE_ID = "skills"
    TITLE = "Skills"
    BINDINGS: ClassVar[list[BindingType]] = [*keys.SKILLS]
    HELP_TEXT = """\
A member's skill set. Each skill's weight rises by the value of each real use (a read
of its body during an execution: success 1.0, failure 0.25, corrected 0.0) and halves
every 30 of the member's sessions (session track) or every 60 days (time track).

* **status**: *active*; *native* (declared in `soul.md`, never forgotten); *protected*
  (entered less than 10 sessions ago); *would forget* (due to be forgotten — shown, not
  applied, while forgetting is on trial); *forgotten* (left the set; still in the team
  library, **r** reclaims it at weight 1.0).
* The plot shows the weight history on the skill's axis, the projected decay with no
  further use, the **0.1** forgetting line, where it would be forgotten (vertical line)
  and each use (dots).
* **t** moves the skill to the other track; **b** reads its body (reading it here is
  not a use); **a** shows or hides forgotten skills; **m** chooses the member.
"""

    def help_text(self) -> str:
        """The help with the store's own numbers once the set is loaded (a store's config
        may change them; ``HELP_TEXT`` states the defaults)."""
        if self.data is None or self.data.params is None:
            return self.HELP_TEXT
        from viva_tui.dialogs.skill_words import skills_help

        return skills_help(self.data.params)

    @dataclass(eq=False, repr=False)
    class LoadRequested(Message):
        """``member``'s skill set (forgotten skills too with ``include_forgotten``)."""

        member: str
        include_forgotten: bool

    @dataclass(eq=False, repr=False)
    class CurveRequested(Message):
        """The curve of ``member``'s ``skill``, to plot."""

        member: str
        skill: str

    @dataclass(eq=False, repr=False)
    class ChangeRequested(Message):
        """Reclaim a skill (``action`` reclaim) or move it to ``track`` (``action`` track)."""

        action: str
        member: str
        skill: str
        track: str = ""

    @dataclass(eq=False, repr=False)
    class BodyRequested(Message):
        """Read a skill's body."""

        skill: str

    member: var[str | None] = var(None, init=False)
    """Whose skill set this is (loaded when it changes, once the pane was opened)."""

    def __init__(self, member: str | None = None) -> None:
        super().__init__()
        self.set_reactive(SkillsPane.member, member)
        self.include_forgotten = True
        self.rows: dict[str, SkillRow] = {}
        self.data: SkillsData | None = None
        self._curve_timer: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static("", id="skills-banner")
        yield Static(self._title(), id="skills-title", classes="status")
        with Horizontal(id="skills-body"):
            yield titled(RowTable(id="skills-table", zebra_stripes=True), "Skill set")
            with Vertical(id="skills-curve"):
                yield titled(DecayPlot(id="decay-plot"), "Decay")
                yield Static("", id="curve-facts")
        yield Static(
            Content.styled(
                "r reclaim · t track · b read · a forgotten on/off · m member", "$text-muted"
            ),
            classes="status",
        )

    def on_mount(self) -> None:
        self.query_one(RowTable).add_fixed_columns(COLUMNS)
        self.query_one("#skills-banner", Static).display = False

    def on_resize(self) -> None:
        table = self.query_one(RowTable)
        if table.show_columns(leading_columns(COLUMNS, table.size.width)) and self.data:
            self.show_skills(self.data)

    def focus_main(self) -> None:
        self.query_one(RowTable).focus()

    def request_data(self) -> None:
        if self.member:
            self.ask(self.LoadRequested(self.member, self.include_forgotten))

    def watch_member(self) -> None:
        self.query_one("#skills-title", Static).update(self._title())
        if self.requested:
            self.request_data()

    def _title(self) -> Content:
        if self.member is None:
            return Content("")
        return Content.assemble(("Skills of ", "bold"), (self.member, "bold $accent"))

    # Showing -----------------------------------------------------------------------------

    def show_skills(self, data: SkillsData) -> None:
        """Fill the table, keeping the highlighted skill when it is still listed."""
        if data.member != self.member:
            return
        self.data = data
        table = self.query_one(RowTable)
        keep = table.current_key
        table.clear()
        self.rows = {r.name: r for r in data.rows}
        vars_ = self.app.theme_variables
        # One scale for every trend, so a faded skill looks faded next to a strong one.
        top = max((w for r in data.rows for w in r.spark), default=1.0)
        for r in data.rows:
            colour = vars_.get(STATUS_VAR.get(r.status, ""), "")
            cells: dict[str, object] = {
                "skill": Text(
                    clip(r.name, NAME_WIDTH), style="bold" if r.status != "forgotten" else "dim"
                ),
                "status": Text(r.status.replace("_", " "), style=colour),
                "weight": f"{r.weight:.3f}",
                "track": r.track,
                "uses": str(r.uses),
                "last used": f"{local(r.last_used):%Y-%m-%d}" if r.last_used else "—",
                "trend": Text(sparkline(r.spark, 10, top), style=vars_.get("decay-curve", "")),
            }
            table.add_row(*(cells[str(key.value)] for key in table.columns), key=r.name)
        table.rows_added()
        if keep in self.rows:
            table.move_cursor(row=list(self.rows).index(keep))
        banner = self.query_one("#skills-banner", Static)
        banner.display = data.trial_until is not None
        if data.trial_until is not None:
            banner.update(
                Content.styled(
                    f"Forgetting is on trial until {when(data.trial_until)}: what would be "
                    "forgotten is marked “would forget”; nothing is forgotten yet.",
                    "bold $warning",
                )
            )
        counts = {s: sum(1 for r in data.rows if r.status == s) for s in STATUS_VAR}
        summary = (
            ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts.items() if n)
            or "no skills in the set"
        )
        self.query_one("#skills-title", Static).update(
            Content.assemble(
                ("Skills of ", "bold"),
                (data.member, "bold $accent"),
                (f" · {summary}", "$text-muted"),
            )
        )
        if not data.rows:
            self.query_one(DecayPlot).show_curve(None, "")
            self.query_one("#curve-facts", Static).update("")
        else:
            self._schedule_curve()

    def show_curve(self, data: CurveData) -> None:
        """Plot the curve of the highlighted skill (if it still is)."""
        if data.member != self.member or data.skill != self.query_one(RowTable).current_key:
            return
        c = data.curve
        threshold = self.data.forget_below if self.data else 0.1
        self.query_one(DecayPlot).show_curve(c, f"{data.skill} on the {c.track} track", threshold)
        unit = "session" if c.track == "session" else "day"
        facts = [f"weight now {c.weight_now:.3f}"]
        if c.crosses_at is not None:
            facts.append(f"crosses {threshold} at {unit} {c.crosses_at:.0f}")
        if c.forget_due_at is not None:
            facts.append(f"could be forgotten from {unit} {c.forget_due_at:.0f}")
        else:
            facts.append("never forgotten (native or no decay)")
        uses = sum(1 for _, kind, _ in c.marks if kind == "use")
        facts.append(plural(uses, "use"))
        self.query_one("#curve-facts", Static).update(
            Content.styled(" · ".join(facts), "$text-muted")
        )

    # Reacting ----------------------------------------------------------------------------

    def on_data_table_row_highlighted(self, event: RowTable.RowHighlighted) -> None:
        event.stop()
        self._schedule_curve()

    def _schedule_curve(self) -> None:
        if self._curve_timer is not None:
            self._curve_timer.stop()
        self._curve_timer = self.set_timer(0.1, self._ask_curve)

    def _ask_curve(self) -> None:
        skill = self.query_one(RowTable).current_key
        if skill and self.member:
            self.ask(self.CurveRequested(self.member, skill))

    def _row(self) -> SkillRow | None:
        key = self.query_one(RowTable).current_key
        return self.rows.get(key) if key else None

    def action_reclaim(self) -> None:
        row = self._row()
        if row is None or self.member is None:
            return
        if row.status != "forgotten":
            self.notify(
                f"{row.name} is in the set ({row.status}); only a forgotten skill can be reclaimed."
            )
            return
        self.ask(self.ChangeRequested("reclaim", self.member, row.name))

    def action_track(self) -> None:
        row = self._row()
        if row is None or self.member is None:
            return
        other = "time" if row.track == "session" else "session"
        self.ask(self.ChangeRequested("track", self.member, row.name, other))

    def action_body(self) -> None:
        if row := self._row():
            self.ask(self.BodyRequested(row.name))

    def action_toggle_all(self) -> None:
        self.include_forgotten = not self.include_forgotten
        self.request_data()

    def action_choose_member(self) -> None:
        self.ask(self.MemberPickRequested())
