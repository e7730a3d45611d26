"""The skills pane's requests: the set, a curve, reclaim and track changes, a body."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from textual import work

from viva_tui.messages import CurveLoaded, DocumentLoaded, SkillChanged, SkillsLoaded
from viva_tui.screens.base import ServiceScreen, once_open

if TYPE_CHECKING:
    from viva_tui.widgets.skills_pane import SkillsPane


class SkillsFlow(ServiceScreen):
    """Feeds :class:`SkillsPane`; changes are confirmed before they are stored. (The
    pane's requests are handled by name: its module is imported when it is first built.)"""

    def skills_pane(self) -> SkillsPane:
        return cast("SkillsPane", self.pane("skills"))

    def on_skills_pane_load_requested(self, message: SkillsPane.LoadRequested) -> None:
        self.load_skills(message.member, message.include_forgotten)

    @once_open
    @work(thread=True, group="skills:load", exclusive=True, exit_on_error=False)
    def load_skills(self, member: str, include_forgotten: bool) -> None:
        self.answer(SkillsLoaded(self.backend.skills(member, include_forgotten)))

    def on_skills_loaded(self, message: SkillsLoaded) -> None:
        self.skills_pane().show_skills(message.data)

    def on_skills_pane_curve_requested(self, message: SkillsPane.CurveRequested) -> None:
        self.load_curve(message.member, message.skill)

    @once_open
    @work(thread=True, group="skills:curve", exclusive=True, exit_on_error=False)
    def load_curve(self, member: str, skill: str) -> None:
        self.answer(CurveLoaded(self.backend.curve(member, skill)))

    def on_curve_loaded(self, message: CurveLoaded) -> None:
        self.skills_pane().show_curve(message.data)

    def on_skills_pane_change_requested(self, message: SkillsPane.ChangeRequested) -> None:
        from viva_tui.dialogs.confirm import ConfirmModal
        from viva_tui.dialogs.skill_words import reclaim_detail, track_detail

        m = message
        params = self.backend.skill_parameters()  # the store's config, already in memory
        if m.action == "reclaim":
            question = f"Reclaim {m.skill} into {m.member}'s set?"
            detail = reclaim_detail(params)
        else:
            question = f"Move {m.member}'s {m.skill} to the {m.track} track?"
            detail = track_detail(params)

        def answered(yes: bool | None) -> None:
            if yes:
                self.change_skill(m.action, m.member, m.skill, m.track)

        self.app.push_screen(ConfirmModal(question, detail, m.action.capitalize()), answered)

    @once_open
    @work(thread=True, group="skills:change", exclusive=False, exit_on_error=False)
    def change_skill(self, action: str, member: str, skill: str, track: str) -> None:
        said = self.backend.change_skill(action, member, skill, track)
        self.answer(SkillChanged(member, said))

    def on_skill_changed(self, message: SkillChanged) -> None:
        self.notify(message.summary, title="Skills")
        pane = self.skills_pane()
        if pane.member == message.member:
            pane.request_data()
        self.skills_changed()

    def skills_changed(self) -> None:
        """A skill set changed (override in the main screen)."""

    def on_skills_pane_body_requested(self, message: SkillsPane.BodyRequested) -> None:
        self.load_skill_body(message.skill)

    @once_open
    @work(thread=True, group="skills:body", exclusive=True, exit_on_error=False)
    def load_skill_body(self, name: str) -> None:
        self.answer(DocumentLoaded(name, self.backend.skill_body(name)))
