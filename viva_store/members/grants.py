"""Grants: how a member acts through Viva (DESIGN I5; CLI ``VIVA_GRANT``).

A token carries 256 random bits and is shown once; the store keeps only its
SHA-256. Revocation is an append-only event. An invalid, expired or revoked
token is refused — it never falls back to the owner.

Threat model: this stops careless or buggy cross-member reads by agents that
go through Viva. It does not stop a process running as the same OS user from
opening the database file directly.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from datetime import datetime, timedelta

from sqlalchemy import Connection, func, insert, select

from viva_store.access import OWNER, Actor, member_actor, member_scope, require_owner
from viva_store.clock import as_utc
from viva_store.db.schema import GRANT_REVOCATION, MEMBER_GRANT
from viva_store.errors import GrantRefused, InvalidInput, NotFound
from viva_store.members.roster import get_member
from viva_store.records import GrantRecord, IssuedGrant
from viva_store.registry import reader
from viva_store.store import Context, Store

TOKEN_PREFIX = "viva_g1_"
DEFAULT_TTL = timedelta(hours=12)
_TTL_RE = re.compile(r"^(\d+)\s*([smhdw])$")
_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_ttl(text: str) -> timedelta | None:
    """``30m``, ``8h``, ``7d``, ``2w`` or ``never``."""
    text = text.strip().lower()
    if text in ("never", "none", "0"):
        return None
    match = _TTL_RE.match(text)
    if not match or int(match.group(1)) == 0:
        raise InvalidInput(f"--ttl {text!r}: use a number and a unit (30m, 8h, 7d, 2w) or 'never'")
    return timedelta(**{_UNITS[match.group(2)]: int(match.group(1))})


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def issue_grant(
    ctx: Context, member: str, ttl: timedelta | None = DEFAULT_TTL, note: str = ""
) -> IssuedGrant:
    """Owner: mint a grant for ``member``. The token is returned once and never stored."""
    from viva_store.redact import redact_typed  # the rules load when used

    require_owner(ctx.actor, "issue grants")
    get_member(ctx, member)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    grant_id = "g" + secrets.token_hex(5)
    now = ctx.store.now()
    expires = now + ttl if ttl is not None else None
    ctx.store.write(
        lambda c: c.execute(
            insert(MEMBER_GRANT).values(
                id=grant_id,
                member=member,
                token_hash=_hash(token),
                created_at=now,
                expires_at=expires,
                note=redact_typed(note),
            )
        )
    )
    return IssuedGrant(id=grant_id, member=member, token=token, expires_at=expires)


def revoke_grant(ctx: Context, token_or_id: str, reason: str = "") -> str:
    """Owner: revoke a grant by its token or id; returns the grant id."""
    require_owner(ctx.actor, "revoke grants")
    key = token_or_id.strip()
    now = ctx.store.now()

    def work(conn: Connection) -> str:
        row = conn.execute(
            select(MEMBER_GRANT.c.id).where(
                (MEMBER_GRANT.c.id == key) | (MEMBER_GRANT.c.token_hash == _hash(key))
            )
        ).first()
        if row is None:
            raise NotFound("no such grant (give the token or the grant id from `viva grant list`)")
        already = conn.execute(
            select(GRANT_REVOCATION.c.id).where(GRANT_REVOCATION.c.grant_id == row.id)
        ).first()
        if already is None:
            conn.execute(
                insert(GRANT_REVOCATION).values(grant_id=row.id, revoked_at=now, reason=reason)
            )
        return str(row.id)

    return ctx.store.write(work)


def resolve_actor(store: Store, token: str | None) -> Actor:
    """The actor a ``VIVA_GRANT`` value stands for (no token: the owner)."""
    if token is None:
        return OWNER
    token = token.strip()
    if not token:
        raise GrantRefused("VIVA_GRANT is set but empty; unset it to act as the owner")

    def work(conn: Connection) -> tuple[str, str, datetime | None, datetime | None] | None:
        # One statement: a long-lived `viva mcp` checks the grant at every call.
        G, R = MEMBER_GRANT.c, GRANT_REVOCATION.c
        revoked = select(func.min(R.revoked_at)).where(R.grant_id == G.id).scalar_subquery()
        row = conn.execute(
            select(G.id, G.member, G.expires_at, revoked.label("revoked_at")).where(
                G.token_hash == _hash(token)
            )
        ).first()
        return None if row is None else (row.id, row.member, row.expires_at, row.revoked_at)

    found = store.read(work)
    if found is None:
        raise GrantRefused("VIVA_GRANT is not a grant this store issued; refusing to act")
    grant_id, member, expires_at, revoked_at = found
    if revoked_at is not None:
        raise GrantRefused(
            f"VIVA_GRANT {grant_id} was revoked at {as_utc(revoked_at):%Y-%m-%d %H:%M}Z"
        )
    if expires_at is not None and as_utc(expires_at) <= store.now():
        raise GrantRefused(f"VIVA_GRANT {grant_id} expired at {as_utc(expires_at):%Y-%m-%d %H:%M}Z")
    return member_actor(member, grant_id)


@reader
def list_grants(ctx: Context) -> list[GrantRecord]:
    """Grants (owner: all; a member: its own), newest first."""

    def work(conn: Connection) -> list[GrantRecord]:
        revoked = {
            r.grant_id: r.revoked_at
            for r in conn.execute(
                select(GRANT_REVOCATION.c.grant_id, GRANT_REVOCATION.c.revoked_at)
            )
        }
        rows = conn.execute(
            select(MEMBER_GRANT)
            .where(member_scope(ctx.actor, MEMBER_GRANT.c.member))
            .order_by(MEMBER_GRANT.c.created_at.desc())
        )
        return [
            GrantRecord(
                id=r.id,
                member=r.member,
                created_at=as_utc(r.created_at),
                expires_at=as_utc(r.expires_at) if r.expires_at else None,
                revoked_at=as_utc(revoked[r.id]) if r.id in revoked else None,
                note=r.note,
            )
            for r in rows
        ]

    return ctx.store.read(work)
