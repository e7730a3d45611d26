"""YAML front matter (``---`` blocks) as used by ``SKILL.md`` and ``soul.md``."""

from __future__ import annotations

from typing import Any

from viva_store.errors import InvalidInput


def split_front_matter(text: str, where: str) -> tuple[dict[str, Any], str]:
    """Split ``text`` into (front matter mapping, body); ``where`` names the file in errors."""
    import yaml  # only where files are read, not for every command that imports skills

    text = text.removeprefix("\ufeff")
    if not text.startswith("---"):
        raise InvalidInput(f"{where}: no YAML front matter (the file must start with '---')")
    end = text.find("\n---", 3)
    if end < 0:
        raise InvalidInput(f"{where}: front matter is not closed by a '---' line")
    try:
        data = yaml.safe_load(text[3:end])
    except yaml.YAMLError as exc:
        raise InvalidInput(f"{where}: front matter is not valid YAML ({_first_line(exc)})") from exc
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise InvalidInput(f"{where}: front matter must be a mapping")
    body = text[end + 4 :]
    return data, body.split("\n", 1)[1] if "\n" in body else ""


def _first_line(exc: Exception) -> str:
    return " ".join(str(exc).split())
