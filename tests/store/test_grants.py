"""Grants (DESIGN I5): tokens, expiry, revocation; never a fallback to the owner."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select

from viva_store.access import OWNER
from viva_store.db.schema import MEMBER_GRANT
from viva_store.errors import AccessDenied, GrantRefused, InvalidInput
from viva_store.members.grants import (
    issue_grant,
    list_grants,
    parse_ttl,
    resolve_actor,
    revoke_grant,
)
from viva_store.store import Context


def test_a_valid_token_acts_as_its_member(ctx: Context) -> None:
    issued = issue_grant(ctx, "deven")
    actor = resolve_actor(ctx.store, issued.token)
    assert actor.member == "deven" and actor.grant_id == issued.id
    assert resolve_actor(ctx.store, None) == OWNER


def test_the_token_has_at_least_128_random_bits_and_only_its_hash_is_stored(ctx: Context) -> None:
    issued = issue_grant(ctx, "alice")
    assert len(issued.token) >= 40
    stored = ctx.store.read(
        lambda c: list(c.execute(select(MEMBER_GRANT)).mappings())  # type: ignore[attr-defined]
    )
    assert all(issued.token not in str(row) for row in stored)


@pytest.mark.parametrize("token", ["nonsense", "viva_g1_" + "x" * 43, " "])
def test_an_unknown_token_is_refused(ctx: Context, token: str) -> None:
    with pytest.raises(GrantRefused):
        resolve_actor(ctx.store, token)


def test_an_expired_grant_is_refused(ctx: Context, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VIVA_NOW", "2026-11-30T10:00:00Z")
    issued = issue_grant(ctx, "oliver", ttl=timedelta(hours=1))
    monkeypatch.setenv("VIVA_NOW", "2026-11-30T11:00:01Z")
    with pytest.raises(GrantRefused, match="expired"):
        resolve_actor(ctx.store, issued.token)


def test_a_revoked_grant_is_refused_by_token_or_id(ctx: Context) -> None:
    first, second = issue_grant(ctx, "victor"), issue_grant(ctx, "victor")
    revoke_grant(ctx, first.token)
    revoke_grant(ctx, second.id)
    for issued in (first, second):
        with pytest.raises(GrantRefused, match="revoked"):
            resolve_actor(ctx.store, issued.token)
    assert all(g.revoked_at is not None for g in list_grants(ctx))


def test_members_cannot_mint_or_revoke(ctx: Context) -> None:
    issued = issue_grant(ctx, "deven")
    member = ctx.as_actor(resolve_actor(ctx.store, issued.token))
    with pytest.raises(AccessDenied):
        issue_grant(member, "deven")
    with pytest.raises(AccessDenied):
        revoke_grant(member, issued.id)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("30m", timedelta(minutes=30)),
        ("8h", timedelta(hours=8)),
        ("2w", timedelta(weeks=2)),
        ("never", None),
    ],
)
def test_ttl_parsing(text: str, expected: timedelta | None) -> None:
    assert parse_ttl(text) == expected


@pytest.mark.parametrize("text", ["", "5", "h", "-1h", "0h", "3y"])
def test_bad_ttl_is_a_clear_error(text: str) -> None:
    with pytest.raises(InvalidInput, match="--ttl"):
        parse_ttl(text)
