"""Shell completion of the values the store knows (``autocompletion=`` callbacks).

Each callback reads through :mod:`viva_store.completion.service`, imported on the first
Tab only, so defining a command costs nothing; a store that cannot be read gives no words.
"""

from __future__ import annotations


def member(incomplete: str) -> list[str]:
    """Member names."""
    from viva_store.completion.service import members

    return members(incomplete)


def skill(incomplete: str) -> list[str]:
    """Skill names of the team library."""
    from viva_store.completion.service import skills

    return skills(incomplete)


def session(incomplete: str) -> list[str]:
    """Session ids, newest first."""
    from viva_store.completion.service import sessions

    return sessions(incomplete)


def harness(incomplete: str) -> list[str]:
    """Harness names."""
    from viva_store.completion.service import harnesses

    return harnesses(incomplete)
