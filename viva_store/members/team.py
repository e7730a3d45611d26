"""Member definitions on disk: ``members/<name>/member.yaml`` and ``soul.md``.

Pure parsing and validation (no database): :func:`read_team` returns the
valid definitions and one message per bad file, naming the file and what is
wrong, so one broken member never hides the others.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from viva_store.errors import InvalidInput
from viva_store.frontmatter import split_front_matter

NAME_RE = re.compile(r"^[a-z][a-z0-9-]{0,31}$")
HARNESSES = ("claude-code", "codex", "pi", "gemini", "opencode", "hermes")
REQUIRED = ("name", "display_name", "role", "engine", "harnesses", "tools")


@dataclass(frozen=True, slots=True)
class MemberDef:
    """A validated member definition."""

    name: str
    display_name: str
    role: str
    engine: str
    harnesses: tuple[str, ...]
    tools: tuple[str, ...]
    coordinator: bool
    soul: str
    native_skills: tuple[str, ...]
    source_path: str


def _str_list(data: dict[str, Any], key: str, where: Path) -> tuple[str, ...]:
    value = data.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise InvalidInput(f"{where}: '{key}' must be a list of non-empty strings")
    return tuple(value)


def read_member(folder: Path) -> MemberDef:
    """Read and validate one member folder; raises :class:`InvalidInput` naming the file."""
    yaml_path = folder / "member.yaml"
    try:
        data = yaml.safe_load(yaml_path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise InvalidInput(f"{yaml_path}: missing") from exc
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{yaml_path}: not valid YAML ({' '.join(str(exc).split())})") from exc
    if not isinstance(data, dict):
        raise InvalidInput(f"{yaml_path}: must be a mapping of keys to values")
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        raise InvalidInput(f"{yaml_path}: missing required key(s): {', '.join(missing)}")
    for key in ("name", "display_name", "role", "engine"):
        if not isinstance(data[key], str) or not data[key].strip():
            raise InvalidInput(f"{yaml_path}: '{key}' must be a non-empty string")
    name = data["name"]
    if not NAME_RE.match(name):
        raise InvalidInput(f"{yaml_path}: name {name!r} must be lowercase a-z, 0-9 and '-'")
    if name != folder.name:
        raise InvalidInput(f"{yaml_path}: name {name!r} differs from its folder {folder.name!r}")
    harnesses = _str_list(data, "harnesses", yaml_path)
    unknown = [h for h in harnesses if h not in HARNESSES]
    if unknown:
        raise InvalidInput(
            f"{yaml_path}: unknown harness(es) {', '.join(unknown)} (known: {', '.join(HARNESSES)})"
        )
    coordinator = data.get("coordinator", False)
    if not isinstance(coordinator, bool):
        raise InvalidInput(f"{yaml_path}: 'coordinator' must be true or false")
    soul_path = folder / "soul.md"
    try:
        soul_text = soul_path.read_text(encoding="utf-8")
    except FileNotFoundError as exc:
        raise InvalidInput(f"{soul_path}: missing") from exc
    front, body = split_front_matter(soul_text, str(soul_path))
    natives = front.get("native_skills", [])
    if not isinstance(natives, list) or not all(isinstance(n, str) for n in natives):
        raise InvalidInput(f"{soul_path}: 'native_skills' must be a list of skill names")
    return MemberDef(
        name=name,
        display_name=data["display_name"].strip(),
        role=data["role"].strip(),
        engine=data["engine"].strip(),
        harnesses=harnesses,
        tools=_str_list(data, "tools", yaml_path),
        coordinator=coordinator,
        soul=body.strip() + "\n",
        native_skills=tuple(natives),
        source_path=str(folder),
    )


def read_team(folder: Path) -> tuple[list[MemberDef], list[str]]:
    """Every member folder under ``folder`` (those with a ``member.yaml``), and the errors."""
    if not folder.is_dir():
        raise InvalidInput(f"{folder}: not a folder of member definitions")
    members: list[MemberDef] = []
    errors: list[str] = []
    for child in sorted(p for p in folder.iterdir() if (p / "member.yaml").exists()):
        try:
            members.append(read_member(child))
        except InvalidInput as exc:
            errors.append(str(exc))
    if not members and not errors:
        errors.append(f"{folder}: no member folders (each needs a member.yaml)")
    coordinators = [m.name for m in members if m.coordinator]
    if len(coordinators) > 1:
        errors.append(f"{folder}: more than one coordinator ({', '.join(coordinators)})")
    return members, errors


def shipped_members_dir() -> Path:
    """The default team shipped with Viva (inside the wheel, or the source checkout)."""
    package = Path(__file__).resolve().parents[1]
    bundled = package / "_team" / "members"
    if bundled.is_dir():
        return bundled
    return package.parent / "members"
