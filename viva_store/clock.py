"""The one clock. ``VIVA_NOW`` (ISO-8601) replaces it everywhere."""

from __future__ import annotations

import os
from datetime import UTC, datetime

from viva_store.errors import InvalidInput


def parse_instant(text: str) -> datetime:
    """Parse an ISO-8601 instant; a naive value is taken as UTC."""
    try:
        value = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInput(f"not an ISO-8601 instant: {text!r}") from exc
    return as_utc(value)


def as_utc(value: datetime) -> datetime:
    """Attach UTC to a naive datetime (SQLite returns them naive) or convert to UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def now() -> datetime:
    """The current instant: ``VIVA_NOW`` when set, else the real clock (UTC)."""
    frozen = os.environ.get("VIVA_NOW")
    if frozen:
        try:
            return parse_instant(frozen)
        except InvalidInput as exc:
            raise InvalidInput(f"VIVA_NOW is {exc}") from exc
    return datetime.now(UTC)
