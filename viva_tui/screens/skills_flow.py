"""The skills pane's requests: the set, a curve, reclaim and track changes, a body."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from viva_tui.messages import (
    CurveLoaded,
    CurveRequested,
    DocumentLoaded,
    SkillBodyWanted,
    SkillChanged,
    SkillChangeWanted,
    SkillsLoaded,
    SkillsRequested,
)
from viva_tui.screens.base import ServiceScreen

if TYPE_CHECKING:
    from viva_tui.widgets.skills_pane import SkillsPane


class SkillsFlow(ServiceScreen):
    """Feeds :class:`SkillsPane`; changes are confirmed before they are stored."""

    def skills_pane(self) -> SkillsPane:
        return cast("SkillsPane", self.pane("skills"))

    def on_skills_requested(self, message: SkillsRequested) -> None:
        member, include = message.member, message.include_forgotten
        self.run_service("skills:load", lambda b: b.skills(member, include), SkillsLoaded)

    def on_skills_loaded(self, message: SkillsLoaded) -> None:
        self.skills_pane().show_skills(message.data)

    def on_curve_requested(self, message: CurveRequested) -> None:
        member, skill = message.member, message.skill
        self.run_service("skills:curve", lambda b: b.curve(member, skill), CurveLoaded)

    def on_curve_loaded(self, message: CurveLoaded) -> None:
        self.skills_pane().show_curve(message.data)

    def on_skill_change_wanted(self, message: SkillChangeWanted) -> None:
        from viva_tui.dialogs.confirm import ConfirmModal

        m = message
        if m.action == "reclaim":
            question = f"Reclaim {m.skill} into {m.member}'s set?"
            detail = (
                "It re-enters at weight 1.0, protected for 10 sessions; the weekly report shows it."
            )
        else:
            question = f"Move {m.member}'s {m.skill} to the {m.track} track?"
            detail = (
                "Its weight is recomputed on the new axis from the same events "
                "(half-life 30 sessions on the session track, 60 days on the time track)."
            )

        def answered(yes: bool | None) -> None:
            if yes:
                self.run_service(
                    "skills:change",
                    lambda b: b.change_skill(m.action, m.member, m.skill, m.track),
                    lambda said: SkillChanged(m.member, said),
                    exclusive=False,
                )

        self.app.push_screen(ConfirmModal(question, detail, m.action.capitalize()), answered)

    def on_skill_changed(self, message: SkillChanged) -> None:
        self.notify(message.summary, title="Skills")
        pane = self.skills_pane()
        if pane.member == message.member:
            pane.request_data()
        self.skills_changed()

    def skills_changed(self) -> None:
        """A skill set changed (override in the main screen)."""

    def on_skill_body_wanted(self, message: SkillBodyWanted) -> None:
        name = message.skill
        self.run_service(
            "skills:body", lambda b: b.skill_body(name), lambda md: DocumentLoaded(name, md)
        )
