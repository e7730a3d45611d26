"""The team skill library: ``SKILL.md`` folders (Agent Skills format).

Front matter holds ``name`` (<= 64 chars of ``a-z0-9-``, equal to the folder
name) and ``description`` (<= 1024 chars), optionally ``tags`` and
``derived_from``; the body follows. Reading is pure; storing goes through
:func:`import_skills`, owner only.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import Connection, insert, select, update

from viva_store.access import require_owner
from viva_store.db.schema import SKILL
from viva_store.errors import InvalidInput, NotFound
from viva_store.frontmatter import split_front_matter
from viva_store.records import SkillRecord
from viva_store.redact import redact_typed
from viva_store.registry import reader
from viva_store.store import Context

SKILL_NAME_RE = re.compile(r"^[a-z0-9-]{1,64}$")
MAX_DESCRIPTION = 1024


@dataclass(frozen=True, slots=True)
class SkillDef:
    """A validated ``SKILL.md``."""

    name: str
    description: str
    body: str
    tags: tuple[str, ...]
    derived_from: str | None
    source_path: str

    @property
    def digest(self) -> str:
        payload = "\0".join((self.name, self.description, self.body, *self.tags))
        return hashlib.sha256(payload.encode()).hexdigest()


def read_skill(folder: Path) -> SkillDef:
    """Read and validate one skill folder; raises :class:`InvalidInput` naming the file."""
    path = folder / "SKILL.md"
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InvalidInput(f"{path}: missing") from exc
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"{path}: not UTF-8 text") from exc
    front, body = split_front_matter(text, str(path))
    name = front.get("name")
    if not isinstance(name, str) or not SKILL_NAME_RE.match(name):
        raise InvalidInput(f"{path}: name {name!r} must be 1-64 characters of a-z, 0-9 and '-'")
    if name != folder.name:
        raise InvalidInput(f"{path}: name {name!r} differs from its folder {folder.name!r}")
    description = front.get("description")
    if not isinstance(description, str) or not description.strip():
        raise InvalidInput(f"{path}: missing description (what the skill does and when to use it)")
    if len(description) > MAX_DESCRIPTION:
        raise InvalidInput(
            f"{path}: description has {len(description)} characters (at most {MAX_DESCRIPTION})"
        )
    tags = front.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise InvalidInput(f"{path}: 'tags' must be a list of strings")
    derived = front.get("derived_from")
    if derived is not None and not isinstance(derived, str):
        raise InvalidInput(f"{path}: 'derived_from' must be a skill name")
    # A skill file is typed by someone: a credential pasted into it is not stored.
    description, body = redact_typed(description.strip()), redact_typed(body.strip())
    return SkillDef(name, description, body + "\n", tuple(tags), derived, str(folder))


def read_library(folder: Path) -> tuple[list[SkillDef], list[str]]:
    """Every skill folder under ``folder`` (recursively, any folder with a SKILL.md)."""
    if not folder.is_dir():
        raise InvalidInput(f"{folder}: not a folder")
    skills: list[SkillDef] = []
    errors: list[str] = []
    for skill_md in sorted(folder.rglob("SKILL.md")):
        try:
            skills.append(read_skill(skill_md.parent))
        except InvalidInput as exc:
            errors.append(str(exc))
    return skills, errors


@dataclass(frozen=True, slots=True)
class LibraryImport:
    """What :func:`import_skills` did."""

    added: tuple[str, ...]
    updated: tuple[str, ...]
    unchanged: tuple[str, ...]
    errors: tuple[str, ...]


def import_skills(ctx: Context, folder: Path) -> LibraryImport:
    """Add (or refresh) the skill folders under ``folder`` in the team library."""
    require_owner(ctx.actor, "change the team skill library")
    skills, errors = read_library(folder)
    now = ctx.store.now()
    known_names = {s.name for s in skills}

    def work(conn: Connection) -> LibraryImport:
        existing = {
            row.name: row.digest for row in conn.execute(select(SKILL.c.name, SKILL.c.digest))
        }
        added: list[str] = []
        updated: list[str] = []
        unchanged: list[str] = []
        bad: list[str] = list(errors)
        # Parents first, so a derived skill's foreign key holds.
        for skill in sorted(skills, key=lambda s: (s.derived_from is not None, s.name)):
            if skill.derived_from and not (
                skill.derived_from in existing or skill.derived_from in known_names
            ):
                bad.append(
                    f"{skill.source_path}: derived_from {skill.derived_from!r} is not a skill"
                )
                continue
            values = {
                "description": skill.description,
                "body": skill.body,
                "tags": list(skill.tags),
                "source_path": skill.source_path,
                "derived_from": skill.derived_from,
                "digest": skill.digest,
            }
            if skill.name not in existing:
                conn.execute(insert(SKILL).values(name=skill.name, added_at=now, **values))
                existing[skill.name] = skill.digest
                added.append(skill.name)
            elif existing[skill.name] != skill.digest:
                conn.execute(update(SKILL).where(SKILL.c.name == skill.name).values(**values))
                updated.append(skill.name)
            else:
                unchanged.append(skill.name)
        return LibraryImport(tuple(added), tuple(updated), tuple(unchanged), tuple(bad))

    return ctx.store.write(work)


def _record(row: object, with_body: bool) -> SkillRecord:
    return SkillRecord(
        name=row.name,  # type: ignore[attr-defined]
        description=row.description,  # type: ignore[attr-defined]
        tags=tuple(row.tags or ()),  # type: ignore[attr-defined]
        derived_from=row.derived_from,  # type: ignore[attr-defined]
        source_path=row.source_path,  # type: ignore[attr-defined]
        body=row.body if with_body else "",  # type: ignore[attr-defined]
    )


@reader
def list_library(ctx: Context) -> list[SkillRecord]:
    """The team skill library (shared by the whole team), by name."""
    rows = ctx.store.read(lambda c: list(c.execute(select(SKILL).order_by(SKILL.c.name))))
    return [_record(row, with_body=False) for row in rows]


@reader
def get_skill(ctx: Context, name: str) -> SkillRecord:
    """One team skill with its body."""
    row = ctx.store.read(lambda c: c.execute(select(SKILL).where(SKILL.c.name == name)).first())
    if row is None:
        raise NotFound(f"no skill named {name!r} in the team library")
    return _record(row, with_body=True)
