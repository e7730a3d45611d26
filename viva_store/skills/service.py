"""Skills: the team library, each member's skill set and weights, uses, projection (DESIGN §3).

Where things are: the pure maths in :mod:`~viva_store.skills.weights` (``W ← W·2^(−Δ/h) +
value``), :mod:`~viva_store.skills.forgetting`, :mod:`~viva_store.skills.curve` and
:mod:`~viva_store.skills.rank` (projection's relevance); the append-only event log and
its kinds in :mod:`~viva_store.skills.events`; the members' session axes in
:mod:`~viva_store.skills.axis`; where uses come from in :mod:`~viva_store.skills.uses`,
and one use credited in :mod:`~viva_store.skills.credit`; the cache rebuilt from the log
in :mod:`~viva_store.skills.rebuild`; a member's set in :mod:`~viva_store.skills.skillset`;
the library searched mid-session in :mod:`~viva_store.skills.search`.
"""

from __future__ import annotations

from viva_store.skills.events import instant_of_day
from viva_store.skills.library import get_skill, import_skills, list_library
from viva_store.skills.membership import add_skill, reclaim_skill, set_track
from viva_store.skills.params import SkillParams
from viva_store.skills.project import project
from viva_store.skills.records import (
    MemberSkillRecord,
    Projection,
    SkillChange,
    SkillCurve,
    SkillEventRecord,
    SkillMatch,
)
from viva_store.skills.search import search_skills
from viva_store.skills.skillset import (
    check_cache,
    list_skills,
    rebuild_skills,
    skill_curve,
    skill_history,
    skill_parameters,
    trial_until,
)
from viva_store.skills.uses import OUTCOMES, correct_use, read_skill, record_use

__all__ = [
    "OUTCOMES",
    "MemberSkillRecord",
    "Projection",
    "SkillChange",
    "SkillCurve",
    "SkillEventRecord",
    "SkillMatch",
    "SkillParams",
    "add_skill",
    "check_cache",
    "correct_use",
    "get_skill",
    "import_skills",
    "instant_of_day",
    "list_library",
    "list_skills",
    "project",
    "read_skill",
    "rebuild_skills",
    "reclaim_skill",
    "record_use",
    "search_skills",
    "set_track",
    "skill_curve",
    "skill_history",
    "skill_parameters",
    "trial_until",
]
