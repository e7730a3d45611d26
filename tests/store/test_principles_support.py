"""Helpers for the principle and report tests (no tests here).

Sessions are written in Claude Code's real on-disk format and recovered by the
real importer, then filed by the owner, so evidence and visibility go through
the same code a user's sessions do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from viva_store.demo.harness_files import SessionSpec, Turn, claude_code
from viva_store.importing.pipeline import run_import
from viva_store.members.grants import issue_grant, resolve_actor
from viva_store.store import Context
from viva_store.triage.classify import classify

T0 = datetime(2026, 11, 24, 9, 0, tzinfo=UTC)  # a Tuesday of 2026-W48
NAMES = ("samuel", "deven", "alice", "oliver", "victor")


def as_member(ctx: Context, member: str) -> Context:
    """``ctx`` acting as ``member`` under a fresh grant."""
    return ctx.as_actor(resolve_actor(ctx.store, issue_grant(ctx, member).token))


@contextmanager
def frozen(monkeypatch: pytest.MonkeyPatch, at: datetime) -> Iterator[None]:
    """``VIVA_NOW`` set to ``at`` inside the block."""
    with monkeypatch.context() as m:
        m.setenv("VIVA_NOW", at.isoformat())
        yield


def native(member: str, n: int) -> str:
    """A stable Claude Code session id for ``member``'s ``n``-th test session."""
    digits = f"{sum(map(ord, member)):04d}{n:04d}"
    return f"{digits}-0000-4000-8000-{member:0>12}"[:36]


def make_sessions(
    ctx: Context, root: Path, per_member: Mapping[str, int], start: datetime = T0
) -> dict[str, list[str]]:
    """Write, import and file ``per_member[m]`` sessions for each member; their native ids."""
    made: dict[str, list[str]] = {}
    for i, (member, count) in enumerate(sorted(per_member.items())):
        for n in range(count):
            sid = native(member, n)
            claude_code(
                root,
                SessionSpec(
                    native_id=sid,
                    cwd=f"/home/{member}/work",
                    start=start + timedelta(hours=i, minutes=n),
                    turns=(Turn(f"{member} asks {n}", f"answer {n}"),),
                    model="m",
                    title=f"{member} session {n}",
                ),
            )
            made.setdefault(member, []).append(sid)
    for _ in run_import(ctx, ["claude-code"], {"claude-code": str(root)}):
        pass
    for member, ids in made.items():
        classify(ctx, ids, member)
    return made


def raw_sql(ctx: Context, sql: str) -> None:
    """Hand-typed SQL in its own transaction, as a user with a SQL shell would run it."""
    engine = create_engine(ctx.store.config.db_url)
    try:
        with engine.begin() as conn:
            if conn.dialect.name == "sqlite":
                conn.exec_driver_sql("PRAGMA recursive_triggers=ON")
            conn.execute(text(sql))
    finally:
        engine.dispose()


def count(ctx: Context, table: str) -> int:
    """Rows in ``table``."""
    return int(ctx.store.read(lambda c: c.execute(text(f"SELECT count(*) FROM {table}")).scalar()))


def seed_principles(ctx: Context, marker: Mapping[str, str]) -> None:
    """As the owner: one approved principle per member whose text is its marker.

    Used by the visibility test to put each member's private wording in the store.
    """
    from viva_store.access import OWNER
    from viva_store.principles.service import approve, propose

    owner = ctx.as_actor(OWNER)
    for member, mark in marker.items():
        cand = propose(owner, member, f"{mark} principle", f"because {mark}")
        approve(owner, cand.id, note=mark)
        propose(owner, member, f"{mark} pending", f"rationale {mark}")


def principle_reader(
    marker: Callable[[str], str],
    read: Callable[..., Any],
    members: Sequence[str] | None = None,
) -> Callable[[Context], Any]:
    """For the visibility test: a call of ``read`` on a store holding marked principles.

    Each member gets its marked principles once per store (:func:`seed_principles`);
    with ``members``, ``read`` is called once per member name, a refusal counting as
    nothing returned.
    """
    from viva_store.access import OWNER
    from viva_store.errors import AccessDenied
    from viva_store.principles.service import principle_history

    def call(ctx: Context) -> Any:
        if not principle_history(ctx.as_actor(OWNER)):
            seed_principles(ctx, {m: marker(m) for m in NAMES})
        if members is None:
            return read(ctx)
        out = []
        for member in members:
            try:
                out.append(read(ctx, member))
            except AccessDenied:
                out.append(None)
        return out

    return call
