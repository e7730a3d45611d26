"""The skill numbers as help and dialogs say them: the store's own, never the defaults.

A store's config.toml may change the half-lives and the protection (the demo store
decays in a few sessions); these sentences are built from its :class:`SkillParams`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from viva_store.skills.service import SkillParams


def _n(value: float) -> str:
    """A number as a person writes it: 4, 0.25, 60."""
    return f"{value:g}"


def half_lives(p: SkillParams) -> str:
    """Both half-lives, e.g. "30 sessions on the session track, 60 days on the time track"."""
    return (
        f"{_n(p.half_life_sessions)} sessions on the session track, "
        f"{_n(p.half_life_days)} days on the time track"
    )


def reclaim_detail(p: SkillParams) -> str:
    """What reclaiming a skill does, for the confirmation dialog."""
    return (
        f"It re-enters at weight {_n(p.initial_weight)}, protected for "
        f"{p.protect_sessions} sessions; the weekly report shows it."
    )


def track_detail(p: SkillParams) -> str:
    """What moving a skill to the other track does, for the confirmation dialog."""
    return (
        "Its weight is recomputed on the new axis from the same events "
        f"(half-life {half_lives(p)})."
    )


SKILLS_HELP = """\
A member's skill set. Each skill's weight rises by the value of each real use (a read
of its body during an execution: success {success}, failure {failure}, corrected
{corrected}) and halves every {half_sessions} of the member's sessions (session track) or
every {half_days} days (time track).

* **status**: *active*; *native* (declared in `soul.md`, never forgotten); *protected*
  (entered less than {protect} sessions ago); *would forget* (due to be forgotten — shown,
  not applied, while forgetting is on trial); *forgotten* (left the set; still in the team
  library, **r** reclaims it at weight {initial}).
* The plot shows the weight history on the skill's axis, the projected decay with no
  further use, the **{forget_below}** forgetting line, where it would be forgotten
  (vertical line) and each use (dots).
* **t** moves the skill to the other track; **b** reads its body (reading it here is
  not a use); **a** shows or hides forgotten skills; **m** chooses the member.
"""


def skills_help(p: SkillParams) -> str:
    """The Skills pane's help (Markdown) with the store's numbers."""
    return SKILLS_HELP.format(
        success=_n(p.value_success),
        failure=_n(p.value_failure),
        corrected=_n(p.value_corrected),
        half_sessions=_n(p.half_life_sessions),
        half_days=_n(p.half_life_days),
        protect=p.protect_sessions,
        initial=_n(p.initial_weight),
        forget_below=_n(p.forget_below),
    )
