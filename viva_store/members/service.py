"""Members: the team's identities, the grants they act under, what Viva launched for them.

The roster is loaded from ``members/<name>/`` (:mod:`viva_store.members.team` parses it);
a grant (:mod:`viva_store.members.grants`) lets a member act through Viva and see only
its own experience; an execution record (:mod:`viva_store.members.executions`) is what
attributes a launched session without the owner (DESIGN I6). Each name is loaded from
its module when first used (:mod:`viva_store.lazy`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from viva_store.lazy import exports

if TYPE_CHECKING:
    from viva_store.members.executions import get_execution, list_executions
    from viva_store.members.grants import (
        issue_grant,
        list_grants,
        parse_ttl,
        resolve_actor,
        revoke_grant,
    )
    from viva_store.members.roster import (
        TeamLoad,
        get_member,
        list_members,
        load_team,
        member_names,
    )
else:
    __getattr__ = exports(
        globals(),
        {
            "viva_store.members.executions": ("get_execution", "list_executions"),
            "viva_store.members.grants": (
                "issue_grant",
                "list_grants",
                "parse_ttl",
                "resolve_actor",
                "revoke_grant",
            ),
            "viva_store.members.roster": (
                "TeamLoad",
                "get_member",
                "list_members",
                "load_team",
                "member_names",
            ),
        },
    )

__all__ = [
    "TeamLoad",
    "get_execution",
    "get_member",
    "issue_grant",
    "list_executions",
    "list_grants",
    "list_members",
    "load_team",
    "member_names",
    "parse_ttl",
    "resolve_actor",
    "revoke_grant",
]
