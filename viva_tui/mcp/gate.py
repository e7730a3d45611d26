"""Who a ``viva mcp`` server acts as: the member its grant names, checked at every call.

The server is started by a harness with ``VIVA_GRANT`` in its environment and runs as
long as the harness does. The grant is resolved again for every tool call, so one
revoked or expired meanwhile refuses the next call with the CLI's own words. Without a
grant the server refuses to act at all: unlike the CLI it never acts as the owner.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from viva_store.errors import GrantRefused
from viva_store.members.service import resolve_actor
from viva_store.store import Context, Store
from viva_tui import started

NO_GRANT = (
    "viva mcp acts only as a member and VIVA_GRANT is not set "
    "(`viva launch` sets it; the owner mints one with `viva grant M`)"
)


@dataclass(frozen=True, slots=True)
class Caller:
    """One tool call's context: the store as the member, and the execution it runs in."""

    ctx: Context
    member: str
    execution_id: str | None


class MemberGate:
    """The store, opened once for the server's life, and the grant it was started with."""

    def __init__(self, store: Store, token: str | None, execution_id: str | None) -> None:
        self.store = store
        self.token = token
        self.execution_id = execution_id

    def caller(self) -> Caller:
        """The member acting now; :class:`GrantRefused` when the grant no longer holds."""
        if self.token is None:
            raise GrantRefused(NO_GRANT)
        actor = resolve_actor(self.store, self.token)
        assert actor.member is not None  # a token never resolves to the owner
        return Caller(Context(self.store, actor), actor.member, self.execution_id)

    def close(self) -> None:
        self.store.close()


def open_gate(env: Mapping[str, str]) -> MemberGate:
    """Open the store the environment names and check its grant once before serving."""
    token = (env.get("VIVA_GRANT") or "").strip() or None
    if token is None:
        raise GrantRefused(NO_GRANT)
    gate = MemberGate(Store.open(), token, env.get("VIVA_EXECUTION") or None)
    try:
        gate.caller()
    except BaseException:
        gate.close()
        raise
    started()
    return gate
