"""Members in the store: loading the team, listing it."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from sqlalchemy import Connection, insert, select, update

from viva_store.access import can_see_member, require_owner
from viva_store.db.schema import MEMBER, SKILL
from viva_store.errors import NotFound
from viva_store.records import MemberRecord
from viva_store.registry import reader
from viva_store.store import Context

if TYPE_CHECKING:
    from viva_store.members.team import MemberDef
    from viva_store.skills.library import LibraryImport


@dataclass(frozen=True, slots=True)
class TeamLoad:
    """What :func:`load_team` did; ``errors`` name each bad file."""

    added: tuple[str, ...]
    updated: tuple[str, ...]
    errors: tuple[str, ...]
    library: LibraryImport | None


def _values(member: MemberDef) -> dict[str, object]:
    return {
        "display_name": member.display_name,
        "role": member.role,
        "engine": member.engine,
        "harnesses": list(member.harnesses),
        "tools": list(member.tools),
        "coordinator": member.coordinator,
        "soul": member.soul,
        "native_skills": list(member.native_skills),
        "source_path": member.source_path,
    }


def load_team(ctx: Context, folder: Path | None = None) -> TeamLoad:
    """Load member definitions (and the skill library in ``<folder>/skills``) into the store."""
    # Parsing definitions (YAML) and the skill library load only here, not for every lookup.
    from viva_store.members.team import read_team, shipped_members_dir
    from viva_store.skills.library import import_skills
    from viva_store.skills.skillset import ensure_natives

    require_owner(ctx.actor, "load member definitions")
    folder = folder or shipped_members_dir()
    members, errors = read_team(folder)
    library = import_skills(ctx, folder / "skills") if (folder / "skills").is_dir() else None
    known = set(ctx.store.read(lambda c: list(c.execute(select(SKILL.c.name)).scalars())))
    for member in members:
        for native in member.native_skills:
            if native not in known:
                where = f"{member.source_path}/soul.md"
                errors.append(f"{where}: native skill {native!r} is not in the team library")
    now = ctx.store.now()

    def work(conn: Connection) -> tuple[list[str], list[str]]:
        existing = set(conn.execute(select(MEMBER.c.name)).scalars())
        added: list[str] = []
        updated: list[str] = []
        for member in members:
            if member.name in existing:
                conn.execute(
                    update(MEMBER)
                    .where(MEMBER.c.name == member.name)
                    .values(loaded_at=now, **_values(member))
                )
                updated.append(member.name)
            else:
                conn.execute(
                    insert(MEMBER).values(name=member.name, loaded_at=now, **_values(member))
                )
                added.append(member.name)
        return added, updated

    added, updated = ctx.store.write(work)
    ensure_natives(ctx)  # each member's native skills enter its set
    return TeamLoad(tuple(added), tuple(updated), tuple(errors), library)


def _record(ctx: Context, row: object) -> MemberRecord:
    name: str = row.name  # type: ignore[attr-defined]
    return MemberRecord(
        name=name,
        display_name=row.display_name,  # type: ignore[attr-defined]
        role=row.role,  # type: ignore[attr-defined]
        engine=row.engine,  # type: ignore[attr-defined]
        harnesses=tuple(row.harnesses),  # type: ignore[attr-defined]
        tools=tuple(row.tools),  # type: ignore[attr-defined]
        coordinator=bool(row.coordinator),  # type: ignore[attr-defined]
        native_skills=tuple(row.native_skills),  # type: ignore[attr-defined]
        # The roster is team knowledge; a member's soul is its own.
        soul=row.soul if can_see_member(ctx.actor, name) else "",  # type: ignore[attr-defined]
    )


@reader
def list_members(ctx: Context) -> list[MemberRecord]:
    """The team roster, coordinator first, then by name."""
    rows = ctx.store.read(lambda c: list(c.execute(select(MEMBER))))
    records = [_record(ctx, row) for row in rows]
    return sorted(records, key=lambda m: (not m.coordinator, m.name))


@reader
def get_member(ctx: Context, name: str) -> MemberRecord:
    """One member by name."""
    row = ctx.store.read(lambda c: c.execute(select(MEMBER).where(MEMBER.c.name == name)).first())
    if row is None:
        raise NotFound(f"no member named {name!r} (see `viva members`)")
    return _record(ctx, row)


def member_names(ctx: Context) -> list[str]:
    """Names of all members (for validation of arguments)."""
    return ctx.store.read(
        lambda c: list(c.execute(select(MEMBER.c.name).order_by(MEMBER.c.name)).scalars())
    )
