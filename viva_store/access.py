"""Who is calling, and what they may see (DESIGN I5, I6, I7).

Every service call carries an :class:`Actor`: the owner, or a member acting
under a grant that Viva issued. Visibility is decided here and nowhere else:
services ask :func:`member_scope` for the members whose experience a call may
read, and :func:`require_owner` before any owner-only change.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import ColumnElement, true
from sqlalchemy.sql.elements import ColumnClause

from viva_store.errors import AccessDenied


@dataclass(frozen=True, slots=True)
class Actor:
    """The owner (``member is None``) or a member acting under grant ``grant_id``."""

    member: str | None = None
    grant_id: str | None = None

    @property
    def is_owner(self) -> bool:
        return self.member is None

    def describe(self) -> str:
        return "the owner" if self.member is None else f"member {self.member}"


OWNER = Actor()


def member_actor(member: str, grant_id: str) -> Actor:
    """An actor acting as ``member`` under ``grant_id``."""
    return Actor(member=member, grant_id=grant_id)


def require_owner(actor: Actor, action: str) -> None:
    """Refuse ``action`` unless the owner asks for it."""
    if not actor.is_owner:
        raise AccessDenied(f"only the owner can {action} ({actor.describe()} is acting)")


def require_self_or_owner(actor: Actor, member: str, action: str) -> None:
    """Refuse ``action`` on ``member``'s data unless it is the owner or that member."""
    if not actor.is_owner and actor.member != member:
        raise AccessDenied(f"{actor.describe()} cannot {action} for {member}")


def can_see_member(actor: Actor, member: str | None) -> bool:
    """Whether ``actor`` may read experience that belongs to ``member``."""
    return actor.is_owner or (member is not None and actor.member == member)


def member_scope(
    actor: Actor, column: ColumnClause[str] | ColumnElement[str]
) -> ColumnElement[bool]:
    """A SQL condition restricting ``column`` (a member name) to what ``actor`` may read.

    Applied inside queries (an indexed column), never by filtering results afterwards.
    """
    if actor.is_owner:
        return true()
    return column == actor.member
